import type { ParticipantApi } from "../participant-api.ts";
import { surveyApi } from "./survey-api.ts";
import type { PendingSurvey } from "./types.ts";

/** sessionStorage key of the surveys dismissed in this session (one tab = one session). */
const DISMISSED_KEY = "feedlab.surveys_dismissed";

/** A pending survey's identity: the survey, and for inter_session the session it is about. */
export const pendingKey = (p: PendingSurvey) => `${p.survey.id}:${p.about_session_id ?? ""}`;

function readDismissed(): string[] {
  try {
    const raw = window.sessionStorage.getItem(DISMISSED_KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : [];
    return Array.isArray(parsed) ? parsed.filter((k): k is string => typeof k === "string") : [];
  } catch {
    return [];
  }
}

function writeDismissed(keys: readonly string[]): void {
  try {
    window.sessionStorage.setItem(DISMISSED_KEY, JSON.stringify(keys));
  } catch {
    // Storage unavailable (some private modes): the dismissal lasts as long as the page.
  }
}

/**
 * The participant's pending survey, shared by every survey gate (feed and watch pages), per session.
 *
 * The spec's client behaviour:
 * - the gate asks the server which survey is due for the user and session (the dispatcher decides);
 * - a dismissed (not forced) survey stays hidden until the next pending check that brings something
 *   else: a new session (a new tab has an empty sessionStorage) or a new survey;
 * - submitting a response re-queries the dispatcher;
 * - a 409 on submit drops the modal quietly.
 *
 * The first check of a session blocks the gate (a forced survey must appear before the page mounts);
 * later checks, on every gate mount, refresh the answer in the background.
 */
class PendingSurveys {
  /** The dispatcher's last answer for `sessionId`: undefined until the session's first check answers. */
  result = $state<PendingSurvey | null | undefined>(undefined);
  sessionId = $state<string | null>(null);
  #dismissed = $state<string[]>([]);
  #loaded = false;
  #sequence = 0;

  /** The survey to show for `sessionId` now, or null (nothing due, dismissed, or not checked yet). */
  shownFor(sessionId: string): PendingSurvey | null {
    if (this.sessionId !== sessionId || !this.result) return null;
    return this.#dismissed.includes(pendingKey(this.result)) ? null : this.result;
  }

  /** True until the first pending check of `sessionId` has answered. */
  checkingFor(sessionId: string): boolean {
    return this.sessionId !== sessionId || this.result === undefined;
  }

  /** Asks the dispatcher again. A failure keeps the last answer (or shows nothing): the page stays usable. */
  async check(client: ParticipantApi, sessionId: string): Promise<void> {
    if (!this.#loaded) {
      this.#dismissed = readDismissed();
      this.#loaded = true;
    }
    if (this.sessionId !== sessionId) {
      this.sessionId = sessionId;
      this.result = undefined;
    }
    const sequence = ++this.#sequence;
    try {
      const result = await surveyApi.pending(client, sessionId);
      // A newer check (or another session) may have answered meanwhile; only the latest counts.
      if (sequence === this.#sequence && this.sessionId === sessionId) this.result = result ?? null;
    } catch (error) {
      console.error("pending survey check failed", error);
      if (sequence === this.#sequence && this.sessionId === sessionId && this.result === undefined) {
        this.result = null;
      }
    }
  }

  /** Hides this survey for the rest of the session. */
  dismiss(pending: PendingSurvey): void {
    const key = pendingKey(pending);
    if (this.#dismissed.includes(key)) return;
    this.#dismissed = [...this.#dismissed, key];
    writeDismissed(this.#dismissed);
  }
}

export const pendingSurveys = new PendingSurveys();
