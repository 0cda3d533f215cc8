import type { Db } from "@feedlab/sql";

/** What every service needs; the clock and the id generator are passed in so tests are deterministic. */
export interface ServiceDeps {
  readonly db: Db;
  readonly newId: () => string;
  readonly now: () => Date;
}
