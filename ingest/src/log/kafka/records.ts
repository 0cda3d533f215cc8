import { decodeLoggedEvent } from "@feedlab/schemas";
import type { Knex } from "knex";
import { LOG_HEADERS, type LogRecord } from "../event-log.ts";
import { type Keyring, openFields, type ParticipantKey, unseal } from "../keyring.ts";
import type { FetchedMessage as Message } from "./client/port.ts";

/**
 * Turns fetched messages of one partition into log records. `raw`: as stored, nothing decrypted or
 * decoded (placement detection). `via`: participant keys are read in the caller's transaction.
 */
export type RecordsOf = (
  partition: number,
  messages: readonly Message[],
  raw?: boolean,
  via?: Knex.Transaction,
) => Promise<LogRecord[]>;

/**
 * Log records of fetched messages: encrypted values or fields are decrypted; those whose key is
 * destroyed are erased records (empty). Writers' schemas this process does not know yet are looked
 * up first.
 */
export function createRecordsOf(
  keyring: Keyring,
  resolveWriters: (values: readonly Uint8Array[]) => Promise<void>,
): RecordsOf {
  return async function recordsOf(partition, messages, raw = false, via) {
    const ownerOf = (m: Message) => m.headers[LOG_HEADERS.key] ?? null;
    const owners = [...new Set(messages.map(ownerOf).filter((o): o is string => o !== null))];
    const keys =
      owners.length > 0 && !raw ? await keyring.find(owners, via) : new Map<string, ParticipantKey>();
    const out: LogRecord[] = [];
    for (const m of messages) {
      const offset = m.offset;
      const value: Uint8Array = m.value ?? new Uint8Array();
      const headers = { ...m.headers };
      const original = { key: m.key?.toString() ?? null, value, headers };
      const user = ownerOf(m);
      if (raw || user === null) {
        out.push({ partition, offset, value, original });
        continue;
      }
      const key = keys.get(user);
      if (!key) {
        out.push({ partition, offset, value: new Uint8Array(), erased: true, original });
        continue;
      }
      if (headers[LOG_HEADERS.encryption] === "fields") {
        out.push({ partition, offset, value, original });
        continue;
      }
      try {
        out.push({ partition, offset, value: unseal(key, value), original });
      } catch {
        // Altered bytes: handed on as they are, and the consumer's decoding dead-letters them.
        out.push({ partition, offset, value, original });
      }
    }
    if (raw) return out;
    await resolveWriters(out.filter((r) => !r.erased).map((r) => r.value));
    // Records with encrypted fields are decoded here, where the key is at hand.
    return out.map((r) => {
      if (r.erased || r.original?.headers[LOG_HEADERS.encryption] !== "fields") return r;
      const key = keys.get(r.original.headers[LOG_HEADERS.key] ?? "") as ParticipantKey;
      try {
        return { ...r, event: decodeLoggedEvent(r.value, (sealed) => openFields(key, sealed)) };
      } catch {
        return r;
      }
    });
  };
}
