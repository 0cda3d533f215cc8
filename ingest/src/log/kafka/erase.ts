import type { Knex } from "knex";
import { APPEND_LOCK, type ErasureSubject, type LogErasure, recordErasure } from "../event-log.ts";
import type { Keyring } from "../keyring.ts";
import type { KafkaProducer } from "./client/port.ts";

/**
 * Erasure on Kafka is crypto-shredding (docs/erasure.md): the records stay on the topic, the
 * participants' keys are destroyed in the caller's transaction, and once it commits their entries
 * in the `<topic>.keys` mirror get tombstones, which compaction cleans away.
 */
export function createErase(
  keyring: Keyring,
  producer: KafkaProducer | null,
  keysTopic: string,
): (subject: ErasureSubject, via: Knex.Transaction) => Promise<LogErasure> {
  return async ({ userIds }, via) => {
    // Key creation waits (it holds this lock shared): no new key for someone being erased.
    await via.raw("select pg_advisory_xact_lock(?)", [APPEND_LOCK]);
    await recordErasure(via, userIds, new Date());
    const keys = await keyring.destroy(userIds, via);
    return {
      records: null,
      keys,
      afterCommit: async () => {
        for (let i = 0; i < userIds.length; i += 1000) {
          await (producer as KafkaProducer).send(
            keysTopic,
            userIds.slice(i, i + 1000).map((u) => ({ key: u, value: null })),
          );
        }
      },
    };
  };
}
