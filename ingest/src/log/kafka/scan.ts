import type { LogRecord, Scan, ScanOptions } from "../event-log.ts";
import type { KafkaLogContext } from "./context.ts";

/** A scan's options; `raw` hands records over as stored, nothing decrypted or decoded. */
type KafkaScanOptions = ScanOptions & { raw?: boolean };

/** The adapter's scan, which the log's `scan`, `read` and placement detection share. */
export type KafkaScan = (o: KafkaScanOptions) => Scan;

/**
 * Reads after a position with the client's `read`, which commits nothing and leaves no trace on the
 * brokers; with `until`, each partition stops at its offset and the scan ends when all have. Running
 * scans are kept in `scans` until they settle, so closing the log stops them.
 */
export function createScan(
  { client, topic, partitions, recordsOf }: KafkaLogContext,
  scans: Set<Scan>,
): KafkaScan {
  return function scan(o) {
    const after = new Map(o.after);
    const until = o.until ? new Map(o.until) : null;
    const wanted = Array.from({ length: partitions }, (_, p) => p).filter(
      (p) => !until || (until.get(p) ?? -1) > (after.get(p) ?? -1),
    );
    let stopped = false;
    const reading =
      wanted.length === 0
        ? null
        : client.read({
            topic,
            from: new Map(wanted.map((p) => [p, (after.get(p) ?? -1) + 1])),
            eachBatch: async (p, messages) => {
              if (stopped) return false;
              const last = until?.get(p) ?? Number.POSITIVE_INFINITY;
              const from = after.get(p) ?? -1;
              const inRange = messages.filter((m) => m.offset > from && m.offset <= last);
              for (let i = 0; i < inRange.length && !stopped; i += o.maxBatch) {
                const records = await recordsOf(p, inRange.slice(i, i + o.maxBatch), o.raw, o.via);
                if (records.length === 0) continue;
                await o.onBatch(records);
                after.set(p, (records[records.length - 1] as LogRecord).offset);
              }
              return !stopped && (after.get(p) ?? -1) < last;
            },
          });
    const done = (reading?.ended ?? Promise.resolve()).finally(() => {
      stopped = true;
    });
    const handle: Scan = {
      done,
      stop: async () => {
        stopped = true;
        await reading?.stop();
      },
    };
    scans.add(handle);
    done.catch(() => {}).finally(() => scans.delete(handle));
    return handle;
  };
}
