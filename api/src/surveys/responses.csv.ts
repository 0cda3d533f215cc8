import { Readable } from "node:stream";
import type { AnswerRecord } from "@feedlab/schemas";
import type { Db } from "../db/db.ts";
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

/** Responses read per query: keyset pages keep memory flat whatever the number of responses. */
export const EXPORT_PAGE_SIZE = 1000;

/**
 * Responses per chunk written to the socket (about 400 records, 80 KB). Chunks stay below V8's
 * large-object size, so they die young in the scavenger instead of piling up until a full GC.
 */
const RESPONSES_PER_CHUNK = 40;

/** One response as the export reads it. */
export interface ExportedResponse {
  readonly id: string;
  readonly login_id: string;
  readonly about_session_id: string | null;
  readonly created_at: Date | string;
  readonly answers: unknown;
}

/**
 * The CSV records of one response: one per answered question, from the response's own snapshot
 * (question_text as it read at submission, not the survey's current text). `about_session_id` is empty
 * for pre and post; `selections` is the JSON list of `{id, text, value}` (values stay numbers; an empty
 * list for text questions); `text_input` is empty for single and multi.
 */
export function responseCsvRecords(r: ExportedResponse): string {
  const answers = json<AnswerRecord[]>(r.answers, []);
  // The first four fields are the same on every record of the response: escape them once.
  const head = `${csvField(r.id)},${csvField(r.login_id)},${csvField(r.about_session_id)},${csvField(
    r.created_at instanceof Date ? r.created_at.toISOString() : new Date(r.created_at).toISOString(),
  )},`;
  let out = "";
  for (const a of answers) {
    out += `${head}${csvField(a.questionId)},${csvField(a.questionText)},${csvField(
      JSON.stringify(a.selections ?? []),
    )},${csvField(a.textInput)}\r\n`;
  }
  return out;
}

interface PageRow {
  id: string;
  user_id: string;
  about_session_id: string | null;
  created_at: Date;
  /** The answers as JSON text, parsed when the response's records are written. */
  answers: string;
  /** created_at as the database's own text: exact to the microsecond, for the keyset cursor. */
  cursor_at: string;
}

/**
 * One keyset page of a survey's responses, in (created_at, id) order, read from the
 * (survey_id, created_at, id) index. Sorting is switched off for this one statement: PGlite has no
 * autovacuum, so its tables may have no statistics, and the planner then prefers sorting every
 * remaining response for each page (quadratic over an export) to walking the index (linear).
 */
async function readPage(db: Db, surveyId: string, after: { at: string; id: string } | null, size: number) {
  return db.transaction(async (trx) => {
    await trx.raw("set local enable_sort = off");
    const q = trx("survey_responses")
      .where("survey_id", surveyId)
      .select("id", "user_id", "about_session_id", "created_at")
      .select(trx.raw("answers::text as answers, created_at::text as cursor_at"))
      .orderBy("created_at")
      .orderBy("id")
      .limit(size);
    if (after) q.whereRaw("(created_at, id) > (?::timestamptz, ?::uuid)", [after.at, after.id]);
    return (await q) as PageRow[];
  });
}

/** The login ids of a page's participants, by primary key. */
async function loginIds(db: Db, rows: readonly PageRow[]): Promise<Map<string, string>> {
  const ids = [...new Set(rows.map((r) => r.user_id))];
  const users = (await db("users").whereIn("id", ids).select("id", "login_id")) as {
    id: string;
    login_id: string;
  }[];
  return new Map(users.map((u) => [u.id, u.login_id]));
}

/**
 * Streams a survey's responses as RFC 4180 CSV (CRLF records, a header row). Responses are read in
 * keyset pages ordered by (created_at, id), a few short queries per page, so memory stays flat on
 * PostgreSQL and on PGlite alike and other requests interleave with a long export (knex's `.stream()`
 * is not used: the PGlite adapter would buffer everything). Records leave in small chunks.
 */
export function exportResponsesCsv(db: Db, surveyId: string, pageSize = EXPORT_PAGE_SIZE): Readable {
  async function* chunks(): AsyncGenerator<string> {
    yield csvRow(RESPONSE_CSV_COLUMNS);
    let cursor: { at: string; id: string } | null = null;
    for (;;) {
      const rows = await readPage(db, surveyId, cursor, pageSize);
      if (rows.length === 0) return;
      const logins = await loginIds(db, rows);
      for (let i = 0; i < rows.length; i += RESPONSES_PER_CHUNK) {
        let chunk = "";
        for (let j = i; j < Math.min(rows.length, i + RESPONSES_PER_CHUNK); j++) {
          const r = rows[j];
          if (r) chunk += responseCsvRecords({ ...r, login_id: logins.get(r.user_id) ?? "" });
        }
        yield chunk;
      }
      const last = rows[rows.length - 1];
      if (rows.length < pageSize || !last) return;
      cursor = { at: last.cursor_at, id: last.id };
    }
  }
  return Readable.from(chunks(), { objectMode: false });
}
