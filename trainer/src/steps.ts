import type { Logger } from "pino";

/** Milliseconds per named step, in the order the steps ran. */
export type Timings = Record<string, number>;

/**
 * Runs one numbered step of an algorithm, logs it with its duration, and records the duration
 * (rounded to 0.1 ms) under `name` in `timings`.
 */
export async function step<T>(
  logger: Logger | undefined,
  timings: Timings,
  name: string,
  work: () => T | Promise<T>,
): Promise<T> {
  const started = performance.now();
  const result = await work();
  const ms = Math.round((performance.now() - started) * 10) / 10;
  timings[name] = ms;
  logger?.info({ step: name, ms }, `${name} done in ${ms} ms`);
  return result;
}

/** Throws the signal's reason (an AbortError) when it was aborted. */
export function checkAborted(signal: AbortSignal | undefined): void {
  signal?.throwIfAborted();
}
