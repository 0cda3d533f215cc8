import {
  encodeLoggedEvent,
  encodeLoggedEventConfluent,
  LOGGED_EVENT_FINGERPRINT,
  type LoggedEvent,
  sealableFields,
} from "@feedlab/schemas";
import { type AppendResult, LOG_HEADERS, LogUnavailableError } from "../event-log.ts";
import { groupCommit } from "../group-commit.ts";
import { type Placement, partitionOf } from "../kafka-topics.ts";
import { type Keyring, type ParticipantKey, seal, sealFields } from "../keyring.ts";
import type { KafkaProducer } from "./client/port.ts";
import type { Encryption } from "./options.ts";

/** Event ids produced recently, whose repeats (client retries) are not produced again. */
const RECENT_IDS = 200_000;

/** What appending needs, decided when the log starts. */
export interface SendOptions {
  /** Null on a read-only log: appending then fails. */
  readonly producer: KafkaProducer | null;
  readonly keyring: Keyring;
  readonly topic: string;
  readonly partitions: number;
  /** How the topic places sessions (see placement.ts). */
  readonly placement: Placement;
  readonly encryption: Encryption;
  /** The writer schema's id in the registry: values then use the Confluent wire format. */
  readonly registryId: number | undefined;
  /** Longest a send may wait for the brokers before it fails as unavailable. */
  readonly sendTimeoutMs: number;
}

/**
 * The log's `append`: each event keyed by session id, placed by the topic's placement, its value
 * encrypted under the participant's key, produced with acks from all in-sync replicas. Appends
 * arriving while a send is in flight go out together in the next one (group commit).
 */
export function createAppend(o: SendOptions): (events: readonly LoggedEvent[]) => Promise<AppendResult> {
  const { producer, keyring, topic, partitions, placement, encryption, registryId, sendTimeoutMs } = o;

  const recent = new Map<string, { partition: number; offset: number }>();
  const remember = (eventId: string, at: { partition: number; offset: number }) => {
    if (recent.size >= RECENT_IDS) {
      const oldest = recent.keys().next().value;
      if (oldest !== undefined) recent.delete(oldest);
    }
    recent.set(eventId, at);
  };

  async function send(batches: readonly (readonly LoggedEvent[])[]): Promise<AppendResult[]> {
    if (!producer) throw new Error("This process reads the log only; it cannot append.");
    let keys: Map<string, ParticipantKey>;
    try {
      keys = await keyring.keysFor([...new Set(batches.flatMap((b) => b.map((e) => e.user_id)))]);
    } catch (err) {
      throw new LogUnavailableError(`participant keys unavailable: ${(err as Error).message}`, {
        cause: err,
      });
    }
    const byPartition = new Map<number, { key: string; value: Buffer; eventId: string; owner: string }[]>();
    const taken = new Set<string>();
    for (const batch of batches) {
      for (const e of batch) {
        const key = keys.get(e.user_id);
        // No key: the participant was erased while this batch was on its way. A repeat of an event
        // produced a moment ago (a client's retry) is not produced again.
        if (!key || taken.has(e.event_id) || recent.has(e.event_id)) continue;
        taken.add(e.event_id);
        const p = partitionOf(e.session_id, partitions, placement);
        const list = byPartition.get(p) ?? [];
        list.push({ key: e.session_id, value: encode(e, key), eventId: e.event_id, owner: e.user_id });
        byPartition.set(p, list);
      }
    }
    const order = [...byPartition.entries()];
    const messages = order.flatMap(([partition, list]) =>
      list.map((m) => ({
        partition,
        key: m.key,
        value: m.value,
        headers: {
          [LOG_HEADERS.eventId]: m.eventId,
          [LOG_HEADERS.key]: m.owner,
          [LOG_HEADERS.encryption]: encryption,
          [LOG_HEADERS.schema]: LOGGED_EVENT_FINGERPRINT,
        },
      })),
    );
    const offsetOf = new Map<string, { partition: number; offset: number }>();
    if (messages.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new LogUnavailableError(`the Kafka brokers did not acknowledge within ${sendTimeoutMs} ms`),
            ),
          sendTimeoutMs,
        );
      });
      let baseOffsets: Map<number, number>;
      try {
        baseOffsets = await Promise.race([producer.send(topic, messages), timeout]);
      } catch (err) {
        if (err instanceof LogUnavailableError) throw err;
        throw new LogUnavailableError(`Kafka refused the batch: ${(err as Error).message}`, { cause: err });
      } finally {
        clearTimeout(timer);
      }
      // Offsets: each partition's messages are consecutive from the batch's base offset.
      for (const [partition, list] of order) {
        const base = baseOffsets.get(partition) ?? Number.NaN;
        list.forEach((m, i) => {
          const at = { partition, offset: base + i };
          offsetOf.set(m.eventId, at);
          remember(m.eventId, at);
        });
      }
    }
    const counted = new Set<string>();
    return batches.map((batch) => {
      const position = new Map<number, number>();
      let appended = 0;
      for (const e of batch) {
        const fresh = offsetOf.get(e.event_id);
        const at = fresh ?? recent.get(e.event_id);
        if (at) position.set(at.partition, Math.max(position.get(at.partition) ?? -1, at.offset));
        if (fresh && !counted.has(e.event_id)) {
          counted.add(e.event_id);
          appended++;
        }
      }
      return { position, appended };
    });
  }

  /** A record's value: the Avro frame with the participant's fields sealed, or the whole frame sealed. */
  function encode(e: LoggedEvent, key: ParticipantKey): Buffer {
    if (encryption === "record") return seal(key, encodeLoggedEvent(e));
    const sealed = sealFields(key, sealableFields(e));
    return registryId === undefined
      ? encodeLoggedEvent(e, sealed)
      : encodeLoggedEventConfluent(e, registryId, sealed);
  }

  // Appends waiting while a send is in flight go out together in the next one (group commit).
  const enqueue = groupCommit(send, { isolate: false });

  return (events) =>
    events.length === 0 ? Promise.resolve({ position: new Map(), appended: 0 }) : enqueue(events);
}
