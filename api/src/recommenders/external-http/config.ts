import { ExternalHttpConfigInput } from "@feedlab/schemas";
import type { FieldProblem } from "../../http/errors.ts";
import { compileBody } from "../../http/validation.ts";
import { type ParsedPath, parseIdPath } from "./path.ts";

/** An external_http config with every default filled in (spec: config table). */
export interface ExternalHttpConfig {
  readonly url: string;
  readonly method: "GET" | "POST";
  readonly timeout_seconds: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Absent: the spec's default body. */
  readonly body_template?: Readonly<Record<string, unknown>>;
  readonly video_id_path: string;
}

/** The spec's defaults: POST, 5.0 s total, no headers, the default body, `video_ids`. */
const CONFIG_DEFAULTS = Object.freeze({
  method: "POST" as const,
  timeout_seconds: 5.0,
  headers: Object.freeze({}) as Readonly<Record<string, string>>,
  video_id_path: "video_ids",
});

/** Largest body_template accepted, as JSON text. */
const MAX_TEMPLATE_BYTES = 64 * 1024;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the HTTP client owns; configuring them would break framing or routing. */
const RESERVED_HEADERS = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "keep-alive",
  "upgrade",
  "expect",
  "te",
  "trailer",
  "proxy-connection",
]);

const validateShape = compileBody<ExternalHttpConfigInput>(ExternalHttpConfigInput);

export type ConfigCheck =
  | { readonly ok: true; readonly config: ExternalHttpConfig; readonly path: ParsedPath }
  | { readonly ok: false; readonly problems: FieldProblem[] };

/**
 * Checks a config (a registration's, a PATCH merged into the stored one, or a stored row) and fills
 * the defaults. Problems name the field as the request does: `config.url`, `config.headers.X-Key`.
 */
export function checkConfig(input: unknown): ConfigCheck {
  const copy = input !== null && typeof input === "object" ? structuredClone(input) : input;
  const shape = validateShape(copy);
  if (!shape.ok) {
    return {
      ok: false,
      problems: shape.problems.map((p) => ({
        field: p.field ? `config.${p.field}` : "config",
        message: p.message,
      })),
    };
  }
  const c = shape.value;
  const problems: FieldProblem[] = [];

  let url: URL | null = null;
  try {
    url = new URL(c.url);
  } catch {
    problems.push({ field: "config.url", message: "must be an absolute http:// or https:// URL" });
  }
  if (url && url.protocol !== "http:" && url.protocol !== "https:") {
    problems.push({ field: "config.url", message: "must use http:// or https://" });
  }
  if (url && (url.username || url.password)) {
    problems.push({ field: "config.url", message: "must not hold credentials; put them in config.headers" });
  }

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(c.headers ?? {})) {
    const field = `config.headers.${name}`;
    if (!TOKEN.test(name)) problems.push({ field, message: "is not a valid header name" });
    else if (RESERVED_HEADERS.has(name.toLowerCase()))
      problems.push({ field, message: "is set by the HTTP client and cannot be configured" });
    else if (/[\r\n\0]/.test(value)) problems.push({ field, message: "must not contain line breaks" });
    else headers[name] = value;
  }

  const template = c.body_template ?? undefined;
  if (template !== undefined && JSON.stringify(template).length > MAX_TEMPLATE_BYTES) {
    problems.push({
      field: "config.body_template",
      message: `must be at most ${MAX_TEMPLATE_BYTES} bytes of JSON`,
    });
  }

  const videoIdPath = c.video_id_path ?? CONFIG_DEFAULTS.video_id_path;
  const parsed = parseIdPath(videoIdPath);
  if (!parsed.ok) problems.push({ field: "config.video_id_path", message: parsed.message });

  if (problems.length > 0 || !parsed.ok) return { ok: false, problems };
  return {
    ok: true,
    path: parsed.path,
    config: {
      url: c.url,
      method: c.method ?? CONFIG_DEFAULTS.method,
      timeout_seconds: c.timeout_seconds ?? CONFIG_DEFAULTS.timeout_seconds,
      headers,
      ...(template !== undefined ? { body_template: template } : {}),
      video_id_path: videoIdPath,
    },
  };
}
