import type { Consumer } from "kafkajs";
import type { LogRecord, SubscribeOptions, Subscription } from "../event-log.ts";
import type { KafkaLogContext } from "./context.ts";

/**
 * How many partitions one consumer applies at the same time. Each batch is its own database
 * transaction, so this is also how many of the database pool's connections projection takes.
 */
const PARTITIONS_IN_PARALLEL = 3;

/** How long a consumer that crashed for good waits before it starts again. */
export const CONSUMER_RESTART_MS = 2000;

/**
 * A consumer in the group `<topic>.<consumer>` that delivers batches to `sub.onBatch` and commits
 * Kafka offsets only after each one is applied. Live consumers are kept in `consumers`, so closing
 * the log disconnects them.
 */
export function createSubscribe(
  { kafka, topic, partitions, recordsOf }: KafkaLogContext,
  consumers: Set<Consumer>,
): (sub: SubscribeOptions) => Subscription {
  return function subscribe(sub) {
    // One consumer group per topic and consumer name, so deployments (and tests) sharing a cluster stay apart.
    const consumer = kafka.consumer({
      groupId: `${topic}.${sub.consumer}`,
      sessionTimeout: 15_000,
      heartbeatInterval: 1000,
      allowAutoTopicCreation: false,
      // kafkajs waits up to 5 s in a fetch that finds nothing new, and sleeps as long when no
      // partition is ready to fetch (after a rebalance): a record appended meanwhile waited with it.
      maxWaitTimeInMs: 100,
    });
    consumers.add(consumer);
    let stopped = false;
    let restartTimer: ReturnType<typeof setTimeout> | null = null;
    // kafkajs restarts a consumer that crashed on a retriable error itself; one that ran out of
    // tries (a broker away for longer than its retries: "Failed to find group coordinator") it only
    // disconnects. Started again here until it runs, so an outage never stops the projection for good.
    const restartLater = () => {
      if (stopped || restartTimer) return;
      restartTimer = setTimeout(() => {
        restartTimer = null;
        if (!stopped) started = start();
      }, CONSUMER_RESTART_MS);
    };
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (payload.restart || stopped) return;
      sub.onError?.(payload.error);
      restartLater();
    });
    const start = () =>
      run().catch((err) => {
        if (stopped) return;
        sub.onError?.(err);
        restartLater();
      });
    const run = async () => {
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      // Where to resume: Kafka's committed offsets, which this consumer commits only after the
      // batch's rows and checkpoint are committed in the database, so they never run ahead of the
      // read models; anything redelivered at or below the stored checkpoint is skipped by the
      // consumer. (Seeking inside a rebalance proved unreliable with kafkajs: partitions stalled.)
      await consumer.run({
        autoCommit: true,
        // Partitions apply side by side (each batch locks only its own partitions), so one slow
        // batch does not hold up the others' projection lag.
        partitionsConsumedConcurrently: Math.min(partitions, PARTITIONS_IN_PARALLEL),
        eachBatchAutoResolve: false,
        eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
          const records = await recordsOf(batch.partition, batch.messages);
          for (let i = 0; i < records.length && isRunning() && !isStale(); i += sub.maxBatch) {
            const chunk = records.slice(i, i + sub.maxBatch);
            try {
              await sub.onBatch(chunk);
            } catch (err) {
              sub.onError?.(err);
              throw err;
            }
            resolveOffset(String((chunk[chunk.length - 1] as LogRecord).offset));
            await heartbeat();
          }
        },
      });
    };
    let started = start();
    return {
      stop: async () => {
        stopped = true;
        if (restartTimer) clearTimeout(restartTimer);
        await started;
        await consumer.disconnect();
        consumers.delete(consumer);
      },
    };
  };
}
