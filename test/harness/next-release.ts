import { randomUUID } from "node:crypto";
import {
  LOGGED_EVENT_SCHEMA,
  LOGGED_EVENT_VERSION,
  type LoggedEvent,
  schemaFingerprint,
} from "@feedlab/schemas";
import avro from "avsc";
import { Kafka, logLevel } from "kafkajs";
import type { Knex } from "knex";

/**
 * The logged-event schema as a next release would change it, by docs/events.md's rule: one field
 * added at the end with a default. Tests write records with it to check that this release reads
 * them (and the other way round).
 */
export const NEXT_SCHEMA = {
  ...LOGGED_EVENT_SCHEMA,
  fields: [
    ...LOGGED_EVENT_SCHEMA.fields,
    { name: "client_timezone", type: ["null", "string"], default: null },
  ],
};

/** The fingerprint the next release's single-object values carry. */
export const NEXT_FINGERPRINT = schemaFingerprint(NEXT_SCHEMA);

/** The next release's event type, unknown to this one. */
export const NEXT_EVENT_TYPE = "REACTION_ADDED" as LoggedEvent["event_type"];

const nextType = avro.Type.forSchema(NEXT_SCHEMA as unknown as avro.Schema);

/** Who an event of `nextReleaseEvent` comes from. */
export interface NextReleaseWriter {
  readonly sessionId: string;
  readonly userId: string;
  readonly loginId: string;
  readonly experimentId: string;
  readonly groupId: string;
}

/**
 * An event as the next release's API logs it for `who`, now: of the next release's new type, with no
 * video, UI or client sequence, and `overrides` (an id, another type, a video, a payload).
 */
export function nextReleaseEvent(who: NextReleaseWriter, overrides: Partial<LoggedEvent> = {}): LoggedEvent {
  const now = new Date().toISOString();
  return {
    event_id: randomUUID(),
    session_id: who.sessionId,
    user_id: who.userId,
    login_id: who.loginId,
    experiment_id: who.experimentId,
    group_id: who.groupId,
    event_type: NEXT_EVENT_TYPE,
    video_id: null,
    timestamp: now,
    received_at: now,
    watch_ratio: null,
    watch_duration: null,
    position_in_feed: null,
    algorithm_feed: "recency",
    algorithm_watch: "recency",
    payload: {},
    seq: null,
    ui_feed: null,
    ui_watch: null,
    ...overrides,
  };
}

/** The Avro body of an event as the next release writes it. */
export function nextBody(e: LoggedEvent, clientTimezone: string | null = "Europe/Berlin"): Buffer {
  return nextType.toBuffer({
    ...e,
    timestamp: Date.parse(e.timestamp),
    received_at: Date.parse(e.received_at),
    payload: JSON.stringify(e.payload),
    client_timezone: clientTimezone,
  });
}

/** A value as the next release writes it: single-object encoded with its own fingerprint. */
export function writtenByNextRelease(e: LoggedEvent, clientTimezone?: string | null): Buffer {
  return Buffer.concat([
    Buffer.from([0xc3, 0x01]),
    Buffer.from(NEXT_FINGERPRINT, "hex"),
    nextBody(e, clientTimezone),
  ]);
}

/** The next release's revision of the schema. */
const NEXT_VERSION = LOGGED_EVENT_VERSION + 1;

/** What the next release publishes in a schema store: `{version, schema}`. */
const NEXT_STORED = JSON.stringify({ version: NEXT_VERSION, schema: NEXT_SCHEMA });

/** Publishes the next release's schema where its writer would: the log's schema store (topic or table). */
export async function publishNextSchema(
  store: { readonly brokers: readonly string[]; readonly topic: string } | { readonly db: Knex },
): Promise<void> {
  if ("db" in store) {
    await store
      .db("event_log_schemas")
      .insert({ fingerprint: NEXT_FINGERPRINT, version: NEXT_VERSION, schema: JSON.stringify(NEXT_SCHEMA) });
    return;
  }
  const kafka = new Kafka({
    clientId: "next-release",
    brokers: [...store.brokers],
    logLevel: logLevel.NOTHING,
  });
  const producer = kafka.producer();
  await producer.connect();
  try {
    await producer.send({
      topic: `${store.topic}.schemas`,
      messages: [{ key: NEXT_FINGERPRINT, value: NEXT_STORED }],
    });
  } finally {
    await producer.disconnect();
  }
}

/** Produces raw records to a topic, as another writer would (no Feedlab code on the way). */
export async function produceRaw(
  brokers: readonly string[],
  topic: string,
  messages: { key: string; value: Buffer; headers?: Record<string, string> }[],
): Promise<void> {
  const kafka = new Kafka({ clientId: "other-writer", brokers: [...brokers], logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  try {
    await producer.send({ topic, acks: -1, messages });
  } finally {
    await producer.disconnect();
  }
}
