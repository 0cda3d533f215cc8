import type { Knex } from "knex";
import { notFound } from "../http/errors.ts";

/** 404 `experiment` unless the experiment exists: one indexed lookup, for reads that need nothing else of it. */
export async function assertExperiment(db: Knex, id: string): Promise<void> {
  if (!(await db("experiments").where({ id }).first("id"))) throw notFound("experiment");
}
