import { type ImportRejection, type ImportSummary, VideoInput } from "@feedlab/schemas";
import { parse as parseCsv } from "csv-parse/sync";
import { closest, distance } from "fastest-levenshtein";
import { unprocessable } from "../http/errors.ts";
import { compileBody } from "../http/validation.ts";
import type { VideosService } from "./videos.service.ts";

export type ImportFormat = "csv" | "json";

const NUMERIC = new Set(["duration_seconds", "view_count"]);
const KNOWN_COLUMNS = new Set(Object.keys(VideoInput.properties));

/** Parsed import rows. */
export interface ParsedImport {
  readonly rows: readonly unknown[];
}

/**
 * Columns of a CSV header that name no video field are the file's error (422 `unknown_columns`),
 * each with the field it probably means: a misspelled column would otherwise leave its data behind.
 */
function checkColumns(header: readonly string[]): void {
  const unknown = header.filter((c) => !KNOWN_COLUMNS.has(c));
  if (unknown.length === 0) return;
  const known = [...KNOWN_COLUMNS];
  const suggestions: Record<string, string> = {};
  for (const c of unknown) {
    const asField = c.toLowerCase().replace(/[\s-]+/g, "_");
    const guess = closest(asField, known);
    if (distance(asField, guess) <= Math.max(2, Math.floor(guess.length / 4))) suggestions[c] = guess;
  }
  const named = unknown.map((c) =>
    suggestions[c] ? `"${c}" (did you mean "${suggestions[c]}"?)` : `"${c}"`,
  );
  throw unprocessable(
    "unknown_columns",
    `The file has ${unknown.length === 1 ? "a column" : "columns"} Feedlab does not know: ${named.join(", ")}. Rename or remove ${unknown.length === 1 ? "it" : "them"}; nothing was imported. Known columns: ${known.join(", ")}.`,
    { columns: unknown, suggestions, known },
  );
}

/**
 * Parses an import file. JSON: an array of videos or `{"videos": [...]}`. CSV: a header row naming
 * the fields of a video; `tags` separated by `|` or `;` (or a JSON array), `comments` as a JSON array
 * of `{author, text}`; empty cells are left out. A file that cannot be parsed at all is a 422 `invalid_file`.
 */
export function parseImport(text: string, format: ImportFormat): ParsedImport {
  if (format === "json") {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (err) {
      throw unprocessable("invalid_file", `The file is not valid JSON: ${(err as Error).message}`);
    }
    const rows = Array.isArray(doc) ? doc : (doc as { videos?: unknown } | null)?.videos;
    if (!Array.isArray(rows)) {
      throw unprocessable("invalid_file", 'A JSON import is an array of videos or {"videos": [...]}.');
    }
    return { rows };
  }
  let records: Record<string, string>[];
  try {
    records = parseCsv(text, {
      columns: true,
      bom: true,
      skip_empty_lines: true,
      trim: true,
      relax_column_count: false,
    });
  } catch (err) {
    throw unprocessable("invalid_file", `The file is not valid CSV: ${(err as Error).message}`);
  }
  checkColumns(records[0] ? Object.keys(records[0]) : []);
  return { rows: records.map(csvRecordToVideo) };
}

function csvRecordToVideo(record: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(record)) {
    if (!KNOWN_COLUMNS.has(key) || raw === "") continue;
    if (NUMERIC.has(key)) {
      const n = Number(raw);
      out[key] = Number.isFinite(n) ? n : raw;
    } else if (key === "tags") {
      out[key] = raw.startsWith("[")
        ? tryJson(raw)
        : raw
            .split(/[|;]/)
            .map((t) => t.trim())
            .filter(Boolean);
    } else if (key === "comments" || key === "captions") {
      out[key] = tryJson(raw);
    } else {
      out[key] = raw;
    }
  }
  return out;
}

function tryJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

const validateVideo = compileBody<VideoInput>(VideoInput);

export interface ImportOptions {
  /** Called as rows are checked and stored: `(done, total)`. */
  readonly onProgress?: (done: number, total: number) => void;
  /**
   * Rows whose `external_id` is stored already update that video (the fields the row gives; its id,
   * pools and events stay) instead of being rejected.
   */
  readonly update?: boolean;
}

/**
 * Imports rows: each row is checked on its own (a bad row is rejected with its reason, the rest go
 * on), then every accepted row is stored in one transaction, so a failure stores nothing.
 */
export async function importVideos(
  videos: VideosService,
  rows: readonly unknown[],
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const rejected: ImportRejection[] = [];
  const accepted: { row: number; video: VideoInput }[] = [];
  const seen = new Set<string>();
  const total = rows.length;
  rows.forEach((raw, i) => {
    const row = i + 1;
    const externalId = (raw as { external_id?: unknown } | null)?.external_id;
    const ext = typeof externalId === "string" ? { external_id: externalId } : {};
    const result = validateVideo(raw);
    if (!result.ok) {
      const p = result.problems[0];
      rejected.push({
        row,
        ...ext,
        code: "validation_failed",
        message: `${p?.field ?? "row"} ${p?.message ?? "is invalid"}`,
        field: p?.field,
      });
      return;
    }
    if (seen.has(result.value.external_id)) {
      rejected.push({
        row,
        ...ext,
        code: "duplicate_external_id",
        message: "external_id repeats an earlier row of the file",
        field: "external_id",
      });
      return;
    }
    seen.add(result.value.external_id);
    accepted.push({ row, video: result.value });
  });
  options.onProgress?.(Math.floor(total / 2), total);

  const existing = await videos.existingExternalIds(accepted.map((a) => a.video.external_id));
  const fresh: typeof accepted = [];
  const updates: typeof accepted = [];
  for (const a of accepted) {
    if (!existing.has(a.video.external_id)) fresh.push(a);
    else if (options.update) updates.push(a);
    else
      rejected.push({
        row: a.row,
        external_id: a.video.external_id,
        code: "duplicate_external_id",
        message:
          "a video with this external_id already exists (import with “update existing videos” to change it)",
        field: "external_id",
      });
  }
  const half = Math.floor(total / 2);
  const stored = Math.max(1, fresh.length + updates.length);
  await videos.saveAll(
    fresh.map((a) => a.video),
    updates.map((a) => a.video),
    (done) => options.onProgress?.(half + Math.round((done / stored) * (total - half)), total),
  );
  options.onProgress?.(total, total);
  rejected.sort((a, b) => a.row - b.row);
  return {
    imported: fresh.length,
    updated: updates.length,
    rejected,
    // Stored as null (no count), which the cards leave out: said so the researcher can add counts.
    without_view_count: fresh.filter((a) => a.video.view_count === undefined || a.video.view_count === null)
      .length,
  };
}
