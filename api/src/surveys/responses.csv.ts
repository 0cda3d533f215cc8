import { Readable } from "node:stream";
import type { AnswerRecord } from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import { json } from "../db/present.ts";
import { csvField, csvRow } from "../http/csv.ts";

/** The spec's CSV columns (Admin: surveys), in order. */
export const RESPONSE_CSV_COLUMNS = [
  "response_id",
  "user_login_id",
  "about_session_id",
  "created_at",
  "question_id",
  "question_text",
  "selections",
  "text_input",
] as const;

/**
 * Responses read per query: keyset pages keep memory flat whatever the number of responses. A page
 * of 250 ten-question responses is about 0.5 MB of answers, small enough to be written out (and die)
 * within a scavenge or two instead of being promoted to V8's old generation.
 */
const EXPORT_PAGE_SIZE = 250;

/** Responses per query when only their cells are read (the wide CSV): about a tenth of the bytes each. */
const CELLS_PAGE_SIZE = 2000;

/**
 * Characters per chunk written to the socket (about 32 KB). Chunks stay well below V8's
 * large-object size (they would otherwise go straight to the old generation).
 */
const CHUNK_CHARS = 32 * 1024;

/** One response as the export reads it. */
export interface ExportedResponse {
  readonly id: string;
  readonly login_id: string | null;
  readonly about_session_id: string | null;
  /** A Date, or its ISO 8601 text (`toISOString()`'s format), written as it is. */
  readonly created_at: Date | string;
  readonly answers?: unknown;
}

/**
 * The CSV records of one response: one per answered question, from the response's own snapshot
 * (question_text as it read at submission, not the survey's current text). `about_session_id` is empty
 * for pre and post; `selections` is the JSON list of `{id, text, value}` (values stay numbers; an empty
 * list for text questions); `text_input` is empty for single and multi.
 */
export function responseCsvRecords(r: ExportedResponse, safe = false): string {
  const answers = json<AnswerRecord[]>(r.answers, []);
  // The first four fields are the same on every record of the response: escape them once.
  const at = r.created_at instanceof Date ? r.created_at.toISOString() : r.created_at;
  const head = `${csvField(r.id)},${csvField(r.login_id, safe)},${csvField(r.about_session_id)},${csvField(at)},`;
  let out = "";
  for (const a of answers) {
    out += `${head}${csvField(a.questionId, safe)},${csvField(a.questionText, safe)},${csvField(
      JSON.stringify(a.selections ?? []),
    )},${csvField(a.textInput, safe)}\r\n`;
  }
  return out;
}

/** The wide CSV's fixed columns (api.md), before one column per question. */
export const WIDE_CSV_COLUMNS = [
  "response_id",
  "user_id",
  "user_login_id",
  "group_id",
  "group_name",
  "about_session_id",
  "created_at",
  "language",
] as const;

/** Keys of `JSON.parse`d text, or none. */
const parsed = <T>(text: string | null | undefined): Record<string, T> =>
  text === null || text === undefined ? {} : (JSON.parse(text) as Record<string, T>);

/**
 * A response's cells in the wide form, by question id: the chosen option's value (single), the values
 * joined by `|` (multi) or the text (text: an answer with no option chosen); null when the question was
 * not answered. Read from the response's `answer_values` and `answer_texts` (a page read for its cells:
 * migration 031 makes them from the answers).
 */
export function wideCells(
  r: Pick<PageRow, "answer_values" | "answer_texts">,
): (questionId: string) => string | null {
  const values = parsed<number[]>(r.answer_values);
  const texts = parsed<string>(r.answer_texts);
  return (id) => {
    const chosen = Object.hasOwn(values, id) ? values[id] : undefined;
    if (chosen) return chosen.join("|");
    return Object.hasOwn(texts, id) ? (texts[id] ?? null) : null;
  };
}

/** One wide record of a response: the fixed columns, then its cell of each question, in order. */
function wideCsvRecord(r: PageRow, questionIds: readonly string[], safe = false): string {
  const cellOf = wideCells(r);
  const cells: unknown[] = [
    r.id,
    r.user_id,
    r.login_id,
    r.group_id,
    r.group_name,
    r.about_session_id,
    r.created_at,
    r.language,
  ];
  for (const id of questionIds) cells.push(cellOf(id));
  return csvRow(cells, safe);
}

/** One response as the exports read it: the participant's login id and arm beside it. */
export interface PageRow {
  id: string;
  user_id: string;
  group_id: string | null;
  group_name: string | null;
  login_id: string | null;
  about_session_id: string | null;
  /** created_at in ISO 8601 (UTC, milliseconds), formatted by the database. */
  created_at: string;
  /** The language the survey was shown in (BCP 47). */
  language: string;
  /** The answers as JSON text, parsed when the response's records are written (the snapshot read). */
  answers?: string;
  /** The wide form's cells (the cells read): `answer_values` and `answer_texts` (migration 031). */
  answer_values?: string | null;
  answer_texts?: string | null;
  /** created_at as the database's own text: exact to the microsecond, for the keyset cursor. */
  cursor_at: string;
}

/**
 * One keyset page of a survey's responses, in (created_at, id) order, read from the
 * (survey_id, created_at, id) index, with each participant's login id joined by primary key. Sorting
 * is switched off for this one statement: PGlite has no autovacuum, so its tables may have no
 * statistics, and the planner then prefers sorting every remaining response for each page (quadratic
 * over an export) to walking the index (linear).
 */
async function readPage(
  db: Db,
  surveyId: string,
  after: { at: string; id: string } | null,
  size: number,
  includeSimulated: boolean,
  read: AnswersRead,
) {
  return db.transaction(async (trx) => {
    await trx.raw("set local enable_sort = off");
    const q = trx("survey_responses as r")
      .leftJoin("users as u", "u.id", "r.user_id")
      .leftJoin("groups as g", "g.id", "u.group_id")
      .where("r.survey_id", surveyId)
      .select(
        "r.id",
        "r.user_id",
        "u.login_id",
        "u.group_id",
        "g.name as group_name",
        "r.about_session_id",
        "r.language",
      )
      .select(
        trx.raw(
          `to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at,
           ${read === "snapshot" ? "r.answers::text as answers" : "r.answer_values, r.answer_texts"},
           r.created_at::text as cursor_at`,
        ),
      )
      .orderBy("r.created_at")
      .orderBy("r.id")
      .limit(size);
    if (after) q.whereRaw("(r.created_at, r.id) > (?::timestamptz, ?::uuid)", [after.at, after.id]);
    if (!includeSimulated) q.whereRaw("u.simulated is not true");
    return (await q) as PageRow[];
  });
}

/**
 * What a page reads of each response's answers: the whole snapshot (question and option texts), or only
 * the cells of the wide form (the values chosen and the texts given), a tenth of the bytes.
 */
type AnswersRead = "snapshot" | "cells";

/** How a survey CSV is written. */
interface ExportOptions {
  readonly pageSize?: number;
  /** Spreadsheet-safe text (api.md `spreadsheet_safe`). */
  readonly safe?: boolean;
  /** Simulated participants' responses (dry runs) are left out unless this is true (api.md). */
  readonly includeSimulated?: boolean;
}

/**
 * Streams a survey's responses as RFC 4180 CSV (CRLF records, a header row). Responses are read in
 * keyset pages ordered by (created_at, id), one short query per page, so memory stays flat on
 * PostgreSQL and on PGlite alike and other requests interleave with a long export (knex's `.stream()`
 * is not used: the PGlite adapter would buffer everything). Simulated participants' responses are
 * left out unless `includeSimulated`.
 *
 * Memory: pages are small (EXPORT_PAGE_SIZE) and records leave in chunks of about CHUNK_CHARS, the
 * next one made only when the socket has taken the last (a pull stream). What the export allocates
 * therefore dies young, in V8's scavenger, instead of being promoted to the old generation, where
 * with default heap settings it piled up to hundreds of MB before a full collection.
 */
export function exportResponsesCsv(db: Db, surveyId: string, options: ExportOptions = {}): Readable {
  const safe = options.safe === true;
  return streamResponses(
    db,
    surveyId,
    csvRow(RESPONSE_CSV_COLUMNS),
    (r) => responseCsvRecords(r, safe),
    "snapshot",
    options,
  );
}

/**
 * The wide CSV (api.md: `responses/wide.csv`): one record per response with the participant's arm and
 * the language the survey was shown in, then one column per question of the survey, named by its id; simulated participants' responses as
 * `exportResponsesCsv` says.
 */
export function exportWideCsv(
  db: Db,
  survey: { id: string; questionIds: readonly string[] },
  options: ExportOptions = {},
): Readable {
  const safe = options.safe === true;
  return streamResponses(
    db,
    survey.id,
    csvRow([...WIDE_CSV_COLUMNS, ...survey.questionIds], safe),
    (r) => wideCsvRecord(r, survey.questionIds, safe),
    "cells",
    options,
  );
}

/**
 * A survey's responses in (created_at, id) order with their cells (`wideCells`), a keyset page at a
 * time (`readPage`); simulated participants' left out unless `includeSimulated`.
 */
export async function* responsePages(
  db: Db,
  surveyId: string,
  { pageSize = CELLS_PAGE_SIZE, includeSimulated = false }: ExportOptions = {},
): AsyncGenerator<PageRow[]> {
  let cursor: { at: string; id: string } | null = null;
  for (;;) {
    const rows: PageRow[] = await readPage(db, surveyId, cursor, pageSize, includeSimulated, "cells");
    if (rows.length === 0) return;
    const last = rows[rows.length - 1];
    yield rows;
    if (rows.length < pageSize || !last) return;
    cursor = { at: last.cursor_at, id: last.id };
  }
}

function streamResponses(
  db: Db,
  surveyId: string,
  header: string,
  render: (r: PageRow) => string,
  read: AnswersRead,
  {
    pageSize = read === "snapshot" ? EXPORT_PAGE_SIZE : CELLS_PAGE_SIZE,
    includeSimulated = false,
  }: ExportOptions,
): Readable {
  async function* chunks(): AsyncGenerator<string> {
    yield header;
    let cursor: { at: string; id: string } | null = null;
    for (;;) {
      const rows: (PageRow | undefined)[] = await readPage(
        db,
        surveyId,
        cursor,
        pageSize,
        includeSimulated,
        read,
      );
      if (rows.length === 0) return;
      const last = rows[rows.length - 1];
      let chunk = "";
      for (let i = 0; i < rows.length; i++) {
        const r = rows[i];
        if (!r) continue;
        // Let go of each row once rendered. A page held whole until its last chunk has been
        // written lives through several scavenges and is promoted: on the surveys-csv benchmark
        // that alone took peak RSS from about 140 MB to 210-250 MB.
        rows[i] = undefined;
        chunk += render(r);
        if (chunk.length >= CHUNK_CHARS) {
          yield chunk;
          chunk = "";
        }
      }
      if (chunk !== "") yield chunk;
      if (rows.length < pageSize || !last) return;
      cursor = { at: last.cursor_at, id: last.id };
    }
  }
  return Readable.from(chunks(), { objectMode: false, highWaterMark: CHUNK_CHARS });
}

/** The dismissals CSV's columns, in order. */
const DISMISSAL_CSV_COLUMNS = [
  "user_id",
  "user_login_id",
  "group_id",
  "group_name",
  "session_id",
  "about_session_id",
  "dismissed_at",
] as const;

/**
 * The times participants closed a survey without answering, oldest first, simulated participants'
 * only when included. Small (at most one per participant, session and survey), so built whole.
 */
export async function dismissalsCsv(
  db: Db,
  surveyId: string,
  { safe = false, includeSimulated = false }: ExportOptions = {},
): Promise<string> {
  const query = db("survey_dismissals as d")
    .join("users as u", "u.id", "d.user_id")
    .leftJoin("groups as g", "g.id", "u.group_id")
    .where("d.survey_id", surveyId);
  if (!includeSimulated) query.where("u.simulated", false);
  const rows = (await query
    .orderBy("d.dismissed_at")
    .orderBy("d.id")
    .select(
      "u.id as user_id",
      "u.login_id",
      "u.group_id",
      "g.name as group_name",
      "d.session_id",
      "d.about_session_id",
      "d.dismissed_at",
    )) as {
    user_id: string;
    login_id: string;
    group_id: string;
    group_name: string;
    session_id: string;
    about_session_id: string | null;
    dismissed_at: Date;
  }[];
  return [
    csvRow(DISMISSAL_CSV_COLUMNS),
    ...rows.map((r) =>
      csvRow(
        [
          r.user_id,
          r.login_id,
          r.group_id,
          r.group_name,
          r.session_id,
          r.about_session_id,
          new Date(r.dismissed_at).toISOString(),
        ],
        safe,
      ),
    ),
  ].join("");
}
