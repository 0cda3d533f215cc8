import { createCipheriv, createSecretKey, randomBytes } from "node:crypto";
import { encodeLoggedEvent, type LoggedEvent } from "@feedlab/schemas";
import { seal, unseal } from "../../ingest/src/log/keyring.ts";

export const name = "log-encryption";
export const description =
  "Per-participant encryption of Kafka records (erasure by destroying the key): microseconds per record to seal and to unseal a typical logged event, against a floor of the same bytes encrypted by one cipher in one call";

const RECORDS = 100_000;

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

export async function run(): Promise<Record<string, number | string>> {
  const key = createSecretKey(randomBytes(32));
  const plain = Array.from({ length: RECORDS }, (_, i) => encodeLoggedEvent(event(i)));
  const bytes = plain.reduce((a, p) => a + p.length, 0);
  // Warm up, then measure.
  for (let i = 0; i < 5000; i++) unseal(key, seal(key, plain[i] as Uint8Array));
  let t = performance.now();
  const sealed = plain.map((p) => seal(key, p));
  const sealUs = ((performance.now() - t) * 1000) / RECORDS;
  t = performance.now();
  for (const s of sealed) unseal(key, s);
  const unsealUs = ((performance.now() - t) * 1000) / RECORDS;
  // Floor: the same bytes through one AES-256-GCM cipher, one call (no per-record setup, IV or tag).
  const all = Buffer.concat(plain);
  t = performance.now();
  const cipher = createCipheriv("aes-256-gcm", key, randomBytes(12));
  cipher.update(all);
  cipher.final();
  const floorUs = ((performance.now() - t) * 1000) / RECORDS;
  return {
    records: RECORDS,
    "mean record (bytes)": Math.round(bytes / RECORDS),
    "seal (us/record)": Number(sealUs.toFixed(2)),
    "unseal (us/record)": Number(unsealUs.toFixed(2)),
    "floor: one cipher, one call (us/record)": Number(floorUs.toFixed(3)),
    "seal / floor": Math.round(sealUs / floorUs),
    "events/s one core can seal": Math.round(1e6 / sealUs),
  };
}
