// Which database errors a batch survives: tried again (concurrency), or applied record by record
// with the refused record as a dead letter (data).

/**
 * True for a transaction the database aborted because of a concurrent one (SQLSTATE 40P01 deadlock,
 * 40001 serialization failure): the same work succeeds when tried again.
 */
export function isConcurrencyError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "40P01" || code === "40001";
}

/** True for database errors caused by the data (SQLSTATE classes 22, 23, 42), not by the infrastructure. */
export function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^(22|23|42)/.test(code);
}
