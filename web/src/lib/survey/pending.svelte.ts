import { surveysApi } from "../api/surveys.ts";
import type { ParticipantApi } from "../participant-api.ts";
import { FAILURES_BEFORE_NOTICE, isRetriable, retryDelayMs } from "./pending-retry.ts";
import type { PendingSurvey } from "./types.ts";

/** sessionStorage key of the surveys dismissed in this session (one tab = one session). */
const DISMISSED_KEY = "feedlab.surveys_dismissed";

/** A pending survey's identity: the survey, and for inter_session the session it is about. */
const pendingKey = (p: PendingSurvey) => `${p.survey.id}:${p.about_session_id ?? ""}`;

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
 * The first check of a session blocks the gate (a forced survey must appear before the page mounts),
 * and it fails closed: until the dispatcher has answered, the gate shows no page. A check that did not
 * reach an answer (no network, a 5xx: see `isRetriable`) is tried again after 1, 2, 4 and 8 s; then the
 * participant is told (`unreachable`) and it goes on every 10 s. A 4xx is an answer: nothing is due
 * here (the page's loader shows the consent form, the paused notice, ...). Later checks, on every
 * gate mount, refresh the answer in the background; one that fails keeps the last answer.
 */
export class PendingSurveys {
  /** The dispatcher's last answer for `sessionId`: undefined until the session's first check answers. */
  result = $state<PendingSurvey | null | undefined>(undefined);
  sessionId = $state<string | null>(null);
  /** The session's first check has failed `FAILURES_BEFORE_NOTICE` times in a row (and goes on). */
  unreachable = $state(false);
  #dismissed = $state<string[]>([]);
  #loaded = false;
  #sequence = 0;
  /** Failed attempts in a row of the session's first check. */
  #failures = 0;
  #retry: ReturnType<typeof setTimeout> | null = null;

  /** The survey to show for `sessionId` now, or null (nothing due, dismissed, or not checked yet). */
  shownFor(sessionId: string): PendingSurvey | null {
    if (this.sessionId !== sessionId || !this.result) return null;
    return this.#dismissed.includes(pendingKey(this.result)) ? null : this.result;
  }

  /** True until the first pending check of `sessionId` has answered. */
  checkingFor(sessionId: string): boolean {
    return this.sessionId !== sessionId || this.result === undefined;
  }

  /** True while the first check of `sessionId` keeps failing, after its first retries. */
  unreachableFor(sessionId: string): boolean {
    return this.sessionId === sessionId && this.result === undefined && this.unreachable;
  }

  /**
   * Asks the dispatcher again; resolves when this attempt is over. Any attempt replaces a retry that
   * was waiting, so "Try again" and a page change ask at once.
   */
  async check(client: ParticipantApi, sessionId: string): Promise<void> {
    if (!this.#loaded) {
      this.#dismissed = readDismissed();
      this.#loaded = true;
    }
    this.#cancelRetry();
    if (this.sessionId !== sessionId) {
      this.sessionId = sessionId;
      this.result = undefined;
      this.unreachable = false;
      this.#failures = 0;
    }
    const sequence = ++this.#sequence;
    // A newer check (or another session) may have answered meanwhile; only the latest counts.
    const latest = () => sequence === this.#sequence && this.sessionId === sessionId;
    try {
      const result = await surveysApi.pending(client, sessionId);
      if (!latest()) return;
      this.result = result ?? null;
      this.unreachable = false;
      this.#failures = 0;
    } catch (error) {
      if (!latest()) return;
      console.error("pending survey check failed", error);
      // A later check keeps the last answer: the page stays usable.
      if (this.result !== undefined) return;
      if (!isRetriable(error)) {
        this.result = null;
        return;
      }
      this.#failures += 1;
      if (this.#failures >= FAILURES_BEFORE_NOTICE) this.unreachable = true;
      this.#retry = setTimeout(() => void this.check(client, sessionId), retryDelayMs(this.#failures));
    }
  }

  /** Hides this survey for the rest of the session. */
  dismiss(pending: PendingSurvey): void {
    const key = pendingKey(pending);
    if (this.#dismissed.includes(key)) return;
    this.#dismissed = [...this.#dismissed, key];
    writeDismissed(this.#dismissed);
  }

  #cancelRetry(): void {
    if (this.#retry === null) return;
    clearTimeout(this.#retry);
    this.#retry = null;
  }
}

export const pendingSurveys = new PendingSurveys();
