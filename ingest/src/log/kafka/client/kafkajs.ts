import kafkajs, {
  type Admin,
  type Consumer,
  type Kafka,
  logLevel as KafkaLogLevel,
  type KafkaMessage,
  type LogEntry,
  type Producer,
} from "kafkajs";
import type { Logger } from "pino";
import { headersOf, throwawayGroup, withLeaderRetry } from "./common.ts";
import type { FetchedMessage, GroupMember, KafkaClient, KafkaClientOptions, Reading } from "./port.ts";

function kafkaLogger(logger: Logger) {
  return () =>
    ({ level, log }: LogEntry) => {
      const { message, ...extra } = log;
      if (level === KafkaLogLevel.ERROR) logger.error(extra, `kafka: ${message}`);
      else if (level === KafkaLogLevel.WARN) logger.warn(extra, `kafka: ${message}`);
      else logger.debug(extra, `kafka: ${message}`);
    };
}

const fetched = (m: KafkaMessage): FetchedMessage => ({
  offset: Number(m.offset),
  key: m.key ?? null,
  value: m.value ?? null,
  headers: headersOf(Object.entries(m.headers ?? {})),
});

/** kafkajs's error types that mean the broker asked does not lead the partition yet. */
const NOT_LEADER = new Set([
  "NOT_LEADER_FOR_PARTITION",
  "LEADER_NOT_AVAILABLE",
  "UNKNOWN_TOPIC_OR_PARTITION",
]);

/** The port on kafkajs (2.2), the adapter's first client. */
export async function createKafkajsClient(options: KafkaClientOptions): Promise<KafkaClient> {
  const kafka: Kafka = new kafkajs.Kafka({
    clientId: options.clientId,
    brokers: [...options.brokers],
    connectionTimeout: 3000,
    requestTimeout: 10_000,
    retry: { initialRetryTime: 200, retries: 5, maxRetryTime: 3000 },
    logLevel: KafkaLogLevel.WARN,
    logCreator: kafkaLogger(options.logger),
  });
  const admin: Admin = kafka.admin();
  await admin.connect();
  let producer: Promise<Producer> | null = null;
  const consumers = new Set<Consumer>();

  const connectProducer = async () => {
    const p = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    await p.connect();
    return p;
  };

  return {
    name: "kafkajs",
    listTopics: () => admin.listTopics(),
    async createTopics(specs) {
      if (specs.length === 0) return;
      // kafkajs's own wait for leaders fails at once when the broker asked does not know a new topic
      // yet (under concurrent creations): waited for here, as for offsets.
      await admin.createTopics({
        waitForLeaders: false,
        topics: specs.map((s) => ({
          topic: s.topic,
          numPartitions: s.partitions,
          replicationFactor: -1,
          configEntries: Object.entries(s.configs).map(([name, value]) => ({ name, value })),
        })),
      });
      const topics = specs.map((t) => t.topic);
      await withLeaderRetry(
        async () => {
          const meta = await admin.fetchTopicMetadata({ topics });
          if (!meta.topics.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0)))
            throw Object.assign(new Error("the new topics have no leaders yet"), {
              type: "LEADER_NOT_AVAILABLE",
            });
        },
        (err) => NOT_LEADER.has((err as { type?: string }).type ?? ""),
        async () => {},
      );
    },
    async partitionCount(topic) {
      const meta = await admin.fetchTopicMetadata({ topics: [topic] });
      return meta.topics[0]?.partitions.length ?? 0;
    },
    offsets: (topic) =>
      withLeaderRetry(
        async () =>
          (await admin.fetchTopicOffsets(topic)).map((o) => ({
            partition: o.partition,
            low: Number(o.low),
            high: Number(o.high),
          })),
        (err) => NOT_LEADER.has((err as { type?: string }).type ?? ""),
        () => admin.fetchTopicMetadata({ topics: [topic] }),
      ),
    async topicConfig(topic, names) {
      const described = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type: kafkajs.ConfigResourceTypes.TOPIC, name: topic, configNames: [...names] }],
      });
      const entries = described.resources[0]?.configEntries ?? [];
      return new Map(entries.map((e) => [e.configName, e.configValue]));
    },
    ping: async () => {
      await admin.describeCluster();
    },
    producer() {
      return {
        async send(topic, messages) {
          producer ??= connectProducer().catch((err) => {
            producer = null;
            throw err;
          });
          const sent = await (await producer).send({
            topic,
            acks: -1,
            messages: messages.map((m) => ({
              partition: m.partition,
              key: m.key,
              value: m.value,
              headers: m.headers ? { ...m.headers } : undefined,
            })),
          });
          return new Map(sent.map((r) => [r.partition, Number(r.baseOffset)]));
        },
      };
    },
    group(o) {
      // kafkajs waits up to 5 s in a fetch that finds nothing new, and sleeps as long when no
      // partition is ready to fetch (after a rebalance): a record appended meanwhile waited with it.
      const consumer = kafka.consumer({
        groupId: o.groupId,
        sessionTimeout: 15_000,
        heartbeatInterval: 1000,
        allowAutoTopicCreation: false,
        maxWaitTimeInMs: 100,
      });
      consumers.add(consumer);
      let stopped = false;
      let fail: (err: unknown) => void = () => {};
      let end: () => void = () => {};
      const ended = new Promise<void>((resolve, reject) => {
        fail = reject;
        end = resolve;
      });
      // kafkajs retries a failed batch and restarts a consumer that crashed on a retriable error
      // itself; one that ran out of tries ("Failed to find group coordinator") it only disconnects.
      consumer.on(consumer.events.CRASH, ({ payload }) => {
        if (!payload.restart && !stopped) fail(payload.error);
      });
      const started = (async () => {
        await consumer.connect();
        await consumer.subscribe({ topic: o.topic, fromBeginning: true });
        // Offsets are resolved as chunks are applied and committed after each batch; seeking inside
        // a rebalance proved unreliable with kafkajs (partitions stalled), so committed offsets decide.
        await consumer.run({
          autoCommit: true,
          partitionsConsumedConcurrently: o.concurrency,
          eachBatchAutoResolve: false,
          eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
            await o.eachBatch(batch.partition, batch.messages.map(fetched), {
              isCurrent: () => isRunning() && !isStale(),
              commit: async (offset) => {
                resolveOffset(String(offset));
                await heartbeat();
              },
            });
          },
        });
      })().catch((err) => {
        if (!stopped) fail(err);
      });
      const member: GroupMember = {
        ended,
        stop: async () => {
          stopped = true;
          await started;
          await consumer.disconnect();
          consumers.delete(consumer);
          end();
        },
      };
      ended.catch(() => {});
      return member;
    },
    read(o) {
      const pending = new Set(o.from.keys());
      const groupId = throwawayGroup("read");
      const consumer = kafka.consumer({
        groupId,
        allowAutoTopicCreation: false,
        sessionTimeout: 15_000,
        heartbeatInterval: 1000,
        maxBytesPerPartition: 4 * 1024 * 1024,
      });
      consumers.add(consumer);
      let stopped = false;
      let finish: (err?: unknown) => void = () => {};
      const finished = new Promise<void>((resolve, reject) => {
        finish = (err) => (err ? reject(err) : resolve());
      });
      const started = (async () => {
        if (pending.size === 0) return finish();
        await consumer.connect();
        if (stopped) return;
        await consumer.subscribe({ topic: o.topic, fromBeginning: true });
        // Each assigned partition is sought to its first offset, or paused when it is not read.
        consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
          const assigned = payload.memberAssignment[o.topic] ?? [];
          const idle = assigned.filter((p) => !pending.has(p));
          for (const p of assigned)
            if (pending.has(p))
              consumer.seek({ topic: o.topic, partition: p, offset: String(o.from.get(p)) });
          if (idle.length > 0) consumer.pause([{ topic: o.topic, partitions: idle }]);
        });
        await consumer.run({
          autoCommit: false,
          eachBatch: async ({ batch }) => {
            const p = batch.partition;
            if (stopped || !pending.has(p)) return;
            const first = o.from.get(p) ?? 0;
            const messages = batch.messages.map(fetched).filter((m) => m.offset >= first);
            if (messages.length === 0) return;
            let more: boolean;
            try {
              more = await o.eachBatch(p, messages);
            } catch (err) {
              stopped = true;
              return finish(err);
            }
            if (!more) {
              pending.delete(p);
              consumer.pause([{ topic: o.topic, partitions: [p] }]);
              if (pending.size === 0) finish();
            }
          },
        });
      })().catch((err) => finish(err));
      const ended = finished.finally(async () => {
        stopped = true;
        await started;
        await consumer.disconnect().catch(() => {});
        consumers.delete(consumer);
        // The group committed nothing; deleting it leaves no trace on the brokers.
        await admin.deleteGroups([groupId]).catch(() => {});
      });
      ended.catch(() => {});
      const reading: Reading = {
        ended,
        stop: async () => {
          stopped = true;
          finish();
          await ended.catch(() => {});
        },
      };
      return reading;
    },
    async close() {
      for (const c of [...consumers]) await c.disconnect().catch(() => {});
      if (producer) await (await producer).disconnect();
      await admin.disconnect();
    },
  };
}
