import type {
  Completion,
  DryRunProblem,
  EventType,
  JourneyAction,
  Me,
  Schedule,
  SurveyKind,
} from "@feedlab/schemas";
import type { ParticipantModel } from "../behaviour.ts";

/** A simulated participant as the runner created them. */
export interface SimulatedParticipant {
  readonly userId: string;
  readonly loginId: string;
  readonly groupId: string;
}

/** What of the study's design a journey checks itself against. */
interface StudyDesign {
  readonly completion: Completion | null;
  /** Whether the completion rule needs minutes on the pages (which a dry run compresses). */
  readonly needsFeedMinutes: boolean;
  /** Videos in the pool: once a participant has watched them all, empty lists are what the design gives. */
  readonly poolSize: number;
  /**
   * The experiment's schedule as the researcher wrote it (empty or absent: none). The server
   * compresses it for simulated participants; journeys read their windows from `/me`.
   */
  readonly schedule?: Schedule;
}

export interface JourneyInput {
  readonly participant: SimulatedParticipant;
  readonly model: ParticipantModel;
  readonly design: StudyDesign;
  /** Epoch ms by which the journey stops, finished or not (the run's budget). */
  readonly deadline: number;
}

/** One survey as a participant met it. */
export interface SurveyShown {
  readonly id: string;
  readonly name: string;
  readonly kind: SurveyKind;
  /** The session (from 1) at whose start, or after whose end ("after"), it came. */
  readonly session: number;
  readonly when: "start" | "after";
}

/** What one journey did and met: the report is made of these, with what the store holds. */
export interface JourneyRecord {
  readonly participant: SimulatedParticipant;
  readonly actions: Set<JourneyAction>;
  readonly acknowledged: string[];
  /** The log positions of the acknowledged batches (the store holds them once the projector passed). */
  readonly positions: string[];
  readonly sentTypes: Set<EventType>;
  readonly surveys: SurveyShown[];
  readonly problems: DryRunProblem[];
  /** Milliseconds from asking for the feed to its first card, per feed page measured. */
  readonly firstCardMs: number[];
  /** Feed pages that showed cards. */
  feedPages: number;
  declined: boolean;
  finished: boolean;
  /** The completion URL /me gave, placeholders filled. */
  redirect: string | null;
  /** The journey stopped at the deadline before its last session. */
  outOfTime: boolean;
  /** The session whose schedule window opens past the deadline, when the journey stopped for it. */
  beyondBudget: number | null;
  /**
   * The session whose window closed unused: `/me` said the participant lapsed, or the window closed
   * before they could come back (a session begun then would lapse them).
   */
  lapsedAt: number | null;
  /** Videos the participant opened (the feed and related lists leave watched ones out). */
  readonly watched: Set<string>;
}

/**
 * A participant's study, driven one visit at a time so that a run can do something between visits
 * (train a model on what the visits so far produced): `begin` (the consent), `visit(n)` for each
 * session while `going`, then `end` (the post survey and the completion).
 */
export interface Journey {
  readonly record: JourneyRecord;
  /** Sessions the completion rule asks of this participant. */
  readonly sessions: number;
  /**
   * False once the participant stopped: declined, finished early, lapsed, out of time, or the pages
   * failed them.
   */
  readonly going: boolean;
  begin(): Promise<void>;
  /**
   * Before `visit(n)` in a study with a schedule: waits until the window of the session it begins
   * opens (drive/schedule.ts). Answers when that window closes (epoch ms), null without a window.
   */
  awaitWindow(n: number): Promise<number | null>;
  visit(n: number): Promise<void>;
  end(): Promise<void>;
}

export function newRecord(participant: SimulatedParticipant): JourneyRecord {
  return {
    participant,
    actions: new Set(),
    acknowledged: [],
    positions: [],
    sentTypes: new Set(),
    surveys: [],
    problems: [],
    firstCardMs: [],
    feedPages: 0,
    declined: false,
    finished: false,
    redirect: null,
    outOfTime: false,
    beyondBudget: null,
    lapsedAt: null,
    watched: new Set(),
  };
}

/** Adds a problem with who and where (once: the same problem in a later session adds nothing). */
export function problem(
  record: JourneyRecord,
  page: string,
  kind: DryRunProblem["kind"],
  message: string,
): void {
  if (record.problems.some((p) => p.kind === kind && p.page === page && p.message === message)) return;
  record.problems.push({
    participant: record.participant.loginId,
    user_id: record.participant.userId,
    page,
    kind,
    message,
  });
}

/**
 * Whether an empty list is a problem: not once the participant has watched every video the list could
 * show (`others` in view: the related list leaves the current video out too).
 */
export function emptyIsProblem(record: JourneyRecord, design: StudyDesign, others = 0): boolean {
  return record.watched.size + others < design.poolSize;
}

/** A placeholder `{name}` the completion URL still holds after filling. */
const UNFILLED_PLACEHOLDER = /\{[A-Za-z_][A-Za-z0-9_]*\}/;

/**
 * Where the study left the participant, from their `/me` at the end: finished or not, and the
 * completion link, which must have every placeholder filled.
 */
export function recordCompletion(record: JourneyRecord, me: Me): void {
  record.finished = me.status === "finished";
  // The window after the last counted session closed unused.
  if (me.status === "lapsed") record.lapsedAt ??= me.progress.sessions + 1;
  record.redirect = me.completion?.redirect_url ?? null;
  const left = record.redirect?.match(UNFILLED_PLACEHOLDER)?.[0];
  if (left !== undefined)
    problem(
      record,
      "completion",
      "redirect_placeholder",
      `The completion link still holds ${left}: ${record.redirect}`,
    );
}

const KIND_ORDER: Record<SurveyKind, number> = { pre: 0, inter_session: 1, post: 2 };

/**
 * Surveys out of the designed order (spec: Surveys): the pre survey comes at the start of the first
 * session before anything else, an inter-session survey never in the first session, and the post survey
 * last; a kind never comes after a later kind.
 */
export function surveyOrderProblems(shown: readonly SurveyShown[]): string[] {
  const out: string[] = [];
  let highest = -1;
  for (const s of shown) {
    const rank = KIND_ORDER[s.kind];
    if (rank < highest) out.push(`the ${s.kind} survey "${s.name}" came after a later kind of survey`);
    highest = Math.max(highest, rank);
    if (s.kind === "pre" && (s.session !== 1 || s.when !== "start"))
      out.push(`the pre survey "${s.name}" came in session ${s.session}, not at the start of the first`);
    if (s.kind === "inter_session" && s.session === 1)
      out.push(`the inter-session survey "${s.name}" came in the first session, before any earlier session`);
  }
  return out;
}

/**
 * `/api/v1/me`, read after the participant's last acknowledged batch (read-your-writes): completion
 * counts a session once the server has received an event of it.
 */
export function meAfter(record: JourneyRecord): string {
  const last = record.positions.at(-1);
  return last === undefined ? "/api/v1/me" : `/api/v1/me?after=${encodeURIComponent(last)}`;
}
