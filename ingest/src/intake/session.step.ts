import { drop, ok, type StepResult } from "./results.ts";
import type { StampContext } from "./stamp.step.ts";

/** A session's stamping context and the participant it belongs to. */
export interface SessionContext extends StampContext {
  readonly owner: string;
  /**
   * The study asks for consent and the participant has not given it: nothing of theirs is collected
   * (api.md "Trust boundaries (wave 4)").
   */
  readonly consentPending?: boolean;
}

/** Finds a session's context (the api owns sessions, participants and groups); null when unknown. */
export type SessionLookup = (sessionId: string) => Promise<SessionContext | null>;

/**
 * Step 1, the session check: the batch's session must exist and be the sender's own (api.md: an
 * unknown or foreign session -> 4xx and nothing stored), and its participant must have consented
 * where the study asks for consent (`consent_required`).
 */
export async function checkSession(
  lookup: SessionLookup,
  sessionId: string,
  userId: string,
): Promise<StepResult<StampContext>> {
  const found = await lookup(sessionId);
  if (!found) return drop("unknown_session", "No session with that id.");
  if (found.owner !== userId) return drop("foreign_session", "This session belongs to another participant.");
  if (found.consentPending)
    return drop("consent_required", "Events are collected only once the participant has consented.");
  const { owner: _owner, consentPending: _pending, ...context } = found;
  return ok(context);
}
