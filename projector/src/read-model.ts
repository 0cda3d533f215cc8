import type { EventType, LoggedEvent } from "@feedlab/schemas";
import type { Migration } from "@feedlab/sql";
import type { Knex } from "knex";
import type { InsertedKeys, LogPlace, RowOp } from "./ops.ts";

/** What a projection's settle step sees of a batch, inside the batch's transaction. */
interface SettleInput {
  readonly sql: Knex.Transaction;
  /** The events applied for the first time in this batch, in log order. */
  readonly events: readonly LoggedEvent[];
  /** Per table, the keys that this batch's `insert` operations created. */
  readonly inserted: InsertedKeys;
}

/**
 * A read model's projection: pure (an event in, row operations out; no database, no clock). The
 * same code runs live and in a replay. A read model that needs what earlier rows hold (co-views pair
 * a first watch with the participant's earlier watches) does it in `settle`, an explicit second step
 * that runs after the batch's row operations and returns more of them.
 */
export interface Projection {
  readonly name: string;
  /**
   * The event types `project` and `settle` act on (emmett's `canHandle`), so "who reads VIDEO_PLAY"
   * is one search; `"all"` for a projection that takes every type (the events store, session
   * activity, co-views). For any other type `project` answers no operations and `settle` adds none:
   * the applier may skip the projection for it (`can-handle.test.ts` holds the declarations to the code).
   */
  readonly canHandle: readonly EventType[] | "all";
  /** Tables this projection owns: a replay of it empties them first. */
  readonly tables: readonly string[];
  /** Its tables' schema changes, in order. */
  readonly migrations: readonly Migration[];
  /**
   * Projections whose rows of the same batch `settle` reads. A replay of this projection rebuilds
   * them too; they come earlier in the list of projections.
   */
  readonly requires?: readonly string[];
  project(event: LoggedEvent, place: LogPlace): RowOp[];
  settle?(input: SettleInput): Promise<RowOp[]>;
  /**
   * Erases participants (api.md, participant rights): removes their rows and takes their part out
   * of shared totals, so the read model is what a replay without their events would build. Runs
   * before the read models listed earlier (the events store is still there to read). Answers the
   * rows deleted or changed. Its SQL stands beside the projection, in `<name>.erase.ts`, tested
   * against a replay without the participant in `<name>.erase.int.test.ts`.
   */
  erase?(sql: Knex.Transaction, userIds: readonly string[]): Promise<number>;
}
