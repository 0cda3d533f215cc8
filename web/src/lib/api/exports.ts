/**
 * Where the browser downloads an experiment's data (streamed attachments, api.md "Exports"): exact
 * unless `safe` asks for the spreadsheet-safe variant, where text a spreadsheet would run as a formula
 * starts with an apostrophe. A survey's downloads are `surveysApi`'s; a study's files `studyFilesApi`'s.
 */
import { enc } from "./client.ts";

const path = (experimentId: string) => `/api/v1/admin/experiments/${enc(experimentId)}`;
const spreadsheetSafe = (safe: boolean) => (safe ? "&spreadsheet_safe=true" : "");

export const exportsApi = {
  /** The experiment's events as CSV (`safe` applies), Parquet or NDJSON. */
  eventsUrl: (experimentId: string, format: "csv" | "parquet" | "ndjson", safe = false) =>
    `${path(experimentId)}/events?format=${format}${format === "csv" ? spreadsheetSafe(safe) : ""}`,

  /** The experiment's participants as CSV. */
  participantsUrl: (experimentId: string, safe = false) =>
    `${path(experimentId)}/participants?format=csv${spreadsheetSafe(safe)}`,
};
