import { participantApi as api } from "#lib/participant-api.ts";
import { pendingSurveys } from "#lib/survey/pending.svelte.ts";
import type { ParticipantMe } from "#lib/types.ts";

type Progress = ParticipantMe["progress"];

/** What the page's event transport says after each batch the server acknowledged. */
interface Acknowledging {
  onAcknowledged(listener: (batch: unknown, position: string | null) => void): () => void;
}

/** Reads of /me that wait for a visit to be counted, and the pause between them. */
const COUNT_ATTEMPTS = 5;
const COUNT_RETRY_MS = 2_000;
/** How often the time left is worked out again on the page's clock (no request). */
const TICK_MS = 15_000;
/** The first wait before /me is read again once the time left has run out on the page's clock. */
const FIRST_RECHECK_MS = 60_000;
/** The longest wait between those reads (each one that finds time left doubles the wait). */
const LAST_RECHECK_MS = 10 * 60_000;

/**
 * The study as the participant shell's top bar shows it: its name, and the participant's progress
 * toward the completion rule (api.md, Study flow: `after_sessions`, `after_feed_minutes`), both read
 * from /me on every page load (the server counts them as the rule does). Between loads the minutes
 * left count down on the page's clock; once they run out there, /me is read again, after a minute,
 * then less and less often, since the server counts a visit's minutes from the events that reach it.
 */
class StudyStatus {
  /** The experiment's name; null when the visitor has not joined a study. */
  name = $state<string | null>(null);
  /**
   * When the next session of the study's schedule opens, while the page's session counts (api.md
   * "Longitudinal studies (wave 4)"); null without a schedule, or once no window is left.
   */
  nextOpensAt = $state<string | null>(null);
  #progress = $state.raw<Progress | null>(null);
  #readAt = 0;
  #now = $state(0);
  #timer: ReturnType<typeof setInterval> | undefined;
  #recheckAt = 0;
  #recheckWait = FIRST_RECHECK_MS;
  /** The page's session, which /me is asked about so that `progress.visit` stays this visit's. */
  #sessionId: string | undefined;

  /**
   * What /me says; the progress counts while the participant is active. `sessionId` is the page's
   * session (kept until a later call names another, or `me` is null).
   */
  update(
    me: Pick<
      ParticipantMe,
      "experiment_name" | "status" | "progress" | "next_session" | "session_open"
    > | null,
    sessionId?: string,
  ): void {
    this.#sessionId = me === null ? undefined : (sessionId ?? this.#sessionId);
    this.name = me?.experiment_name ?? null;
    const active = me?.status === "active";
    this.nextOpensAt = active && me.session_open ? (me.next_session?.opens_at ?? null) : null;
    const progress = active ? me.progress : null;
    const before = this.#progress;
    this.#progress = progress;
    this.#readAt = this.#now = Date.now();
    if (before?.feed_minutes !== progress?.feed_minutes) this.#recheckWait = FIRST_RECHECK_MS;
    this.#recheckAt = this.#readAt + this.#recheckWait;
    clearInterval(this.#timer);
    const counting =
      progress !== null &&
      progress.feed_minutes_needed !== null &&
      progress.feed_minutes < progress.feed_minutes_needed;
    if (counting) this.#timer = setInterval(() => this.#tick(), TICK_MS);
  }

  /** The visit the participant is on and how many the rule asks for, while that rule is not past. */
  get visit(): { done: number; needed: number } | null {
    const p = this.#progress;
    if (!p || p.sessions_needed === null || p.visit < 1 || p.visit > p.sessions_needed) return null;
    return { done: p.visit, needed: p.sessions_needed };
  }

  /** Called when a read of /me finds the participant finished mid-page (the shell loads the page again). */
  onFinished: () => void = () => {};

  /**
   * A visit that finishes the study's sessions rule counts only once the server has received an
   * event of it (api.md "Trust boundaries (wave 4)"): after its first acknowledged batch, /me is read
   * with that batch's position; a finished participant's page is loaded again (the completion page),
   * and otherwise the survey gate asks again (the post survey may be due now).
   */
  finishWhenCounted(me: ParticipantMe, sessionId: string, transport: Acknowledging): void {
    const p = me.progress;
    if (me.status !== "active" || p.sessions_needed === null) return;
    if (p.visit <= p.sessions || p.visit < p.sessions_needed) return;
    const stop = transport.onAcknowledged((_batch, position) => {
      if (position === null) return;
      stop();
      void this.#whenCounted(sessionId, position, p.visit);
    });
  }

  /**
   * Reads /me after `position` until it counts visit `visit` (the read waits for the projection at
   * most 2 s, which a busy server may need again), then acts on it: finished, the completion page;
   * else the survey gate asks again (the post survey may be due now).
   */
  async #whenCounted(sessionId: string, position: string, visit: number): Promise<void> {
    for (let attempt = 0; attempt < COUNT_ATTEMPTS; attempt++) {
      const next = await api.participantMe(sessionId, position).catch(() => null);
      if (next === null) return; // the next page load reads it again
      if (next.status === "finished" || next.progress.sessions >= visit) {
        this.update(next);
        if (next.status === "finished") this.onFinished();
        else void pendingSurveys.check(api, sessionId);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, COUNT_RETRY_MS));
    }
  }

  /** The whole minutes left on the pages (rounded up); null without a minutes rule or once it is met. */
  get minutesLeft(): number | null {
    const p = this.#progress;
    if (!p || p.feed_minutes_needed === null) return null;
    const left = p.feed_minutes_needed - p.feed_minutes - (this.#now - this.#readAt) / 60_000;
    return left > 0 ? Math.ceil(left) : null;
  }

  #tick(): void {
    if (document.hidden) return;
    this.#now = Date.now();
    if (this.minutesLeft !== null || this.#now < this.#recheckAt) return;
    this.#recheckWait = Math.min(this.#recheckWait * 2, LAST_RECHECK_MS);
    this.#recheckAt = this.#now + this.#recheckWait;
    // Asked about the page's session: without it, /me counts the visit among the sessions the
    // server has counted, and this one is not among them until its events have been projected.
    api.participantMe(this.#sessionId).then(
      (me) => this.update(me),
      () => {}, // the next page load reads it again
    );
  }
}

export const studyStatus = new StudyStatus();
