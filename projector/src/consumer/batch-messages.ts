// What the projector's batch thread (batch.worker.ts) and its starter (batch-thread.ts) send each other.

/** Which consumer the thread applies batches for, and whether other processes project too. */
export interface BatchJob {
  readonly consumer: string;
  readonly multiProcess: boolean;
}

export type LogLevel = "warn" | "info";

/**
 * An error as fields that cross threads: the message and stack, and the database's fields (SQLSTATE
 * `code` and the like), which decide whether a batch is tried again or applied record by record.
 */
export function errorFields(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: String(err) };
  const fields: Record<string, unknown> = { name: err.name, message: err.message, stack: err.stack };
  for (const [k, v] of Object.entries(err))
    if (typeof v !== "object" && typeof v !== "function") fields[k] = v;
  return fields;
}

/** The error `errorFields` described, rebuilt. */
export function errorOf(fields: Record<string, unknown>): Error {
  const err = new Error(String(fields.message ?? "the projector's thread failed"));
  Object.assign(err, fields);
  return err;
}
