import type { TSchema } from "@sinclair/typebox";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsPkg from "ajv-formats";
import type { FieldProblem } from "./errors.ts";

const addFormats = addFormatsPkg as unknown as (ajv: Ajv) => Ajv;

/** Bodies: no coercion, every problem reported. */
const bodyAjv = addFormats(new Ajv({ allErrors: true, strict: false, useDefaults: true }));
/** Query strings: values arrive as strings, so coerce them to the schema's types and fill defaults. */
const queryAjv = addFormats(
  new Ajv({ allErrors: true, strict: false, coerceTypes: true, useDefaults: true }),
);

export type Validator<T> = (
  value: unknown,
) => { ok: true; value: T } | { ok: false; problems: FieldProblem[] };

function wrap<T>(fn: ValidateFunction): Validator<T> {
  return (value) =>
    fn(value) ? { ok: true, value: value as T } : { ok: false, problems: toProblems(fn.errors) };
}

/** Compiles a body validator once (at start-up). */
export const compileBody = <T>(schema: TSchema): Validator<T> => wrap<T>(bodyAjv.compile(schema));
/** Compiles a query-string validator once (at start-up). */
export const compileQuery = <T>(schema: TSchema): Validator<T> => wrap<T>(queryAjv.compile(schema));

/** `/videos/2/url` -> `videos[2].url` */
export function toFieldPath(pointer: string, extra?: string): string {
  const parts = pointer.split("/").slice(1);
  if (extra !== undefined) parts.push(extra);
  let out = "";
  for (const raw of parts) {
    const p = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    out += /^\d+$/.test(p) ? `[${p}]` : out === "" ? p : `.${p}`;
  }
  return out;
}

function toProblems(errors: ErrorObject[] | null | undefined): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  for (const e of errors ?? []) {
    // Unions report one error per branch; keep the first per field to stay readable.
    let field: string;
    let message: string;
    if (e.keyword === "required") {
      field = toFieldPath(e.instancePath, String(e.params.missingProperty));
      message = "is required";
    } else if (e.keyword === "additionalProperties") {
      field = toFieldPath(e.instancePath, String(e.params.additionalProperty));
      message = "is not an allowed field";
    } else {
      field = toFieldPath(e.instancePath);
      message = e.message ?? "is invalid";
      if (e.keyword === "enum" || e.keyword === "const")
        message = `must be one of ${JSON.stringify(e.params.allowedValues ?? e.params.allowedValue)}`;
    }
    if (seen.has(field)) continue;
    seen.add(field);
    problems.push({ field, message });
  }
  return problems;
}
