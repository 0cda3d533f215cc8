import type { LoggedEvent } from "@feedlab/schemas";
import type { LogPlace, RowOp } from "../ops.ts";

/**
 * A read model's projection: pure (an event in, row operations out; no database, no clock). The
 * same code runs live and in a replay.
 */
export interface Projection {
  readonly name: string;
  /** Tables this projection owns: a replay of it empties them first. */
  readonly tables: readonly string[];
  project(event: LoggedEvent, place: LogPlace): RowOp[];
}
