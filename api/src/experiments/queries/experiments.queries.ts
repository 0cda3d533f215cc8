// The experiments' table, for the api's other features: they call these, never its SQL
// (docs/architecture.md, "Tables and their owners"). This folder imports no feature, so any feature
// can call it without an import circle.
import type { Knex } from "knex";

type Q = Knex | Knex.Transaction;

/** Whether the experiment exists. */
export async function experimentExists(db: Q, id: string): Promise<boolean> {
  return (await db("experiments").where({ id }).first("id")) !== undefined;
}

/** Erasure's last step for an experiment, once its participants are gone: deletes it. */
export async function eraseExperiment(trx: Knex.Transaction, id: string): Promise<void> {
  await trx("experiments").where({ id }).delete();
}
