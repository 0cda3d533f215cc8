import { HEADER_VALUE_MASK } from "@feedlab/schemas/http/enums.ts";
import type { FieldProblem } from "../../http/errors.ts";

/**
 * Recommender header values are write-only (api.md "Trust boundaries"): they usually carry the
 * lab's token for its service. Answers give each header's name with `HEADER_VALUE_MASK`; a write
 * that sends the mask back keeps the value stored under that name.
 */

/** A config as answers show it: every header's value masked. */
export function maskedConfig(config: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const headers = config.headers;
  if (!headers || typeof headers !== "object") return { ...config };
  return {
    ...config,
    headers: Object.fromEntries(Object.keys(headers).map((name) => [name, HEADER_VALUE_MASK])),
  };
}

/** The header values of a stored config (none when it has none). */
export function storedHeaders(config: unknown): Record<string, string> {
  const headers = (config as { headers?: unknown } | null | undefined)?.headers;
  if (!headers || typeof headers !== "object") return {};
  return Object.fromEntries(
    Object.entries(headers).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
}

/**
 * The sent headers with each masked value replaced by the one stored under its name. A mask with
 * nothing stored under its name is a problem naming the header: there is no value to keep.
 */
export function unmaskHeaders(
  sent: unknown,
  stored: Readonly<Record<string, string>>,
): { ok: true; headers: unknown } | { ok: false; problems: FieldProblem[] } {
  if (!sent || typeof sent !== "object" || Array.isArray(sent)) return { ok: true, headers: sent };
  const problems: FieldProblem[] = [];
  const headers: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(sent)) {
    if (value !== HEADER_VALUE_MASK) headers[name] = value;
    else if (stored[name] !== undefined) headers[name] = stored[name];
    else
      problems.push({
        field: `config.headers.${name}`,
        message: `"${HEADER_VALUE_MASK}" keeps a stored value, and none is stored for this header: enter its value`,
      });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, headers };
}

/** Whether two URLs have the same origin (scheme, host and port); false when either is not a URL. */
export function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}
