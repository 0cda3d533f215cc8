/** A JSON document written as it is into a json/jsonb column (not as a JSON string). */
interface JsonText {
  readonly json: string;
}

/** A column value a projection may write. */
export type Value = string | number | boolean | null | JsonText;
export type Row = Readonly<Record<string, Value>>;

/** Where a record sits in the log. */
export interface LogPlace {
  readonly partition: number;
  readonly offset: number;
}

/**
 * Row operations: what a projection asks for, without touching the database. The applier batches
 * them per table into a few multi-row statements.
 */
export type RowOp =
  /**
   * Insert a row; a row with the same key already there wins (first occurrence), or, with `least`,
   * the row whose `least` columns (compared in order) are smallest, whichever order rows come in.
   */
  | {
      readonly kind: "insert";
      readonly table: string;
      readonly key: readonly string[];
      readonly row: Row;
      readonly least?: readonly string[];
    }
  /**
   * Upsert keyed by `key`: numbers in `add` are summed, `max`/`min` keep the larger/smaller value,
   * `init` columns are set only when the row is created.
   */
  | {
      readonly kind: "accumulate";
      readonly table: string;
      readonly key: Row;
      readonly add?: Readonly<Record<string, number>>;
      readonly max?: Row;
      readonly min?: Row;
      readonly init?: Row;
    }
  /**
   * Arrival runs, per key: `columns.runs` (jsonb) holds the runs of the key's `at` times, `[first,
   * last]` in epoch milliseconds, a time within `gapMs` of a run's last joining it; `columns.first` and
   * `columns.last` keep the earliest and latest `at`. A set's summary: the same whatever the order and
   * batches of the times. Applied after inserts and accumulations; `init` columns are set only when
   * the row is created.
   */
  | {
      readonly kind: "span";
      readonly table: string;
      readonly key: Row;
      /** An ISO 8601 time. */
      readonly at: string;
      readonly gapMs: number;
      readonly columns: { readonly runs: string; readonly first: string; readonly last: string };
      readonly init?: Row;
    };

/** Per table, the keys (the key columns' values joined by NUL) that `insert` operations created. */
export type InsertedKeys = ReadonlyMap<string, ReadonlySet<string>>;

/** The inserted-key form of a row's key columns. */
export const keyOf = (values: readonly unknown[]): string => values.map(String).join("\u0000");
