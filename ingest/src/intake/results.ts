/**
 * What an intake step answers (PostHog's pipeline results): the value to go on with, or why the
 * input stops here. Bad input is a value, never an exception; only infrastructure failures (the
 * database, the log) throw, so the caller may retry the same batch.
 *
 * - `drop`: the input is refused and the client is told why (`code`, `message`, optional `field`).
 * - `dead_letter`: the input is kept aside for people to look at, with the reason.
 */
export type StepResult<T> =
  | { readonly kind: "ok"; readonly value: T }
  | { readonly kind: "drop"; readonly code: string; readonly message: string; readonly field?: string }
  | { readonly kind: "dead_letter"; readonly reason: string };

export const ok = <T>(value: T): StepResult<T> => ({ kind: "ok", value });

export const drop = <T = never>(code: string, message: string, field?: string): StepResult<T> =>
  field === undefined ? { kind: "drop", code, message } : { kind: "drop", code, message, field };
