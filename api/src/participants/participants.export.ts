import { Readable } from "node:stream";
import { type ParticipantActivity, participantActivity } from "@feedlab/projector";
import { DEFAULT_LANGUAGE, RECRUITING_PARAMETERS } from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import { manyRows } from "@feedlab/sql";
import type { Knex } from "knex";
import { json } from "../db/present.ts";
import { experimentRow } from "../experiments/queries/experiments.queries.ts";
import { armsOf } from "../groups/queries/groups.queries.ts";
import { csvRow } from "../http/csv.ts";
import { QUALITY_CSV_COLUMNS, qualityCells } from "../quality/quality.csv.ts";
import { participantQualities } from "../quality/quality.service.ts";
import { remindersSent } from "../reminders/queries/messages.queries.ts";
import { chosenLanguage } from "../study/language.ts";
import { participantAssignment } from "./assignment/stored.ts";

/** api.md's columns of the participants CSV, in order. */
const PARTICIPANT_CSV_COLUMNS = [
  "user_id",
  "login_id",
  "group_id",
  "group_name",
  "assignment_method",
  "assignment_probability",
  "status",
  "joined_at",
  "consented_at",
  "finished_at",
  "sessions",
  "events",
  "last_seen_at",
] as const;

const PAGE = 2000;

/** The columns of a page of participants, in any order (manyRows). */
const PAGE_COLUMNS = [
  "id",
  "login_id",
  "group_id",
  "created_at",
  "recruiting",
  "consented_at",
  "consent_declined_at",
  "finished_at",
  "lapsed_at",
  "excluded_at",
  "excluded_reason",
  "simulated",
  "language",
  "assignment",
  "cursor_at",
];

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

const recruitingOf = (v: Record<string, string> | string | null): Record<string, string> =>
  v === null ? {} : typeof v === "string" ? (JSON.parse(v) as Record<string, string>) : v;

/**
 * Columns after the recruiting parameters: the participant's language (api.md "Participant
 * languages"), the reminders the SMTP server accepted for them (api.md "Longitudinal studies (wave
 * 4)"), whether they are simulated (a dry run's; api.md "Simulated participants"), then a
 * researcher's exclusion from analysis, which stays last.
 */
const LAST_CSV_COLUMNS = ["language", "reminders_sent", "simulated", "excluded", "excluded_reason"] as const;

/** `assignment_method` and `assignment_probability` (empty for a researcher's pre-registration). */
function assignmentCells(stored: unknown): [string, number | null] {
  const a = participantAssignment(stored, null);
  return [a.method, a.probability];
}

/**
 * A participant's place in the study, as the CSV's `status` says it: `finished`, `lapsed` (a window
 * of the schedule closed unused), `declined` (the consent), `started` (any event in the log) or `joined`.
 */
export function participantStatus(r: {
  finished_at: Date | string | null;
  lapsed_at: Date | string | null;
  consent_declined_at: Date | string | null;
  consented_at: Date | string | null;
  events: number;
}): "finished" | "lapsed" | "declined" | "started" | "joined" {
  if (r.finished_at) return "finished";
  if (r.lapsed_at) return "lapsed";
  if (r.consent_declined_at && !r.consented_at) return "declined";
  return r.events > 0 ? "started" : "joined";
}

/** The participants export's columns and rows, a page at a time (`participantRecords`). */
export interface ParticipantRecords {
  /** Every column, in order: api.md's, the recruiting parameters present, then LAST and quality ones. */
  readonly columns: readonly string[];
  /** The recruiting parameters that have a column (those any participant's link carried). */
  readonly recruiting: readonly string[];
  /** Rows in `columns` order: text, numbers, `"true"`/`"false"`, or null for an empty cell. */
  readonly pages: AsyncGenerator<(string | number | null)[][]>;
}

/**
 * One row per participant of an experiment (api.md), in join order: the arm's name, their status,
 * when they consented and finished, their sessions (those the server received an event of, as
 * completion counts them), events and last event; then one column per
 * recruiting parameter any participant's link carried (PROLIFIC_PID, workerId, ...); then whether they
 * are simulated, and whether a researcher excluded them from analysis, and why; then their quality
 * measures, flags and whether the exclusion rules hold (QUALITY_CSV_COLUMNS, last). Simulated
 * participants are left out unless `includeSimulated`. Read a page at a time.
 */
export async function participantRecords(
  db: Db,
  experimentId: string,
  options: { includeSimulated?: boolean } = {},
): Promise<ParticipantRecords> {
  /** Leaves simulated participants out unless asked for them. */
  const realUnlessAsked = (q: Knex.QueryBuilder, column: string) => {
    if (options.includeSimulated !== true) q.where(column, false);
  };
  const present = new Set(
    (
      (await db("users")
        .where({ experiment_id: experimentId })
        .modify(realUnlessAsked, "simulated")
        .whereNotNull("recruiting")
        .distinct(db.raw("jsonb_object_keys(recruiting) as key"))) as { key: string }[]
    ).map((r) => r.key),
  );
  // The recruiting platforms' parameters in their usual order, then any other a link carried, by name.
  const known: readonly string[] = RECRUITING_PARAMETERS;
  const recruiting = [
    ...known.filter((k) => present.has(k)),
    ...[...present].filter((k) => !known.includes(k)).sort(),
  ];
  async function* pages(): AsyncGenerator<(string | number | null)[][]> {
    // Quality (docs/quality.md), events and sessions are summed over the whole experiment at once (a
    // statement each, where per page they would sum each participant's sessions one by one), then
    // appended per row: a few hundred bytes per participant, however many events they sent.
    // Whole-experiment reads and pages come through manyRows (one JSON text on the embedded engine):
    // timestamps may then come as text, which iso() reads as well as Dates.
    const [qualities, activity, study, arms, sent] = await Promise.all([
      participantQualities(db, experimentId, { includeSimulated: options.includeSimulated === true }),
      manyRows<Omit<ParticipantActivity, "last_seen_at"> & { last_seen_at: Date | string }>(
        db,
        participantActivity(db, experimentId),
      ),
      experimentRow<{ languages: unknown; default_language: string }>(
        db,
        experimentId,
        "languages",
        "default_language",
      ) as Promise<{ languages: unknown; default_language: string }>,
      armsOf<{ id: string; name: string }>(db, experimentId, "id", "name"),
      remindersSent(db, experimentId),
    ]);
    const armName = new Map(arms.map((a) => [a.id, a.name]));
    const languages = json<string[]>(study.languages, [DEFAULT_LANGUAGE]);
    const languageOfRow = (language: string | null) =>
      chosenLanguage(language, languages, study.default_language);
    const quality = new Map(qualities.map((q) => [q.user_id, q]));
    const activityOf = new Map(activity.map((a) => [a.user_id, a]));
    let after: { at: string; login: string } | null = null;
    for (;;) {
      const rows = await manyRows<{
        id: string;
        login_id: string;
        group_id: string | null;
        created_at: Date | string;
        recruiting: Record<string, string> | string | null;
        consented_at: Date | string | null;
        consent_declined_at: Date | string | null;
        finished_at: Date | string | null;
        lapsed_at: Date | string | null;
        excluded_at: Date | string | null;
        excluded_reason: string | null;
        simulated: boolean;
        language: string | null;
        assignment: unknown;
        cursor_at: string;
      }>(
        db,
        db("users as u")
          .where("u.experiment_id", experimentId)
          .modify(realUnlessAsked, "u.simulated")
          .modify((q) => {
            if (after)
              q.whereRaw("(u.created_at, u.login_id) > (?::timestamptz, ?)", [after.at, after.login]);
          })
          .orderBy("u.created_at")
          .orderBy("u.login_id")
          .limit(PAGE)
          .select(
            "u.id",
            "u.login_id",
            "u.group_id",
            "u.created_at",
            "u.recruiting",
            "u.consented_at",
            "u.consent_declined_at",
            "u.finished_at",
            "u.lapsed_at",
            "u.excluded_at",
            "u.excluded_reason",
            "u.simulated",
            "u.language",
            "u.assignment",
            // The database's own text of created_at, exact to the microsecond, for the next page's keyset.
            db.raw("u.created_at::text as cursor_at"),
          ),
        PAGE_COLUMNS,
      );
      yield rows.map((r) => {
        const a = activityOf.get(r.id);
        const events = Number(a?.events ?? 0);
        return [
          r.id,
          r.login_id,
          r.group_id,
          r.group_id === null ? null : (armName.get(r.group_id) ?? null),
          // Empty for a participant still waiting for their arm (the pre survey's answers).
          ...(r.group_id === null ? [null, null] : assignmentCells(r.assignment)),
          participantStatus({ ...r, events }),
          iso(r.created_at),
          iso(r.consented_at),
          iso(r.finished_at),
          Number(a?.sessions ?? 0),
          events,
          iso(a?.last_seen_at ?? null),
          ...recruiting.map((k) => recruitingOf(r.recruiting)[k] ?? null),
          languageOfRow(r.language),
          sent.get(r.id) ?? 0,
          r.simulated ? "true" : "false",
          r.excluded_at ? "true" : "false",
          r.excluded_reason,
          ...qualityCells(quality.get(r.id)),
        ];
      });
      const last = rows.at(-1);
      if (rows.length < PAGE || last === undefined) return;
      after = { at: last.cursor_at, login: last.login_id };
    }
  }
  // A link parameter named like a column of the export's own (`?status=...`) gets a column of its own.
  const own = new Set<string>([...PARTICIPANT_CSV_COLUMNS, ...LAST_CSV_COLUMNS, ...QUALITY_CSV_COLUMNS]);
  const recruitingColumns = recruiting.map((k) => (own.has(k) ? `recruiting.${k}` : k));
  return {
    columns: [...PARTICIPANT_CSV_COLUMNS, ...recruitingColumns, ...LAST_CSV_COLUMNS, ...QUALITY_CSV_COLUMNS],
    recruiting,
    pages: pages(),
  };
}

/** The participants CSV (api.md): `participantRecords` as RFC 4180 text, with a header row. */
export function participantsCsv(
  db: Db,
  experimentId: string,
  options: { safe?: boolean; includeSimulated?: boolean } = {},
): Readable {
  const safe = options.safe === true;
  return Readable.from(
    (async function* () {
      const records = await participantRecords(db, experimentId, options);
      yield csvRow(records.columns);
      for await (const page of records.pages) yield page.map((cells) => csvRow(cells, safe)).join("");
    })(),
  );
}
