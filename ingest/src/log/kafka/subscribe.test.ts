import type { Admin, Kafka } from "kafkajs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SubscribeOptions } from "../event-log.ts";
import { CONSUMER_RESTART_MS, createSubscribe } from "./subscribe.ts";

type Crash = { payload: { error: Error; restart: boolean } };

/** A kafkajs client whose one consumer connects as `connect` says and crashes when told to. */
function fakeKafka(connect: () => Promise<void> = async () => {}) {
  let onCrash: ((e: Crash) => void) | null = null;
  const consumer = {
    events: { CRASH: "consumer.crash" },
    on: (event: string, handler: (e: Crash) => void) => {
      if (event === "consumer.crash") onCrash = handler;
      return () => {};
    },
    connect: vi.fn(connect),
    subscribe: vi.fn(async () => {}),
    run: vi.fn(async () => {}),
    disconnect: vi.fn(async () => {}),
  };
  const kafka = { consumer: () => consumer } as unknown as Kafka;
  const crash = (restart: boolean, error = new Error("Failed to find group coordinator")) =>
    onCrash?.({ payload: { error, restart } });
  return { kafka, consumer, crash };
}

function subscribeWith(kafka: Kafka) {
  const onError = vi.fn();
  const sub: SubscribeOptions = {
    consumer: "projector",
    checkpoint: async () => -1,
    maxBatch: 100,
    onBatch: async () => {},
    onError,
  };
  const subscribe = createSubscribe(
    { kafka, admin: {} as Admin, topic: "events", partitions: 1, recordsOf: async () => [] },
    new Set(),
  );
  return { subscription: subscribe(sub), onError };
}

describe("a subscription's consumer after a crash", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("starts again after CONSUMER_RESTART_MS when kafkajs leaves it crashed without a restart of its own", async () => {
    const { kafka, consumer, crash } = fakeKafka();
    const { onError } = subscribeWith(kafka);
    await vi.advanceTimersByTimeAsync(0);
    expect(consumer.connect).toHaveBeenCalledTimes(1);

    crash(false);
    expect(onError).toHaveBeenCalledWith(
      expect.objectContaining({ message: "Failed to find group coordinator" }),
    );
    await vi.advanceTimersByTimeAsync(CONSUMER_RESTART_MS - 1);
    expect(consumer.connect).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(consumer.connect).toHaveBeenCalledTimes(2);
    expect(consumer.run).toHaveBeenCalledTimes(2);
  });

  it("leaves the restart to kafkajs when the crash is one kafkajs retries itself", async () => {
    const { kafka, consumer, crash } = fakeKafka();
    const { onError } = subscribeWith(kafka);
    await vi.advanceTimersByTimeAsync(0);
    crash(true);
    await vi.advanceTimersByTimeAsync(CONSUMER_RESTART_MS * 3);
    expect(consumer.connect).toHaveBeenCalledTimes(1);
    expect(onError).not.toHaveBeenCalled();
  });

  it("tries again every CONSUMER_RESTART_MS until it runs when the brokers are away at its start", async () => {
    let failures = 2;
    const { kafka, consumer } = fakeKafka(async () => {
      if (failures-- > 0) throw new Error("Connection error");
    });
    const { onError } = subscribeWith(kafka);
    await vi.advanceTimersByTimeAsync(CONSUMER_RESTART_MS * 5);
    expect(consumer.connect).toHaveBeenCalledTimes(3);
    expect(consumer.run).toHaveBeenCalledTimes(1);
    expect(onError).toHaveBeenCalledTimes(2);
  });

  it("stays stopped when it is stopped while a restart is pending", async () => {
    const { kafka, consumer, crash } = fakeKafka();
    const { subscription } = subscribeWith(kafka);
    await vi.advanceTimersByTimeAsync(0);
    crash(false);
    await subscription.stop();
    await vi.advanceTimersByTimeAsync(CONSUMER_RESTART_MS * 3);
    expect(consumer.connect).toHaveBeenCalledTimes(1);
    expect(consumer.disconnect).toHaveBeenCalledTimes(1);
  });
});
