import { isUuid } from "@feedlab/schemas";
import type { Logger } from "pino";
import type { RecommenderRecord } from "../builtins.ts";
import type { ProbeResult, Recommender, RecommendRequest } from "../recommender.ts";
import type { ExternalHttpClient, FailureKind } from "./client.ts";
import { checkConfig, type ExternalHttpConfig } from "./config.ts";
import { healthFailureOf } from "./failures.ts";
import { type ParsedPath, resolveIdPath } from "./path.ts";
import { urlWithQuery } from "./query.ts";
import { DEFAULT_BODY_TEMPLATE, substitute, templateValues } from "./template.ts";

/** The metrics of external calls, labelled by recommender key (see system/metrics.ts). */
interface ExternalCallMetrics {
  call(recommender: string, seconds: number): void;
  failure(
    recommender: string,
    kind: FailureKind,
    context: { experimentId: string; surface: string; message: string },
  ): void;
}

export interface ExternalHttpDeps {
  readonly client: ExternalHttpClient;
  readonly log: Logger;
  readonly metrics: ExternalCallMetrics;
}

/** The URL as it may be logged: no query string (it may carry tokens), no credentials. */
export function loggableUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return "(invalid url)";
  }
}

/** What became of a response's list: how many values it held, and why some were dropped. */
interface IdsCount {
  readonly returned: number;
  /** Values that are not UUIDs. */
  readonly invalid: number;
  /** UUIDs outside the experiment's pool. */
  readonly outside_pool: number;
}

/** The outcome of reading ids out of a response (spec rules 1-3 of the outbound call). */
export type IdsOutcome =
  | { ok: true; ids: string[]; count: IdsCount }
  | { ok: false; kind: FailureKind; message: string; count: IdsCount };

/**
 * The ranked video ids of a response: located with the path, order kept, values that are not UUIDs
 * and ids outside the pool dropped silently, repeats dropped. When nothing is left of a non-empty
 * list, says why (all invalid, all outside the pool). Pure; exported for tests.
 */
export function idsFromResponse(
  json: unknown,
  path: ParsedPath,
  inPool: (id: string) => boolean,
): IdsOutcome {
  const list = resolveIdPath(json, path);
  if (list === null)
    return {
      ok: false,
      kind: "not_a_list",
      message: "the video_id_path does not lead to a list",
      count: { returned: 0, invalid: 0, outside_pool: 0 },
    };
  const seen = new Set<string>();
  let valid = 0;
  let outside = 0;
  const ids: string[] = [];
  for (const value of list) {
    if (typeof value !== "string" || !isUuid(value)) continue;
    valid++;
    const id = value.toLowerCase();
    if (seen.has(id)) continue;
    if (!inPool(id)) {
      outside++;
      continue;
    }
    seen.add(id);
    ids.push(id);
  }
  const count = { returned: list.length, invalid: list.length - valid, outside_pool: outside };
  if (ids.length === 0 && list.length > 0) {
    if (valid === 0)
      return {
        ok: false,
        kind: "all_invalid_ids",
        message: `none of the ${list.length} values is a UUID`,
        count,
      };
    return {
      ok: false,
      kind: "all_outside_pool",
      message: `none of the ${valid} ids is in the experiment's pool`,
      count,
    };
  }
  return { ok: true, ids, count };
}

/** The most of a response body a test call quotes (api.md "Trust boundaries"). */
const QUOTE_BYTES = 4096;

/**
 * What a test call shows of an answer: its JSON when the body is at most `QUOTE_BYTES` bytes, else
 * the body's first `QUOTE_BYTES` bytes as text (cut between characters). A test call can reach a
 * service only the server sees; the cap keeps it from reading out a whole internal document.
 */
function quoted(json: unknown, text: string): unknown {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= QUOTE_BYTES) return json;
  let end = QUOTE_BYTES;
  // A UTF-8 continuation byte (10xxxxxx) would start the cut inside a character.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}

/**
 * An external_http recommender (spec: "Outbound call to an external recommender"): one HTTP call per
 * recommendation request, with the substituted body (POST) or the body's fields as query parameters
 * (GET). Every failure (connection refused, DNS, timeout, 5xx, invalid JSON, a path to a non-list,
 * no usable id) is a logged warning and an empty list, never an error. Configured headers are sent
 * and never logged.
 */
export function createExternalHttpRecommender(
  record: RecommenderRecord,
  deps: ExternalHttpDeps,
): Recommender {
  const { client, metrics } = deps;
  const log = deps.log.child({ recommender: record.key });
  const checked = checkConfig(record.config);

  if (!checked.ok) {
    // A stored row that bypassed the admin API; serve empty lists and say why.
    return {
      key: record.key,
      propensity: () => null,
      async recommend() {
        log.warn(
          { problems: checked.problems },
          "external recommender has an invalid stored config; serving an empty list",
        );
        return [];
      },
    };
  }
  const config: ExternalHttpConfig = checked.config;
  const path = checked.path;
  const template = config.body_template ?? DEFAULT_BODY_TEMPLATE;
  const timeoutMs = Math.round(config.timeout_seconds * 1000);
  const where = loggableUrl(config.url);

  const fail = (kind: FailureKind, detail: Record<string, unknown>, request: RecommendRequest): [] => {
    metrics.failure(record.key, kind, {
      experimentId: request.experimentId,
      surface: request.surface,
      message: String(detail.message ?? kind),
    });
    log.warn(
      { kind, url: where, method: config.method, surface: request.surface, ...detail },
      "external recommender call failed; serving an empty list",
    );
    return [];
  };

  /** One call for a request: its outcome with the counts, the status and the time it took. */
  async function call(request: RecommendRequest) {
    const { pool } = request;
    const values = templateValues(
      {
        user_id: request.userId,
        experiment_id: request.experimentId,
        limit: request.limit,
        offset: request.offset,
        current_video_id: request.current?.id ?? null,
        exclude_video_ids: request.watched
          .map((i) => pool.videos[i]?.id)
          .filter((id): id is string => id !== undefined),
      },
      request.params,
    );
    const body = substitute(template, values);
    let url = config.url;
    if (config.method === "GET") {
      try {
        url = urlWithQuery(config.url, body);
      } catch {
        return {
          outcome: failed("connection_error", "the URL could not be built"),
          status: null,
          ms: 0,
          body,
        };
      }
    }
    const started = performance.now();
    const result = await client.call({
      method: config.method,
      url,
      headers: config.headers,
      ...(config.method === "POST" ? { body } : {}),
      timeoutMs,
    });
    const seconds = (performance.now() - started) / 1000;
    const ms = Math.round(seconds * 1000);
    if (!result.ok)
      return {
        outcome: failed(result.kind, result.message),
        status: result.status ?? null,
        ms,
        seconds,
        body,
      };
    const outcome = idsFromResponse(result.json, path, (id) => pool.indexById.has(id));
    return { outcome, status: result.status, ms, seconds, json: result.json, text: result.text, body };
  }

  return {
    key: record.key,
    // The service's policy is its own: the probability of its ranking is unknown here.
    propensity: () => null,
    async recommend(request) {
      const { outcome, status, ms, seconds } = await call(request);
      if (seconds !== undefined) metrics.call(record.key, seconds);
      if (!outcome.ok) return fail(outcome.kind, { status, message: outcome.message, ms }, request);
      return outcome.ids;
    },
    async probe(request): Promise<ProbeResult> {
      const { outcome, status, ms, json, text, body } = await call(request);
      return {
        ok: outcome.ok,
        status,
        latency_ms: ms,
        returned: outcome.count.returned,
        kept: outcome.ok ? outcome.ids.length : 0,
        dropped: { invalid: outcome.count.invalid, outside_pool: outcome.count.outside_pool },
        failure: outcome.ok ? null : healthFailureOf(outcome.kind),
        message: outcome.ok ? null : outcome.message,
        response: json === undefined || text === undefined ? null : quoted(json, text),
        request: body,
      };
    },
  };
}

const failed = (kind: FailureKind, message: string): IdsOutcome => ({
  ok: false,
  kind,
  message,
  count: { returned: 0, invalid: 0, outside_pool: 0 },
});
