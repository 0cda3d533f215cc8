import type { LogRecord } from "../event-log.ts";
import type { KafkaProducer } from "./client/port.ts";
import type { TopicNames } from "./topics.ts";

/** Publishes records a consumer could not apply to `<topic>.dlq`; a read-only log publishes nothing. */
export function createDeadLetter(
  producer: KafkaProducer | null,
  topics: TopicNames,
): (records: readonly (LogRecord & { reason: string })[]) => Promise<void> {
  return async (records) => {
    if (!producer) return;
    // The record as the topic held it (still encrypted, so erasure reaches it here too), with its
    // key and headers, and why it could not be applied.
    await producer.send(
      topics.deadLetters,
      records.map((r) => ({
        key: r.original?.key ?? null,
        value: Buffer.from(r.original?.value ?? r.value),
        headers: {
          ...(r.original?.headers ?? {}),
          "feedlab-reason": r.reason,
          "feedlab-source": `${topics.events}/${r.partition}/${r.offset}`,
        },
      })),
    );
  };
}
