/**
 * Text a spreadsheet would run as a formula (OWASP: CSV injection) begins with `=`, `+`, `-`, `@`, a
 * tab or a carriage return. The spreadsheet-safe variant puts an apostrophe before it, which
 * spreadsheets show as text and do not display.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A number as text (`-3`, `+1`, `-0.5e3`): never a formula, so never escaped (api.md, Validity rules). */
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Whether the spreadsheet-safe variant escapes this text: a formula start that is not a number. */
const escapedForSpreadsheets = (s: string): boolean => FORMULA_START.test(s) && !NUMBER.test(s);

/**
 * One RFC 4180 field: quoted when it holds a comma, quote, CR or LF; quotes doubled. With `safe`,
 * text that would start a formula is prefixed with an apostrophe (numbers, even as text, stay as they are).
 */
export function csvField(value: unknown, safe = false): string {
  if (value === null || value === undefined) return "";
  let s =
    typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
  if (safe && typeof value === "string" && escapedForSpreadsheets(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One RFC 4180 record, CRLF-terminated (`safe`: the spreadsheet-safe variant of each field). */
export function csvRow(values: readonly unknown[], safe = false): string {
  return `${values.map((v) => csvField(v, safe)).join(",")}\r\n`;
}
