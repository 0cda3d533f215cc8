import { isUuid } from "@feedlab/schemas";
import type { Logger } from "pino";
import type { RecommenderRecord } from "../builtins.ts";
import type { Recommender, RecommendRequest } from "../recommender.ts";
import type { ExternalHttpClient, FailureKind } from "./client.ts";
import { checkConfig, type ExternalHttpConfig } from "./config.ts";
import { type ParsedPath, resolveIdPath } from "./path.ts";
import { urlWithQuery } from "./query.ts";
import { DEFAULT_BODY_TEMPLATE, substitute, templateValues } from "./template.ts";

/** The metrics of external calls, labelled by recommender key (see system/metrics.ts). */
export interface ExternalCallMetrics {
  call(recommender: string, seconds: number): void;
  failure(recommender: string, kind: FailureKind): void;
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

/** The outcome of reading ids out of a response (spec rules 1-3 of the outbound call). */
export type IdsOutcome = { ok: true; ids: string[] } | { ok: false; kind: FailureKind; message: string };

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
    return { ok: false, kind: "not_a_list", message: "the video_id_path does not lead to a list" };
  const seen = new Set<string>();
  let valid = 0;
  const ids: string[] = [];
  for (const value of list) {
    if (typeof value !== "string" || !isUuid(value)) continue;
    valid++;
    const id = value.toLowerCase();
    if (seen.has(id) || !inPool(id)) continue;
    seen.add(id);
    ids.push(id);
  }
  if (ids.length === 0 && list.length > 0) {
    if (valid === 0)
      return { ok: false, kind: "all_invalid_ids", message: `none of the ${list.length} values is a UUID` };
    return {
      ok: false,
      kind: "all_outside_pool",
      message: `none of the ${valid} ids is in the experiment's pool`,
    };
  }
  return { ok: true, ids };
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
    metrics.failure(record.key, kind);
    log.warn(
      { kind, url: where, method: config.method, surface: request.surface, ...detail },
      "external recommender call failed; serving an empty list",
    );
    return [];
  };

  return {
    key: record.key,
    async recommend(request) {
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
          return fail("connection_error", { message: "the URL could not be built" }, request);
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
      metrics.call(record.key, seconds);
      const ms = Math.round(seconds * 1000);
      if (!result.ok) {
        return fail(result.kind, { status: result.status, message: result.message, ms }, request);
      }
      const outcome = idsFromResponse(result.json, path, (id) => pool.indexById.has(id));
      if (!outcome.ok)
        return fail(outcome.kind, { status: result.status, message: outcome.message, ms }, request);
      return outcome.ids;
    },
  };
}
