import { type Static, Type } from "@sinclair/typebox";
import { Nullable, Timestamp, Uuid } from "./common.ts";
import { NumberIn } from "./numbers.ts";

/** Keys of registered recommenders: 2 to 64 characters, lower-case letters, digits, `_` and `-`. */
export const RECOMMENDER_KEY_PATTERN = "^[a-z][a-z0-9_-]{1,63}$";

const stringEnum = <T extends string>(values: readonly T[], description: string) =>
  Type.Unsafe<T>({ type: "string", enum: [...values], description });

export const RecommenderKeyParams = Type.Object({
  key: Type.String({ pattern: RECOMMENDER_KEY_PATTERN, description: "Recommender key" }),
});

const Label = Type.String({ minLength: 1, maxLength: 255, description: "Shown in the admin console" });
const Description = Type.String({ maxLength: 2000, description: 'Optional; default ""' });
const Category = Type.String({
  maxLength: 100,
  description: 'Optional; default "external" for external_http (the spec\'s value for external services)',
});

/** Fields of an external_http config (spec: "Config object of an external_http recommender"). */
const configFields = {
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description:
      "http:// or https:// endpoint called for each recommendation request; it must be reachable from the API processes. Credentials belong in headers, not in the URL.",
  }),
  method: stringEnum(["POST", "GET"] as const, "Default POST. With GET the body fields are query parameters"),
  // From a millisecond: no timer fires sooner.
  timeout_seconds: NumberIn(0.001, 300, {
    description: "Total request timeout (connect, send, wait, read); default 5.0",
  }),
  headers: Type.Record(Type.String({ maxLength: 256 }), Type.String({ maxLength: 8192 }), {
    description:
      "Sent on every call (credentials go here); default {}. Never logged. Hop-by-hop headers (host, connection, content-length, transfer-encoding, ...) are refused.",
  }),
  body_template: Nullable(
    Type.Record(Type.String(), Type.Unknown(), {
      description:
        "JSON object whose {placeholder} strings are substituted per call: {user_id}, {experiment_id}, {limit}, {offset}, {current_video_id}, {exclude_video_ids} and every key of the group's recommender_params for this recommender. A string that is exactly one placeholder takes the value with its type. Absent or null: the default body (the six fields).",
    }),
  ),
  video_id_path: Type.String({
    minLength: 1,
    maxLength: 500,
    description:
      "Dotted path to the list of video UUIDs in the response; `*` iterates a list (items.*.video_id); default video_ids",
  }),
};

/** A full external_http config as registered (url required, every other field optional). */
export const ExternalHttpConfigInput = Type.Object(
  {
    url: configFields.url,
    method: Type.Optional(configFields.method),
    timeout_seconds: Type.Optional(configFields.timeout_seconds),
    headers: Type.Optional(configFields.headers),
    body_template: Type.Optional(configFields.body_template),
    video_id_path: Type.Optional(configFields.video_id_path),
  },
  { additionalProperties: false },
);
export type ExternalHttpConfigInput = Static<typeof ExternalHttpConfigInput>;

export const RecommenderCreate = Type.Object(
  {
    key: Type.String({
      pattern: RECOMMENDER_KEY_PATTERN,
      description:
        "Immutable. 2-64 characters: a lower-case letter, then lower-case letters, digits, _ or -. The built-in keys are taken.",
    }),
    kind: stringEnum(["external_http"] as const, "Immutable. Only external_http can be registered"),
    label: Label,
    description: Type.Optional(Description),
    category: Type.Optional(Category),
    supports_feed: Type.Optional(
      Type.Boolean({ description: "Can serve the feed page (current_video_id null); default true" }),
    ),
    supports_watch: Type.Optional(
      Type.Boolean({
        description:
          "Can serve the watch page (current_video_id set); default false. Set both supports_feed and supports_watch only if the service accepts a null current_video_id (spec rule 6).",
      }),
    ),
    config: ExternalHttpConfigInput,
  },
  { additionalProperties: false },
);
export type RecommenderCreate = Static<typeof RecommenderCreate>;

export const RecommenderPatch = Type.Object(
  {
    key: Type.Optional(Type.String({ description: "Accepted only when it equals the current key" })),
    kind: Type.Optional(Type.String({ description: "Accepted only when it equals the current kind" })),
    label: Type.Optional(Label),
    description: Type.Optional(Description),
    category: Type.Optional(Category),
    supports_feed: Type.Optional(Type.Boolean()),
    supports_watch: Type.Optional(Type.Boolean()),
    config: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          "external_http only: the config fields to change (url, method, timeout_seconds, headers, body_template, video_id_path), merged into the stored config; body_template null restores the default body. Checked like a registration (422 naming config.<field>).",
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type RecommenderPatch = Static<typeof RecommenderPatch>;

export const RecommenderUsage = Type.Object({
  group_id: Uuid,
  group_name: Type.String(),
  experiment_id: Uuid,
  experiment_name: Type.String(),
  pages: Type.Array(stringEnum(["feed", "watch"] as const, "The pages this group serves with it")),
});
export type RecommenderUsage = Static<typeof RecommenderUsage>;

export const RecommenderView = Type.Object({
  key: Type.String(),
  kind: stringEnum(["builtin", "external_http"] as const, "builtin for the five built-ins"),
  label: Type.String(),
  description: Type.String(),
  category: Type.String(),
  supports_feed: Type.Boolean(),
  supports_watch: Type.Boolean(),
  config: Type.Record(Type.String(), Type.Unknown(), {
    description:
      "external_http: url, method, timeout_seconds, headers, video_id_path, and body_template when set. Built-ins: {}",
  }),
  created_at: Nullable(Timestamp),
  updated_at: Nullable(Timestamp),
  used_by: Type.Array(RecommenderUsage, {
    description:
      "Groups whose algorithm_config names this recommender (deleting it breaks them), in experiments the account may see",
  }),
  used_elsewhere: Type.Integer({
    minimum: 0,
    description: "How many groups of experiments the account is not a member of name this recommender",
  }),
});
export type RecommenderView = Static<typeof RecommenderView>;

const failureCounts = Type.Object({
  refused: Type.Integer({ description: "Connection refused, DNS error or connection dropped" }),
  timeout: Type.Integer(),
  http_5xx: Type.Integer(),
  invalid_json: Type.Integer(),
  not_a_list: Type.Integer({ description: "video_id_path does not lead to a list" }),
  no_valid_ids: Type.Integer({ description: "Every value was an invalid UUID" }),
  outside_pool: Type.Integer({ description: "Every id was outside the experiment's pool" }),
  blocked_address: Type.Integer({
    description:
      "The URL's host is, or resolves to, a link-local or cloud metadata address (169.254.0.0/16, fe80::/10, fd00:ec2::254): never connected to",
  }),
  other: Type.Integer({ description: "Another non-2xx status, or a response over the size limit" }),
});

/** api.md: `GET /api/v1/admin/recommenders/{key}/health`. */
export const RecommenderHealth = Type.Object({
  key: Type.String(),
  since: Timestamp,
  calls: Type.Integer({ description: "Pages the recommender served (feed and watch)" }),
  failures: failureCounts,
  empty_results: Type.Integer({ description: "First pages with nothing to show" }),
  latency_ms: Type.Object({ p50: Nullable(Type.Number()), p95: Nullable(Type.Number()) }),
  last_failure: Nullable(Type.Object({ at: Timestamp, message: Nullable(Type.String()) })),
});
export type RecommenderHealth = Static<typeof RecommenderHealth>;

export const RecommenderHealthQuery = Type.Object({
  experiment_id: Type.Optional(Uuid),
});

/** api.md: `POST /api/v1/admin/recommenders/{key}/test`. */
export const RecommenderTestRequest = Type.Object({
  experiment_id: Uuid,
  surface: Type.Unsafe<"feed" | "watch">({ type: "string", enum: ["feed", "watch"] }),
  config: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description:
        "An external_http config to try instead of the stored one (before registering or saving a change)",
    }),
  ),
});
export type RecommenderTestRequest = Static<typeof RecommenderTestRequest>;

export const RecommenderTestResult = Type.Object({
  ok: Type.Boolean(),
  status: Nullable(Type.Integer({ description: "HTTP status of the answer; null without one" })),
  latency_ms: Type.Number(),
  returned: Type.Integer({ description: "Values in the list the path located" }),
  kept: Type.Integer({ description: "Pool videos kept, in order" }),
  dropped: Type.Object({ invalid: Type.Integer(), outside_pool: Type.Integer() }),
  failure: Nullable(Type.String({ description: "One of the health failure kinds" })),
  message: Nullable(Type.String()),
  response: Type.Unknown({
    description:
      "What came back: the JSON when the body is at most 4,096 bytes, else the body's first 4,096 bytes as text",
  }),
  request: Type.Unknown({
    description: "What the call was made with: the body, or with GET the query's fields",
  }),
});
export type RecommenderTestResult = Static<typeof RecommenderTestResult>;
