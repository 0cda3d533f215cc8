/** A JSON document written as it is into a json/jsonb column (not as a JSON string). */
export interface JsonText {
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
  /** Insert a row; a row with the same key already there wins (first occurrence). */
  | { readonly kind: "insert"; readonly table: string; readonly key: readonly string[]; readonly row: Row }
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
   * A first watch of `video_id` by `user_id`: pairs it with every other video the participant has
   * watched into `co_views`. Applied only when the watched row is new.
   */
  | {
      readonly kind: "coview";
      readonly experiment_id: string;
      readonly user_id: string;
      readonly video_id: string;
    };
