import {
  Admin,
  ConfigResourceTypes,
  Consumer,
  ListOffsetTimestamps,
  type Message,
  type MessagesStream,
  ProduceAcks,
  Producer,
} from "@platformatic/kafka";
import { headersOf, throwawayGroup, withLeaderRetry } from "./common.ts";
import { backgroundCommits } from "./platformatic-commits.ts";
import type { FetchedMessage, GroupMember, KafkaClient, KafkaClientOptions, Reading } from "./port.ts";

/** Messages gathered and not yet handed over, beyond which the stream stops fetching. */
const MAX_WAITING = 20_000;
/** The most messages one batch hands over. */
const MAX_BATCH = 10_000;

const fetched = (m: Message): FetchedMessage => ({
  offset: Number(m.offset),
  key: m.key && m.key.length > 0 ? m.key : null,
  value: m.value ?? null,
  headers: headersOf(m.headerEntries.map(([k, v]) => [k.toString(), v?.toString()] as const)),
});

/** Whether an error (or one it gathers) says the broker asked does not lead the partition yet. */
function notLeader(err: unknown): boolean {
  const seen = (e: unknown): boolean => {
    if (!e || typeof e !== "object") return false;
    const { apiId, message, errors } = e as { apiId?: unknown; message?: unknown; errors?: unknown };
    const text = `${String(apiId ?? "")} ${String(message ?? "")}`;
    if (/NOT_LEADER|LEADER_NOT_AVAILABLE|UNKNOWN_TOPIC_OR_PARTITION/.test(text)) return true;
    return Array.isArray(errors) && errors.some(seen);
  };
  return seen(err);
}

/**
 * Hands a stream's messages of `topic` to `handle` in batches of one partition: partitions side by
 * side up to `concurrency`, each partition's batches in order, the one waiting longest first; the
 * stream pauses while too many messages wait. Returns what is in flight, for a clean stop.
 */
function dispatch(
  stream: MessagesStream<Buffer, Buffer, Buffer, Buffer>,
  topic: string,
  concurrency: number,
  handle: (partition: number, messages: Message[]) => Promise<void>,
  fail: (err: unknown) => void,
) {
  const queues = new Map<number, Message[]>();
  const busy = new Map<number, Promise<void>>();
  let waiting = 0;
  let scheduled = false;
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(pump);
  };
  function pump() {
    scheduled = false;
    for (const [p, queue] of [...queues]) {
      if (busy.size >= concurrency) break;
      if (busy.has(p) || queue.length === 0) continue;
      const batch = queue.splice(0, MAX_BATCH);
      waiting -= batch.length;
      // To the back of the line, so busy partitions do not starve the others.
      queues.delete(p);
      if (queue.length > 0) queues.set(p, queue);
      const running = handle(p, batch).then(
        () => {
          busy.delete(p);
          schedule();
        },
        (err) => {
          busy.delete(p);
          fail(err);
        },
      );
      busy.set(p, running);
    }
    if (waiting < MAX_WAITING / 2 && stream.isPaused()) stream.resume();
  }
  stream.on("data", (m: Message) => {
    if (m.topic !== topic) return;
    const queue = queues.get(m.partition);
    if (queue) queue.push(m);
    else queues.set(m.partition, [m]);
    waiting++;
    if (waiting >= MAX_WAITING && !stream.isPaused()) stream.pause();
    schedule();
  });
  stream.on("error", fail);
  return {
    /** Forgets what waits (a rebalance: the stream fetches again from the committed offsets). */
    drop: () => {
      queues.clear();
      waiting = 0;
    },
    inFlight: () => Promise.allSettled([...busy.values()]),
  };
}

/** Header names as bytes, made once per name: every record carries the same few. */
const headerNames = new Map<string, Buffer>();
function headerName(name: string): Buffer {
  let bytes = headerNames.get(name);
  if (!bytes) {
    bytes = Buffer.from(name);
    if (headerNames.size < 64) headerNames.set(name, bytes);
  }
  return bytes;
}

/** The port on @platformatic/kafka: TypeScript, no native code, maintained. */
export async function createPlatformaticClient(options: KafkaClientOptions): Promise<KafkaClient> {
  const base = {
    clientId: options.clientId,
    bootstrapBrokers: [...options.brokers],
    connectTimeout: 3000,
    timeout: 10_000,
    retries: 5,
    retryDelay: 200,
  };
  const admin = new Admin(base);
  try {
    await admin.metadata({ topics: [] });
  } catch (err) {
    await admin.close().catch(() => {});
    throw err;
  }
  let producer: Producer | null = null;
  const closing = new Set<() => Promise<void>>();

  /** Each of `count` partitions' offset at `timestamp` (earliest or latest). */
  const listOffsets = async (topic: string, count: number, timestamp: bigint) => {
    const listed = await admin.listOffsets({
      topics: [
        {
          name: topic,
          partitions: Array.from({ length: count }, (_, partitionIndex) => ({ partitionIndex, timestamp })),
        },
      ],
    });
    return new Map((listed[0]?.partitions ?? []).map((p) => [p.partitionIndex, Number(p.offset)]));
  };

  /** A consumer of `groupId` streaming `topic`, closed with the client. */
  const consumerOf = (groupId: string, extra: { maxWaitTime: number }) =>
    new Consumer({
      ...base,
      groupId,
      sessionTimeout: 15_000,
      heartbeatInterval: 1000,
      autocreateTopics: false,
      ...extra,
    });

  return {
    name: "platformatic",
    listTopics: () => admin.listTopics(),
    async createTopics(specs) {
      for (const s of specs)
        await admin.createTopics({
          topics: [s.topic],
          partitions: s.partitions,
          replicas: -1,
          configs: Object.entries(s.configs).map(([name, value]) => ({ name, value })),
        });
      // Wait for the partitions' leaders, as a producer or consumer asking at once would fail.
      for (let attempt = 0; attempt < 40 && specs.length > 0; attempt++) {
        const meta = await admin
          .metadata({ topics: specs.map((s) => s.topic), forceUpdate: true })
          .catch(() => null);
        const led = specs.every((s) => meta?.topics.get(s.topic)?.partitions.every((p) => p.leader >= 0));
        if (led) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async partitionCount(topic) {
      return (
        (await admin.metadata({ topics: [topic], forceUpdate: true })).topics.get(topic)?.partitionsCount ?? 0
      );
    },
    offsets: (topic) =>
      withLeaderRetry(
        async () => {
          // The partitions once for both ends (the metadata cached unless a retry refreshed it).
          const count = (await admin.metadata({ topics: [topic] })).topics.get(topic)?.partitionsCount ?? 0;
          const [low, high] = await Promise.all([
            listOffsets(topic, count, ListOffsetTimestamps.EARLIEST),
            listOffsets(topic, count, ListOffsetTimestamps.LATEST),
          ]);
          return [...high].map(([partition, h]) => ({ partition, low: low.get(partition) ?? 0, high: h }));
        },
        notLeader,
        () => admin.metadata({ topics: [topic], forceUpdate: true }),
      ),
    async topicConfig(topic, names) {
      const described = await admin.describeConfigs({
        resources: [
          { resourceType: ConfigResourceTypes.TOPIC, resourceName: topic, configurationKeys: [...names] },
        ],
      });
      return new Map((described[0]?.configs ?? []).map((c) => [c.name, c.value ?? ""]));
    },
    ping: async () => {
      await admin.metadata({ topics: [], forceUpdate: true });
    },
    producer() {
      return {
        async send(topic, messages) {
          producer ??= new Producer({
            ...base,
            idempotent: true,
            acks: ProduceAcks.ALL,
            autocreateTopics: false,
          });
          const sent = await producer.send({
            messages: messages.map((m) => ({
              topic,
              partition: m.partition,
              key: m.key === null ? undefined : Buffer.from(m.key),
              // The log's values are Buffers already: handed over, not copied.
              value: m.value === null ? undefined : Buffer.isBuffer(m.value) ? m.value : Buffer.from(m.value),
              headers: m.headers
                ? new Map(Object.entries(m.headers).map(([k, v]) => [headerName(k), Buffer.from(v)]))
                : undefined,
            })),
          });
          return new Map((sent.offsets ?? []).map((o) => [o.partition, Number(o.offset)]));
        },
      };
    },
    group(o) {
      const consumer = consumerOf(o.groupId, { maxWaitTime: 100 });
      let stopped = false;
      let generation = 0;
      let fail: (err: unknown) => void = () => {};
      let end: () => void = () => {};
      const ended = new Promise<void>((resolve, reject) => {
        fail = (err) => {
          if (!stopped) reject(err);
        };
        end = resolve;
      });
      ended.catch(() => {});
      const owns = (p: number) =>
        consumer.assignments?.some((a) => a.topic === o.topic && a.partitions.includes(p)) ?? false;
      let stream: MessagesStream<Buffer, Buffer, Buffer, Buffer> | null = null;
      let flow: ReturnType<typeof dispatch> | null = null;
      const commits = backgroundCommits();
      const started = (async () => {
        stream = await consumer.consume({
          topics: [o.topic],
          mode: "committed",
          fallbackMode: "earliest",
          autocommit: false,
          maxWaitTime: 100,
        });
        if (stopped) return;
        consumer.on("consumer:group:join", () => {
          generation++;
          flow?.drop();
        });
        flow = dispatch(
          stream,
          o.topic,
          o.concurrency,
          async (partition, messages) => {
            const at = generation;
            const byOffset = new Map(messages.map((m) => [Number(m.offset), m]));
            await o.eachBatch(partition, messages.map(fetched), {
              isCurrent: () => !stopped && generation === at && owns(partition),
              commit: async (offset) => {
                const message = byOffset.get(offset);
                if (message) commits.offer(partition, message);
              },
            });
          },
          fail,
        );
      })().catch(fail);
      const stop = async () => {
        if (stopped) return;
        stopped = true;
        await started;
        await flow?.inFlight();
        await commits.flush();
        await (stream as MessagesStream<Buffer, Buffer, Buffer, Buffer> | null)?.close().catch(() => {});
        await consumer.close(true).catch(() => {});
        closing.delete(stop);
        end();
      };
      closing.add(stop);
      const member: GroupMember = { ended, stop };
      return member;
    },
    read(o) {
      const pending = new Set(o.from.keys());
      const groupId = throwawayGroup("read");
      const consumer = consumerOf(groupId, { maxWaitTime: 500 });
      let stopped = false;
      let finish: (err?: unknown) => void = () => {};
      const finished = new Promise<void>((resolve, reject) => {
        finish = (err) => (err ? reject(err) : resolve());
      });
      let stream: MessagesStream<Buffer, Buffer, Buffer, Buffer> | null = null;
      let flow: ReturnType<typeof dispatch> | null = null;
      const started = (async () => {
        if (pending.size === 0) return finish();
        // Partitions not read start at their oldest record too, and their records are dropped.
        stream = await consumer.consume({
          topics: [o.topic],
          mode: "manual",
          fallbackMode: "earliest",
          offsets: [...o.from].map(([partition, offset]) => ({
            topic: o.topic,
            partition,
            offset: BigInt(offset),
          })),
          autocommit: false,
          maxBytesPerPartition: 4 * 1024 * 1024,
        });
        if (stopped) return;
        flow = dispatch(
          stream,
          o.topic,
          Number.POSITIVE_INFINITY,
          async (p, messages) => {
            if (stopped || !pending.has(p)) return;
            const first = o.from.get(p) ?? 0;
            const wanted = messages.map(fetched).filter((m) => m.offset >= first);
            if (wanted.length === 0) return;
            if (await o.eachBatch(p, wanted)) return;
            pending.delete(p);
            if (pending.size === 0) finish();
          },
          (err) => {
            stopped = true;
            finish(err);
          },
        );
      })().catch((err) => finish(err));
      const ended = finished.finally(async () => {
        stopped = true;
        await started;
        await flow?.inFlight();
        await (stream as MessagesStream<Buffer, Buffer, Buffer, Buffer> | null)?.close().catch(() => {});
        await consumer.close(true).catch(() => {});
        // The group committed nothing; deleting it leaves no trace on the brokers.
        await admin.deleteGroups({ groups: [groupId] }).catch(() => {});
      });
      ended.catch(() => {});
      const stop = async () => {
        stopped = true;
        finish();
        await ended.catch(() => {});
        closing.delete(stop);
      };
      closing.add(stop);
      const reading: Reading = { ended, stop };
      return reading;
    },
    async close() {
      for (const stop of [...closing]) await stop();
      await producer?.close().catch(() => {});
      await admin.close();
    },
  };
}
