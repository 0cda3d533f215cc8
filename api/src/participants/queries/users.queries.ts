// The participants' table (`users`), for the api's other features: they call these, never its SQL
// (docs/architecture.md, "Tables and their owners"). This folder imports no feature, so any feature
// can call it without an import circle.
import type { Knex } from "knex";
import { JSON_IDS } from "../../db/id-list.ts";
import { json } from "../../db/present.ts";
import { preSurveyChoice } from "../../surveys/queries/answers.queries.ts";

type Q = Knex | Knex.Transaction;

/** Whether the participant exists. */
export async function participantExists(db: Q, userId: string): Promise<boolean> {
  return (await db("users").where({ id: userId }).first("id")) !== undefined;
}

/** Up to `limit` of an experiment's participants, or of its simulated ones only. */
export async function participantIdsOf(
  db: Q,
  experimentId: string,
  { limit, simulatedOnly = false }: { limit: number; simulatedOnly?: boolean },
): Promise<string[]> {
  const rows = (await db("users")
    .where(simulatedOnly ? { experiment_id: experimentId, simulated: true } : { experiment_id: experimentId })
    .limit(limit)
    .select("id")) as { id: string }[];
  return rows.map((r) => r.id);
}

/**
 * Erasure's step for participants: deletes them, and with them (ON DELETE CASCADE) their sessions,
 * cookies, survey responses and dismissals and learned recommendations. Returns how many went.
 */
export async function eraseParticipants(trx: Knex.Transaction, userIds: readonly string[]): Promise<number> {
  return trx("users")
    .whereRaw(`id in ${JSON_IDS}`, [JSON.stringify(userIds)])
    .delete();
}

/** Stores a participant's language. */
export async function setParticipantLanguage(trx: Q, userId: string, language: string): Promise<void> {
  await trx("users").where({ id: userId }).update({ language });
}

/** Marks a participant finished with the study, unless they already were. */
/** Records a participant finished; true when this call did (false: they were already). */
export async function markParticipantFinished(db: Q, userId: string, at: Date): Promise<boolean> {
  return (
    Number(await db("users").where({ id: userId }).whereNull("finished_at").update({ finished_at: at })) === 1
  );
}

/** Records that a window of the schedule closed unused (final); false when lapsed or finished before. */
export async function markParticipantLapsed(db: Q, userId: string, at: Date): Promise<boolean> {
  const lapsing = db("users").where({ id: userId }).whereNull("finished_at").whereNull("lapsed_at");
  return Number(await lapsing.update({ lapsed_at: at })) === 1;
}

/** Records a participant's consent to a version of the consent text, clearing a decline. */
export async function recordConsent(
  db: Q,
  userId: string,
  consent: { consented_at: Date; consent_version: string },
): Promise<void> {
  await db("users")
    .where({ id: userId })
    .update({ ...consent, consent_declined_at: null });
}

/** Records that a participant declined consent. */
export async function recordConsentDeclined(db: Q, userId: string, at: Date): Promise<void> {
  await db("users").where({ id: userId }).update({ consent_declined_at: at });
}

/** How many participants each arm has, and how many of them are simulated; arms with none are left out. */
export async function participantCountsByArm(
  db: Q,
  groupIds: readonly string[],
): Promise<Map<string, { participants: number; simulated: number }>> {
  const rows = (await db("users")
    .whereIn("group_id", [...groupIds])
    .groupBy("group_id")
    .select("group_id", db.raw("count(*) as n"), db.raw("count(*) filter (where simulated) as sim"))) as {
    group_id: string;
    n: number | string;
    sim: number | string;
  }[];
  return new Map(rows.map((r) => [r.group_id, { participants: Number(r.n), simulated: Number(r.sim) }]));
}

/** Columns of the participant's row; undefined when they do not exist. */
export async function participantRow<T>(db: Q, userId: string, ...columns: string[]): Promise<T | undefined> {
  return (await db("users")
    .where({ id: userId })
    .first(...columns)) as T | undefined;
}

/** Columns of every participant of the experiment, in no order. */
export async function participantsOf<T>(db: Q, experimentId: string, ...columns: string[]): Promise<T[]> {
  return (await db("users")
    .where({ experiment_id: experimentId })
    .select(...columns)) as T[];
}

/** A participant a schedule still applies to (api.md "Longitudinal studies (wave 4)"). */
export interface ScheduledParticipant {
  readonly id: string;
  readonly login_id: string;
  readonly language: string | null;
  readonly simulated: boolean;
}

/** The experiment's participants neither finished nor lapsed, in no order. */
export async function participantsOnSchedule(db: Q, experimentId: string): Promise<ScheduledParticipant[]> {
  return (await db("users")
    .where({ experiment_id: experimentId })
    .whereNull("finished_at")
    .whereNull("lapsed_at")
    .select("id", "login_id", "language", "simulated")) as ScheduledParticipant[];
}

/** The login ids of the participants still there, by id. */
export async function loginIdsOf(db: Q, userIds: readonly string[]): Promise<Map<string, string>> {
  const rows = (await db("users")
    .whereIn("id", [...userIds])
    .select("id", "login_id")) as { id: string; login_id: string }[];
  return new Map(rows.map((r) => [r.id, r.login_id]));
}

/** The experiment's simulated participants (dry runs). */
export async function simulatedParticipantIds(db: Q, experimentId: string): Promise<string[]> {
  const rows = (await db("users").where({ experiment_id: experimentId, simulated: true }).select("id")) as {
    id: string;
  }[];
  return rows.map((r) => r.id);
}

/** The experiment's first participant to join; undefined when none has. */
export async function firstParticipantOf(db: Q, experimentId: string): Promise<string | undefined> {
  const row = (await db("users").where({ experiment_id: experimentId }).orderBy("created_at").first("id")) as
    | { id: string }
    | undefined;
  return row?.id;
}

/**
 * The experiment's excluded participants, and its simulated ones unless `includeSimulated`: the
 * participants the results leave out.
 */
export async function leftOutParticipantIds(
  db: Q,
  experimentId: string,
  includeSimulated: boolean,
): Promise<string[]> {
  const q = db("users").where({ experiment_id: experimentId });
  if (includeSimulated) q.whereNotNull("excluded_at");
  else q.where((w) => w.whereNotNull("excluded_at").orWhere("simulated", true));
  return ((await q.select("id")) as { id: string }[]).map((r) => r.id);
}

/** When the experiment's first and last real participants joined (both null before any did). */
export async function realJoinSpan(
  db: Q,
  experimentId: string,
): Promise<{ first: Date | null; last: Date | null } | undefined> {
  return (await db("users")
    .where({ experiment_id: experimentId, simulated: false })
    .first(db.raw("min(created_at) as first"), db.raw("max(created_at) as last"))) as
    | { first: Date | null; last: Date | null }
    | undefined;
}

/** How many real participants joined each arm in each bucket of `seconds` (a bucket's start in epoch seconds). */
export async function realJoinsByArm(
  db: Q,
  experimentId: string,
  seconds: number,
): Promise<{ group_id: string; at: number | string; n: number | string }[]> {
  // `seconds` is a number: the select and the grouping are one expression.
  const joinedAt = `floor(extract(epoch from created_at) / ${Number(seconds)}) * ${Number(seconds)}`;
  return (await db("users")
    .where({ experiment_id: experimentId, simulated: false })
    .groupByRaw(`group_id, ${joinedAt}`)
    .select("group_id", db.raw(`${joinedAt} as at`), db.raw("count(*) as n"))) as {
    group_id: string;
    at: number | string;
    n: number | string;
  }[];
}

/** Whom assignment's balance counts (api.md "Assignment (wave 4)", `counts` and `stale_minutes`). */
export interface CountedFilter {
  readonly counts: "joined" | "consented" | "finished";
  /** Joined this many minutes ago without any event since: not counted until they send one. */
  readonly staleMinutes?: number;
  /** Simulated participants are counted apart: each kind balances only among its own. */
  readonly simulated: boolean;
  readonly now: Date;
}

/** The participants of these arms the balance counts, as a query to count or group. */
function counted(db: Q, groupIds: readonly string[], f: CountedFilter) {
  const q = db("users as u")
    .whereIn("u.group_id", [...groupIds])
    .where("u.simulated", f.simulated);
  const notStale = (w: Knex.QueryBuilder) => {
    if (f.staleMinutes === undefined) return w.whereRaw("true");
    const since = new Date(f.now.getTime() - f.staleMinutes * 60_000);
    // session_activity is the projector's: the first event of any session of the participant.
    return w
      .where("u.created_at", ">=", since)
      .orWhereExists((s) =>
        s.select(db.raw("1")).from("session_activity as sa").whereRaw("sa.user_id = u.id"),
      );
  };
  if (f.counts === "consented") q.whereNotNull("u.consented_at").where(notStale);
  else if (f.counts === "finished")
    q.where((w) =>
      w.whereNotNull("u.finished_at").orWhere((p) => p.whereNull("u.consent_declined_at").where(notStale)),
    );
  else q.where(notStale);
  return q;
}

/** How many participants of each arm the balance counts; arms with none are left out. */
export async function countedByArm(
  db: Q,
  groupIds: readonly string[],
  f: CountedFilter,
): Promise<Map<string, number>> {
  if (groupIds.length === 0) return new Map();
  const rows = (await counted(db, groupIds, f)
    .groupBy("u.group_id")
    .select("u.group_id", db.raw("count(*) as n"))) as {
    group_id: string;
    n: number | string;
  }[];
  return new Map(rows.map((r) => [r.group_id, Number(r.n)]));
}

/**
 * Per arm, how many counted participants carry each level of a covariate (api.md "Assignment (wave 4)"):
 * a recruiting parameter's value, or the option value they chose for a question of the experiment's pre
 * survey (their first pre survey response's; migration 031's `answer_values`). The empty string for those
 * without one: a missing value is its own level.
 */
export async function covariateLevelsByArm(
  db: Q,
  groupIds: readonly string[],
  covariate: { readonly source: string; readonly key: string },
  f: CountedFilter,
): Promise<Map<string, Map<string, number>>> {
  const out = new Map<string, Map<string, number>>();
  if (groupIds.length === 0) return out;
  const level =
    covariate.source !== "survey"
      ? db.raw("coalesce(u.recruiting ->> ?, '') as level", [covariate.key])
      : db.raw("coalesce(?, '') as level", [preSurveyChoice(db, covariate.key)]);
  const rows = (await counted(db, groupIds, f)
    // By position: the level's expression carries its key as a parameter, which a GROUP BY cannot repeat.
    .groupByRaw("1, 2")
    .select("u.group_id", level, db.raw("count(*) as n"))) as {
    group_id: string;
    level: string;
    n: number | string;
  }[];
  for (const r of rows) {
    const levels = out.get(r.group_id) ?? new Map<string, number>();
    levels.set(r.level, Number(r.n));
    out.set(r.group_id, levels);
  }
  return out;
}

/**
 * Per arm, how many participants of one kind (real, or a dry run's simulated) joined and how many of
 * them finished (adaptive assignment's completion_rate).
 */
export async function finishedByArm(
  db: Q,
  groupIds: readonly string[],
  simulated: boolean,
): Promise<Map<string, { joined: number; finished: number }>> {
  if (groupIds.length === 0) return new Map();
  const rows = (await db("users")
    .whereIn("group_id", [...groupIds])
    .where("simulated", simulated)
    // Those a researcher excluded count for no arm's outcome, as in every other metric.
    .whereNull("excluded_at")
    .groupBy("group_id")
    .select("group_id", db.raw("count(*) as n"), db.raw("count(finished_at) as f"))) as {
    group_id: string;
    n: number | string;
    f: number | string;
  }[];
  return new Map(rows.map((r) => [r.group_id, { joined: Number(r.n), finished: Number(r.f) }]));
}

/** An experiment's participants a read of one kind leaves out: the other kind, and those excluded by hand. */
export async function participantsNotOfKind(
  db: Q,
  experimentId: string,
  simulated: boolean,
): Promise<string[]> {
  const rows = (await db("users")
    .where({ experiment_id: experimentId })
    .where((w) => w.where("simulated", !simulated).orWhereNotNull("excluded_at"))
    .select("id")) as { id: string }[];
  return rows.map((r) => r.id);
}

/** A participant's assignment probability and whether they finished: what `/stats`' `ipw` weighs. */
export interface AssignmentProbability {
  readonly user_id: string;
  readonly group_id: string;
  /**
   * The probability of the arm they got; 1 for those who joined before assignments were kept
   * (deterministic balancing, as `participantAssignment` says) and for a researcher's pre-registration
   * (probability null: the researcher's choice, certain).
   */
  readonly probability: number;
  readonly finished: boolean;
}

/** Every assigned participant of the experiment (simulated and excluded ones too: the caller leaves them out). */
export async function assignmentProbabilities(db: Q, experimentId: string): Promise<AssignmentProbability[]> {
  const rows = (await db("users")
    .where({ experiment_id: experimentId })
    .whereNotNull("group_id")
    // Join order, as the participants CSV lists them: a package's analysis script then resamples the
    // same participants in the same order, and its bootstrap interval is /stats' own.
    .orderBy("created_at")
    .orderBy("login_id")
    .select("id", "group_id", "assignment", "finished_at")) as {
    id: string;
    group_id: string;
    assignment: unknown;
    finished_at: Date | string | null;
  }[];
  return rows.map((r) => ({
    user_id: r.id,
    group_id: r.group_id,
    probability: json<{ probability?: number | null } | null>(r.assignment, null)?.probability ?? 1,
    finished: r.finished_at !== null,
  }));
}

/**
 * The experiment's real participants who joined with a Prolific participant id (the join link's
 * `PROLIFIC_PID`): whether they finished and whether a researcher excluded them.
 */
export async function prolificParticipants(
  db: Q,
  experimentId: string,
): Promise<
  {
    user_id: string;
    login_id: string;
    participant_id: string;
    session_id: string | null;
    finished: boolean;
    excluded_by_hand: boolean;
  }[]
> {
  const rows = (await db("users")
    .where({ experiment_id: experimentId, simulated: false })
    .whereRaw("recruiting ->> 'PROLIFIC_PID' is not null")
    .orderBy("created_at")
    .orderBy("login_id")
    .select(
      "id",
      "login_id",
      db.raw("recruiting ->> 'PROLIFIC_PID' as participant_id"),
      db.raw("recruiting ->> 'SESSION_ID' as session_id"),
      "finished_at",
      "excluded_at",
    )) as {
    id: string;
    login_id: string;
    participant_id: string;
    session_id: string | null;
    finished_at: Date | null;
    excluded_at: Date | null;
  }[];
  return rows.map((r) => ({
    user_id: r.id,
    login_id: r.login_id,
    participant_id: r.participant_id,
    session_id: r.session_id ?? null,
    finished: r.finished_at !== null,
    excluded_by_hand: r.excluded_at !== null,
  }));
}
