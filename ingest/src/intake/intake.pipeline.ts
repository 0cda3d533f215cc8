import type { EventRejection, LoggedEvent } from "@feedlab/schemas";
import { type EventLog, encodePosition } from "../log/event-log.ts";
import type { StepResult } from "./results.ts";
import { checkSession, type SessionLookup } from "./session.step.ts";
import { stamp } from "./stamp.step.ts";
import { createEventValidator } from "./validate.step.ts";

/** The answer to a batch the log took: api.md's 202 body. */
interface IntakeResult {
  readonly accepted: number;
  readonly rejected: EventRejection[];
  /** The opaque token of the log position the batch was written at (read-your-writes). */
  readonly position: string;
}

/** A batch refused whole, before anything was stored: `unknown_session`, `foreign_session` or `consent_required`. */
interface IntakeRefusal {
  readonly code: string;
  readonly message: string;
}

export type IntakeOutcome =
  | { readonly kind: "accepted"; readonly result: IntakeResult }
  | { readonly kind: "refused"; readonly refusal: IntakeRefusal };

export interface IntakeDeps {
  readonly log: Pick<EventLog, "append">;
  readonly sessions: SessionLookup;
  readonly now: () => Date;
  /** Told what each batch accepted (by event type) and rejected (by code), for metrics. */
  readonly onCounted?: (accepted: ReadonlyMap<string, number>, rejected: ReadonlyMap<string, number>) => void;
}

/**
 * Intake of a batch of events, as one chain of steps:
 *
 * 1. session: the batch's session exists and is the sender's own, else the batch is refused whole;
 * 2. validate: each event against the contract (valid events go on even when others are rejected);
 * 3. stamp: the server fields (participant, experiment, group, recommender keys, receive time);
 * 4. append: to the event log, which resolves once the records are durable (a repeated event_id is
 *    stored once); an unavailable log throws `LogUnavailableError` and nothing is acknowledged;
 * 5. result: what was accepted and rejected, and where the batch sits in the log.
 */
export function createIntake({ log, sessions, now, onCounted }: IntakeDeps) {
  const validate = createEventValidator();

  return async function intake(
    userId: string,
    sessionId: string,
    raw: readonly unknown[],
  ): Promise<IntakeOutcome> {
    // 1. Session.
    const session = await checkSession(sessions, sessionId, userId);
    if (session.kind === "drop") return { kind: "refused", refusal: session };
    if (session.kind === "dead_letter") throw new Error(`unexpected dead letter: ${session.reason}`);
    // 2 and 3. Validate and stamp each event.
    const receivedAt = now();
    const valid: LoggedEvent[] = [];
    const rejected: EventRejection[] = [];
    for (const [index, item] of raw.entries()) {
      const checked = validate(item);
      const stamped = checked.kind === "ok" ? stamp(checked.value, session.value, receivedAt) : checked;
      if (stamped.kind === "ok") valid.push(stamped.value);
      else rejected.push(rejectionOf(index, stamped));
    }
    // 4. Append.
    const appended = valid.length > 0 ? await log.append(valid) : { position: new Map(), appended: 0 };
    // 5. Result.
    onCounted?.(
      countBy(valid, (e) => e.event_type),
      countBy(rejected, (r) => r.code),
    );
    return {
      kind: "accepted",
      result: { accepted: valid.length, rejected, position: encodePosition(appended.position) },
    };
  };
}

/**
 * The rejection api.md's 202 body reports for the event at `index` that a step dropped. Intake
 * steps never dead-letter (that is the consumer's way out): one that does is a bug, so it throws.
 */
function rejectionOf(index: number, result: Exclude<StepResult<unknown>, { kind: "ok" }>): EventRejection {
  if (result.kind === "dead_letter") throw new Error(`unexpected dead letter: ${result.reason}`);
  const { code, message, field } = result;
  return field === undefined ? { index, code, message } : { index, code, message, field };
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (const item of items) out.set(key(item), (out.get(key(item)) ?? 0) + 1);
  return out;
}
