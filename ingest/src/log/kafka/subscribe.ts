import type { LogRecord, SubscribeOptions, Subscription } from "../event-log.ts";
import type { GroupMember } from "./client/port.ts";
import type { KafkaLogContext } from "./context.ts";

/**
 * How many partitions one consumer applies at the same time. Each batch is its own database
 * transaction, so this is also how many of the database pool's connections projection takes.
 */
const PARTITIONS_IN_PARALLEL = 3;

/** How long a consumer that crashed for good waits before it starts again. */
export const CONSUMER_RESTART_MS = 2000;

/**
 * A member of the group `<topic>.<consumer>` that delivers batches to `sub.onBatch` and commits
 * Kafka offsets only after each chunk is applied, so they never run ahead of the read models
 * (anything redelivered at or below the stored checkpoint is skipped by the consumer). A member
 * that stopped for good (a broker away for longer than the client's retries, a batch the client does
 * not retry) is started again until it runs, so an outage never stops the projection for good. The
 * log's `close` stops the members through `members`.
 */
export function createSubscribe(
  { client, topic, partitions, recordsOf }: KafkaLogContext,
  members: Set<Subscription>,
): (sub: SubscribeOptions) => Subscription {
  return function subscribe(sub) {
    let stopped = false;
    let restartTimer: ReturnType<typeof setTimeout> | null = null;
    let member: GroupMember | null = null;
    const start = () => {
      const m = client.group({
        // One group per topic and consumer name, so deployments (and tests) sharing a cluster stay apart.
        groupId: `${topic}.${sub.consumer}`,
        topic,
        // Partitions apply side by side (each batch locks only its own partitions), so one slow
        // batch does not hold up the others' projection lag.
        concurrency: Math.min(partitions, PARTITIONS_IN_PARALLEL),
        eachBatch: async (partition, messages, batch) => {
          const records = await recordsOf(partition, messages);
          for (let i = 0; i < records.length && batch.isCurrent(); i += sub.maxBatch) {
            const chunk = records.slice(i, i + sub.maxBatch);
            try {
              await sub.onBatch(chunk);
            } catch (err) {
              sub.onError?.(err);
              throw err;
            }
            await batch.commit((chunk[chunk.length - 1] as LogRecord).offset);
          }
        },
      });
      member = m;
      m.ended.catch((err) => {
        if (stopped || member !== m) return;
        sub.onError?.(err);
        void m.stop().catch(() => {});
        restartTimer = setTimeout(() => {
          restartTimer = null;
          if (!stopped) start();
        }, CONSUMER_RESTART_MS);
      });
    };
    start();
    const subscription: Subscription = {
      stop: async () => {
        stopped = true;
        if (restartTimer) clearTimeout(restartTimer);
        await member?.stop();
        members.delete(subscription);
      },
    };
    members.add(subscription);
    return subscription;
  };
}
