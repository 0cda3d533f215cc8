import { createCipheriv, createSecretKey, randomBytes } from "node:crypto";
import { decodeLoggedEvent, encodeLoggedEvent, type LoggedEvent, sealableFields } from "@feedlab/schemas";
import { openFields, seal, sealFields, unseal } from "../../ingest/src/log/keyring.ts";

export const name = "log-encryption";
export const description =
  "Per-participant encryption of Kafka records (erasure by destroying the key): microseconds per record to write (encode and seal) and to read (open and decode) a typical logged event, sealing its login and payload (fields, the default) or the whole value (record), against two floors: encoding without encryption, and the same bytes encrypted by one cipher in one call";

/** BENCH_RECORDS: how many events (at least the warm-up's 5,000). */
const RECORDS = Math.max(5000, Number(process.env.BENCH_RECORDS ?? 100_000));

function event(i: number): LoggedEvent {
  return {
    event_id: randomBytes(16)
      .toString("hex")
      .replace(/^(.{8})(.{4})(.{4})(.{4})/, "$1-$2-$3-$4-"),
    session_id: "7b4f0c2e-7a51-4c1e-9a51-0f4d2f1e9c11",
    user_id: "00000000-0000-4000-8000-00000000a11c",
    login_id: "participant-0042",
    experiment_id: "00000000-0000-4000-8000-0000000e0001",
    group_id: "00000000-0000-4000-8000-000000009001",
    event_type: "VIDEO_WATCHED_1S",
    video_id: "video-0017",
    timestamp: new Date(Date.UTC(2026, 10, 25, 12, 0, 0, i)).toISOString(),
    received_at: new Date(Date.UTC(2026, 10, 25, 12, 0, 1, i)).toISOString(),
    watch_ratio: 0.42,
    watch_duration: 12.6,
    position_in_feed: null,
    algorithm_feed: "popularity",
    algorithm_watch: "similarity",
    payload: { currentTime: 12.6, duration: 30, source: "native" },
    seq: i,
    ui_feed: "grid-desktop",
    ui_watch: "grid-desktop",
  };
}

/** Microseconds per item of `fn` over `items` (after a warm-up of the first 5,000). */
function time<T, R>(items: readonly T[], fn: (item: T) => R): { us: number; out: R[] } {
  for (let i = 0; i < 5000; i++) fn(items[i] as T);
  const t = performance.now();
  const out = items.map(fn);
  return { us: ((performance.now() - t) * 1000) / items.length, out };
}

export async function run(): Promise<Record<string, number | string>> {
  const key = createSecretKey(randomBytes(32));
  const events = Array.from({ length: RECORDS }, (_, i) => event(i));
  const plain = time(events, (e) => encodeLoggedEvent(e));
  const bytes = plain.out.reduce((a, p) => a + p.length, 0);
  const fields = time(events, (e) => encodeLoggedEvent(e, sealFields(key, sealableFields(e))));
  const record = time(events, (e) => seal(key, encodeLoggedEvent(e)));
  const readPlain = time(plain.out, (v) => decodeLoggedEvent(v));
  const readFields = time(fields.out, (v) => decodeLoggedEvent(v, (f) => openFields(key, f)));
  const readRecord = time(record.out, (v) => decodeLoggedEvent(unseal(key, v)));
  // Floor: the same bytes through one AES-256-GCM cipher, one call (no per-record setup, IV or tag).
  const all = Buffer.concat(plain.out);
  const t = performance.now();
  const cipher = createCipheriv("aes-256-gcm", key, randomBytes(12));
  cipher.update(all);
  cipher.final();
  const floorUs = ((performance.now() - t) * 1000) / RECORDS;
  const us = (v: number) => Number(v.toFixed(2));
  return {
    records: RECORDS,
    "mean record (bytes)": Math.round(bytes / RECORDS),
    "write, fields sealed (us/record)": us(fields.us),
    "write, record sealed (us/record)": us(record.us),
    "floor: write without encryption (us/record)": us(plain.us),
    "read, fields sealed (us/record)": us(readFields.us),
    "read, record sealed (us/record)": us(readRecord.us),
    "floor: read without encryption (us/record)": us(readPlain.us),
    "floor: one cipher, one call (us/record)": Number(floorUs.toFixed(3)),
    "encryption's share of a fields write (us/record)": us(fields.us - plain.us),
    "events/s one core can write, fields sealed": Math.round(1e6 / fields.us),
  };
}
