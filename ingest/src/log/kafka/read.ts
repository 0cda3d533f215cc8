import type { LogPosition, LogRecord } from "../event-log.ts";
import type { KafkaClient } from "./client/port.ts";
import type { KafkaScan } from "./scan.ts";

/** The head: per partition, the offset of its newest record (-1 when empty). */
export async function headOf(client: KafkaClient, topic: string): Promise<LogPosition> {
  const offsets = await client.offsets(topic);
  return new Map(offsets.map((o) => [o.partition, o.high - 1]));
}

/** Per partition, the offset of its oldest record still held (retention may have removed older ones). */
export async function firstOffsetsOf(client: KafkaClient, topic: string): Promise<LogPosition> {
  const offsets = await client.offsets(topic);
  return new Map(offsets.map((o) => [o.partition, o.low]));
}

/** Reads records after an offset of one partition (tools and tests), with a scan up to the head. */
export function createRead(
  client: KafkaClient,
  topic: string,
  scan: KafkaScan,
): (partition: number, afterOffset: number, max: number) => Promise<LogRecord[]> {
  return async function read(partition, afterOffset, max) {
    const head = (await headOf(client, topic)).get(partition) ?? -1;
    if (afterOffset >= head) return [];
    const out: LogRecord[] = [];
    await scan({
      after: new Map([[partition, afterOffset]]),
      until: new Map([[partition, Math.min(head, afterOffset + max)]]),
      maxBatch: max,
      onBatch: async (records) => {
        out.push(...records);
      },
    }).done;
    return out;
  };
}
