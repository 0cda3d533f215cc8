/**
 * body_template substitution (spec: "Placeholders available in body_template").
 *
 * Rules, in order:
 * 1. The template is walked as JSON: objects and arrays are copied, numbers, booleans and null are
 *    kept; object keys are never substituted.
 * 2. A string that consists of exactly one placeholder, `"{limit}"`, is replaced by the value with
 *    its own type: a number stays a number, a list stays a list, null stays null.
 * 3. Placeholders inside a longer string, `"user-{user_id}"`, are replaced by text: strings as they
 *    are, any other value as its JSON text (`5`, `true`, `null`, `["a","b"]`).
 * 4. A placeholder with no value (say, a group parameter that this group does not set) is left as
 *    written, braces included, so the external service can see what was missing.
 *
 * Placeholder names are `[A-Za-z_][A-Za-z0-9_]*` between single braces.
 */

/** The values placeholders resolve to: the request context, then the group's per-recommender parameters. */
export type TemplateValues = Readonly<Record<string, unknown>>;

const WHOLE = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
const EMBEDDED = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

const has = (values: TemplateValues, name: string) => Object.hasOwn(values, name);

const asText = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

function substituteString(s: string, values: TemplateValues): unknown {
  const whole = WHOLE.exec(s);
  if (whole) {
    const name = whole[1] as string;
    return has(values, name) ? values[name] : s;
  }
  if (!s.includes("{")) return s;
  return s.replace(EMBEDDED, (match, name: string) => (has(values, name) ? asText(values[name]) : match));
}

/** The template with its placeholders substituted (a new value; the template is not changed). */
export function substitute(template: unknown, values: TemplateValues): unknown {
  if (typeof template === "string") return substituteString(template, values);
  if (Array.isArray(template)) return template.map((item) => substitute(item, values));
  if (template !== null && typeof template === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(template)) out[k] = substitute(v, values);
    return out;
  }
  return template;
}

/** The request context every call has (spec: the six placeholders of the default body). */
export interface RequestContextValues {
  readonly user_id: string;
  readonly experiment_id: string;
  /** Page size plus one. */
  readonly limit: number;
  readonly offset: number;
  /** Null for feed requests. */
  readonly current_video_id: string | null;
  /** Video UUIDs of the participant's watched history. */
  readonly exclude_video_ids: readonly string[];
}

/** The spec's default body, used when a recommender has no body_template. */
export const DEFAULT_BODY_TEMPLATE: Readonly<Record<string, string>> = Object.freeze({
  user_id: "{user_id}",
  experiment_id: "{experiment_id}",
  limit: "{limit}",
  offset: "{offset}",
  current_video_id: "{current_video_id}",
  exclude_video_ids: "{exclude_video_ids}",
});

/**
 * Placeholder values of one call: the group's per-recommender parameters, overridden by the request
 * context (a parameter named like a built-in placeholder, say `limit`, cannot change what the
 * service computed).
 */
export function templateValues(
  context: RequestContextValues,
  params: Readonly<Record<string, unknown>>,
): TemplateValues {
  return { ...params, ...context };
}

/** Placeholder names a template uses (for documentation and the console's hints). */
export function placeholdersOf(template: unknown, into = new Set<string>()): Set<string> {
  if (typeof template === "string") {
    for (const m of template.matchAll(EMBEDDED)) into.add(m[1] as string);
  } else if (Array.isArray(template)) {
    for (const item of template) placeholdersOf(item, into);
  } else if (template !== null && typeof template === "object") {
    for (const v of Object.values(template)) placeholdersOf(v, into);
  }
  return into;
}
