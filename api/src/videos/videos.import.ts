import { type ImportRejection, type ImportSummary, VideoInput } from "@feedlab/schemas";
import { parse as parseCsv } from "csv-parse/sync";
import { unprocessable } from "../http/errors.ts";
import { compileBody } from "../http/validation.ts";
import type { VideosService } from "./videos.service.ts";

export type ImportFormat = "csv" | "json";

const NUMERIC = new Set(["duration_seconds", "view_count"]);
const KNOWN_COLUMNS = new Set(Object.keys(VideoInput.properties));

/** Parsed import rows plus anything about the file worth telling the user. */
export interface ParsedImport {
  readonly rows: readonly unknown[];
  readonly ignoredColumns: readonly string[];
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
    return { rows, ignoredColumns: [] };
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
  const header = records[0] ? Object.keys(records[0]) : [];
  return {
    rows: records.map(csvRecordToVideo),
    ignoredColumns: header.filter((c) => !KNOWN_COLUMNS.has(c)),
  };
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
    } else if (key === "comments") {
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
  const fresh = accepted.filter((a) => {
    if (!existing.has(a.video.external_id)) return true;
    rejected.push({
      row: a.row,
      external_id: a.video.external_id,
      code: "duplicate_external_id",
      message: "a video with this external_id already exists",
      field: "external_id",
    });
    return false;
  });
  await videos.insertAll(
    fresh.map((a) => a.video),
    (done) =>
      options.onProgress?.(
        Math.floor(total / 2) +
          Math.round((done / Math.max(1, fresh.length)) * (total - Math.floor(total / 2))),
        total,
      ),
  );
  options.onProgress?.(total, total);
  rejected.sort((a, b) => a.row - b.row);
  return { imported: fresh.length, rejected };
}
