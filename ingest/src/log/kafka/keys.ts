import type { Knex } from "knex";
import { readCompacted } from "../kafka-topics.ts";
import { createDbKeyring, createMirrorKeyring, type Keyring } from "../keyring.ts";
import type { KafkaClient, KafkaProducer } from "./client/port.ts";
import type { TopicNames } from "./topics.ts";

/**
 * Participant keys: kept in the database and mirrored to `<topic>.keys`, or, on a read-only log
 * (no database), read from that mirror.
 */
export function createKafkaKeyring(
  client: KafkaClient,
  producer: KafkaProducer | null,
  topics: TopicNames,
  db: Knex | undefined,
): Keyring {
  return db
    ? createDbKeyring(db, {
        publish: async (entries) => {
          await (producer as KafkaProducer).send(
            topics.keys,
            [...entries].map(([user, key]) => ({ key: user, value: key })),
          );
        },
      })
    : createMirrorKeyring(() => readCompacted(client, topics.keys));
}
