import { type Static, Type } from "@sinclair/typebox";
import { Nullable, Timestamp, Uuid } from "./common.ts";
import { ArmLatency } from "./latency.ts";
import { IncludeSimulated } from "./participants.ts";
import { RulesApplied } from "./quality.ts";

/** A rate with its 95% interval; null parts when its denominator is 0 (or, for the interval, one participant). */
export const Rate = Type.Object({
  value: Nullable(Type.Number()),
  low: Nullable(Type.Number()),
  high: Nullable(Type.Number()),
});
export type Rate = Static<typeof Rate>;

const counts = {
  impressions: Type.Integer(),
  feed_clicks: Type.Integer(),
  plays: Type.Integer(),
  completions: Type.Integer(),
  likes: Type.Integer(),
  ctr: { ...Rate, description: "feed_clicks / impressions" },
  completion_rate: { ...Rate, description: "completions / plays" },
  like_rate: { ...Rate, description: "likes / plays" },
};

export const GroupStats = Type.Object({
  group_id: Uuid,
  name: Type.String(),
  participants: Type.Integer({
    description:
      "Participants assigned to the group and analysed (excluded ones are left out of every count)",
  }),
  excluded_participants: Type.Integer({ description: "Participants a researcher excluded from analysis" }),
  ...counts,
  latency_ms: ArmLatency,
  excluded_by_rules: Type.Optional(
    Type.Integer({
      description:
        "With exclusions=rules: participants the rules excluded (beyond the researcher's exclusions), left out of every count",
    }),
  ),
  rule_exclusions: Type.Optional(
    Type.Array(Type.Object({ rule: Type.String(), excluded: Type.Integer() }), {
      description: "With exclusions=rules: how many participants each rule excluded (one may break several)",
    }),
  ),
  ipw: Type.Optional(
    Type.Object(
      {
        value: Nullable(Type.Number()),
        low: Nullable(Type.Number()),
        high: Nullable(Type.Number()),
      },
      {
        description:
          "With adaptive assignment: the arm's mean of the assignment metric per participant (ctr: feed_clicks / impressions, completion_rate: finished or not, like_rate: likes / plays), each participant weighted by 1 / the probability of the arm they got (self-normalised, Hajek), with a 95% percentile interval from 1,000 bootstrap resamples of participants seeded by the assignment's seed. All null when no participant of the arm has a value; low and high null when only one has",
      },
    ),
  ),
});
export type GroupStats = Static<typeof GroupStats>;

export const RecommenderStats = Type.Object({
  key: Type.String(),
  surface: Type.Unsafe<"feed" | "watch">({ type: "string", enum: ["feed", "watch"] }),
  ...counts,
});
export type RecommenderStats = Static<typeof RecommenderStats>;

/** api.md: `GET /api/v1/admin/experiments/{id}/stats`. */
export const ExperimentStats = Type.Object({
  experiment_id: Uuid,
  generated_at: Timestamp,
  groups: Type.Array(GroupStats),
  recommenders: Type.Array(RecommenderStats),
  exclusions: Type.Optional(Type.Unsafe<"manual" | "rules">({ type: "string", enum: ["manual", "rules"] })),
  rules: Type.Optional(RulesApplied),
});
export type ExperimentStats = Static<typeof ExperimentStats>;

const Completeness = {
  events: Type.Integer({ description: "Events the log holds" }),
  missing: Type.Integer({ description: "Gaps in the sessions' client sequence numbers (seq)" }),
  loss_rate: Nullable(
    Type.Number({ description: "missing / (numbered events + missing); null with no numbered event" }),
  ),
};

const ImplausibleTimes = Type.Integer({
  description:
    "Events whose client timestamp is more than a minute in the future of their arrival, or a day or more before it (a wrong client clock)",
});

/** api.md: `GET /api/v1/admin/experiments/{id}/completeness`. */
export const ExperimentCompleteness = Type.Object({
  threshold: Type.Number({ description: "Participants with a loss_rate above it are flagged" }),
  groups: Type.Array(
    Type.Object({
      group_id: Uuid,
      name: Type.String(),
      participants: Type.Integer(),
      ...Completeness,
      flagged: Type.Integer({ description: "Participants of the group above the threshold" }),
      implausible_times: ImplausibleTimes,
    }),
  ),
  participants: Type.Array(
    Type.Object({
      user_id: Uuid,
      login_id: Type.String(),
      group_id: Uuid,
      sessions: Type.Integer(),
      ...Completeness,
      flagged: Type.Boolean({ description: "loss_rate above the threshold" }),
      clock_offset_ms: Nullable(
        Type.Integer({
          description:
            "The participant's client clock against the server's: the least (arrival - client time) over a session's events, of the session furthest off. Positive: the client clock is behind (or events waited in its buffer); negative: ahead. Null for sessions from before 0.3",
        }),
      ),
      implausible_times: ImplausibleTimes,
    }),
    { description: 'One page, in join order (api.md "Lists at study scale")' },
  ),
  next_cursor: Nullable(Type.String({ description: "Pass as `cursor` for the next page; null on the last" })),
  total: Type.Integer({ description: "Participants matching the filters, over all pages" }),
});
export type ExperimentCompleteness = Static<typeof ExperimentCompleteness>;

export const CompletenessQuery = Type.Object({
  threshold: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 1,
      default: 0.05,
      description: "Loss rate above which a participant is flagged",
    }),
  ),
  include_simulated: Type.Optional(IncludeSimulated),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: "`next_cursor` of the previous page" })),
  gaps: Type.Optional(Type.Boolean({ description: "true keeps the participants with missing events" })),
  flagged: Type.Optional(
    Type.Boolean({ description: "true keeps the participants whose loss rate is above the threshold" }),
  ),
  clock_off: Type.Optional(
    Type.Boolean({
      description:
        "true keeps the participants whose clock is more than a minute off the server's, or who sent times that cannot be right (`clockOff`)",
    }),
  ),
});
export type CompletenessQuery = Static<typeof CompletenessQuery>;

/** How far a participant's client clock may be off the server's before it counts as off. */
const CLOCK_TOLERANCE_MS = 60_000;

/**
 * Whether a participant's clock is off (`clock_off=true` of `GET .../completeness`, and the results
 * page's Client clocks table): more than a minute off the server's, or times that cannot be right.
 */
export function clockOff(p: {
  readonly implausible_times: number;
  readonly clock_offset_ms: number | null;
}): boolean {
  return (
    p.implausible_times > 0 ||
    (p.clock_offset_ms !== null && Math.abs(p.clock_offset_ms) > CLOCK_TOLERANCE_MS)
  );
}

/** `GET /api/v1/admin/experiments/{id}/stats`'s query. */
export const StatsQuery = Type.Object({
  include_simulated: Type.Optional(IncludeSimulated),
  exclusions: Type.Optional(
    Type.Unsafe<"manual" | "rules">({
      type: "string",
      enum: ["manual", "rules"],
      default: "manual",
      description:
        "manual: the researcher's exclusions only; rules: the experiment's pre-registered exclusion rules too (the researcher's exclusions always apply)",
    }),
  ),
});

const bucketCounts = {
  impressions: Type.Integer(),
  feed_clicks: Type.Integer(),
  plays: Type.Integer(),
  completions: Type.Integer(),
  likes: Type.Integer(),
  joined: Type.Integer({ description: "Participants assigned in the bucket" }),
};

/** `GET /api/v1/admin/experiments/{id}/timeline`: per group and time bucket, counts (not cumulative). */
export const ExperimentTimeline = Type.Object({
  bucket: Type.Unsafe<"minute" | "hour" | "day">({ type: "string", enum: ["minute", "hour", "day"] }),
  groups: Type.Array(
    Type.Object({
      group_id: Uuid,
      name: Type.String(),
      points: Type.Array(Type.Object({ at: Timestamp, ...bucketCounts })),
    }),
  ),
});
export type ExperimentTimeline = Static<typeof ExperimentTimeline>;

export const TimelineQuery = Type.Object({
  bucket: Type.Optional(
    Type.Unsafe<"minute" | "hour" | "day">({
      type: "string",
      enum: ["minute", "hour", "day"],
      description: "Bucket width; default: the finest that keeps the study under 500 buckets",
    }),
  ),
});

/** `GET /api/v1/admin/experiments/{id}/monitor`: a running study at a glance. */
export const ExperimentMonitor = Type.Object({
  generated_at: Timestamp,
  active_window_minutes: Type.Integer(),
  groups: Type.Array(
    Type.Object({
      group_id: Uuid,
      name: Type.String(),
      weight: Type.Number(),
      participants: Type.Integer(),
      expected_share: Type.Number({ description: "The group's weight over the experiment's weights" }),
      observed_share: Nullable(Type.Number()),
      active_now: Type.Integer({ description: "Participants with an event in the active window" }),
      empty_pages: Type.Integer({ description: "Feed or watch pages served empty, last 24 hours" }),
      recommender_failures: Type.Integer({ description: "External recommender failures, last 24 hours" }),
    }),
  ),
  sample_ratio: Type.Object({
    chi_square: Nullable(Type.Number()),
    p_value: Nullable(
      Type.Number({ description: "Pearson's chi-square test of assignment against the weights" }),
    ),
    mismatch: Type.Boolean({ description: "p_value below 0.001 (the usual sample-ratio-mismatch alarm)" }),
  }),
  surveys: Type.Array(
    Type.Object({
      survey_id: Uuid,
      name: Type.String(),
      kind: Type.String(),
      groups: Type.Array(
        Type.Object({
          group_id: Uuid,
          responded: Type.Integer({ description: "Participants of the group with a response" }),
          participants: Type.Integer(),
        }),
      ),
    }),
  ),
  problems: Type.Array(
    Type.Object({
      at: Timestamp,
      kind: Type.String({ description: "empty_page, recommender_failure or rejected_events" }),
      message: Type.String(),
      count: Type.Integer(),
    }),
  ),
});
export type ExperimentMonitor = Static<typeof ExperimentMonitor>;
