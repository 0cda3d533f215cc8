import type { Admin, Kafka, Producer } from "kafkajs";
import type { Knex } from "knex";
import { readCompacted } from "../kafka-topics.ts";
import { createDbKeyring, createMirrorKeyring, type Keyring } from "../keyring.ts";
import type { TopicNames } from "./topics.ts";

/**
 * Participant keys: kept in the database and mirrored to `<topic>.keys`, or, on a read-only log
 * (no database), read from that mirror.
 */
export function createKafkaKeyring(
  kafka: Kafka,
  admin: Admin,
  producer: Producer | null,
  topics: TopicNames,
  db: Knex | undefined,
): Keyring {
  return db
    ? createDbKeyring(db, {
        publish: async (entries) => {
          await (producer as Producer).send({
            topic: topics.keys,
            acks: -1,
            messages: [...entries].map(([user, key]) => ({ key: user, value: key })),
          });
        },
      })
    : createMirrorKeyring(() => readCompacted(kafka, admin, topics.keys));
}
