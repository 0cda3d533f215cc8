import type { LogRecord, Scan, ScanOptions } from "../event-log.ts";
import { dropConsumer, throwawayGroup } from "../kafka-topics.ts";
import type { KafkaLogContext } from "./context.ts";

/** A scan's options; `raw` hands records over as stored, nothing decrypted or decoded. */
type KafkaScanOptions = ScanOptions & { raw?: boolean };

/** The adapter's scan, which the log's `scan`, `read` and placement detection share. */
export type KafkaScan = (o: KafkaScanOptions) => Scan;

/**
 * Reads after a position with a throwaway consumer that commits nothing, seeks each partition
 * itself, and deletes its group when done: no trace on the brokers. Running scans are kept in
 * `scans` until they settle, so closing the log stops them.
 */
export function createScan(
  { kafka, admin, topic, partitions, recordsOf }: KafkaLogContext,
  scans: Set<Scan>,
): KafkaScan {
  return function scan(o) {
    const after = new Map(o.after);
    const until = o.until ? new Map(o.until) : null;
    const pending = new Set(
      until ? [...until].filter(([p, last]) => last > (after.get(p) ?? -1)).map(([p]) => p) : [],
    );
    const groupId = throwawayGroup("scan");
    const consumer = kafka.consumer({
      groupId,
      allowAutoTopicCreation: false,
      sessionTimeout: 15_000,
      heartbeatInterval: 1000,
      maxBytesPerPartition: 4 * 1024 * 1024,
    });
    let stopped = false;
    let finish: (err?: unknown) => void = () => {};
    const finished = new Promise<void>((resolve, reject) => {
      finish = (err) => (err ? reject(err) : resolve());
    });
    const run = async () => {
      if (until && pending.size === 0) return;
      await consumer.connect();
      if (stopped) return;
      await consumer.subscribe({ topic, fromBeginning: true });
      consumer.on(consumer.events.GROUP_JOIN, () => {
        const done: number[] = [];
        for (let p = 0; p < partitions; p++) {
          if (until && !pending.has(p)) {
            done.push(p);
            continue;
          }
          const from = after.get(p);
          if (from !== undefined) consumer.seek({ topic, partition: p, offset: String(from + 1) });
        }
        // Partitions with nothing to deliver are not fetched at all.
        if (done.length > 0) consumer.pause([{ topic, partitions: done }]);
      });
      await consumer.run({
        autoCommit: false,
        eachBatch: async ({ batch }) => {
          const p = batch.partition;
          if (stopped || (until && !pending.has(p))) return;
          const last = until?.get(p) ?? Number.POSITIVE_INFINITY;
          const from = after.get(p) ?? -1;
          const wanted = batch.messages.filter((m) => {
            const offset = Number(m.offset);
            return offset > from && offset <= last;
          });
          for (let i = 0; i < wanted.length; i += o.maxBatch) {
            const records = await recordsOf(p, wanted.slice(i, i + o.maxBatch), o.raw, o.via);
            if (records.length === 0) continue;
            try {
              await o.onBatch(records);
            } catch (err) {
              finish(err);
              stopped = true;
              return;
            }
            after.set(p, (records[records.length - 1] as LogRecord).offset);
          }
          if (until && (after.get(p) ?? -1) >= last) {
            pending.delete(p);
            consumer.pause([{ topic, partitions: [p] }]);
            if (pending.size === 0) finish();
          }
        },
      });
    };
    const started = run().catch((err) => finish(err));
    const done = finished.finally(async () => {
      stopped = true;
      await started;
      await dropConsumer(admin, consumer, groupId);
    });
    if (until && pending.size === 0) finish();
    const handle: Scan = {
      done,
      stop: async () => {
        if (!stopped) finish();
        stopped = true;
        await done.catch(() => {});
      },
    };
    scans.add(handle);
    done.catch(() => {}).finally(() => scans.delete(handle));
    return handle;
  };
}
