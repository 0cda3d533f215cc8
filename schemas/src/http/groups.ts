import { type Static, Type } from "@sinclair/typebox";
import { Timestamp, Uuid } from "./common.ts";
import { IntegerIn, NumberIn } from "./numbers.ts";

const Key = Type.String({ minLength: 1, maxLength: 100 });

/** A pair of keys, one per page: `feed` serves the feed page, `watch` the watch page. */
export const SurfaceConfig = Type.Object({ feed: Key, watch: Key }, { additionalProperties: false });
export type SurfaceConfig = Static<typeof SurfaceConfig>;

/** Per-recommender parameters, keyed by recommender key; each is exposed as a template placeholder. */
const RecommenderParams = Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()));

const Name = Type.String({ minLength: 1, maxLength: 255 });

/** api.md "Assignment (wave 4)": a full or paused arm takes no newcomer (returning participants come back). */
const Cap = Type.Union([IntegerIn(1, 10_000_000), Type.Null()], {
  description:
    "The most participants the arm takes, counted as the experiment's assignment counts (null: no cap)",
});
const Paused = Type.Boolean({ description: "A paused arm takes no newcomer; its participants continue" });
/**
 * A group's share of new participants, relative to the other groups' weights. From a thousandth: a
 * ratio finer than one to a billion would say nothing a study could observe.
 */
const Weight = NumberIn(0.001, 1_000_000, {
  description: "Relative share of new participants (0.001 to 1000000; default 1)",
});

export const GroupCreate = Type.Object(
  {
    name: Name,
    weight: Type.Optional(Weight),
    algorithm_config: SurfaceConfig,
    ui_config: SurfaceConfig,
    recommender_params: Type.Optional(RecommenderParams),
    cap: Type.Optional(Cap),
    paused: Type.Optional(Paused),
  },
  { additionalProperties: false },
);
export type GroupCreate = Static<typeof GroupCreate>;

export const GroupPatch = Type.Object(
  {
    name: Type.Optional(Name),
    weight: Type.Optional(Weight),
    algorithm_config: Type.Optional(SurfaceConfig),
    ui_config: Type.Optional(SurfaceConfig),
    recommender_params: Type.Optional(RecommenderParams),
    cap: Type.Optional(Cap),
    paused: Type.Optional(Paused),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type GroupPatch = Static<typeof GroupPatch>;

export const Group = Type.Object({
  id: Uuid,
  experiment_id: Uuid,
  name: Type.String(),
  weight: Type.Number(),
  algorithm_config: SurfaceConfig,
  ui_config: SurfaceConfig,
  recommender_params: RecommenderParams,
  cap: Type.Union([Type.Integer(), Type.Null()]),
  paused: Type.Boolean(),
  participant_count: Type.Integer({
    description: "Participants assigned to the arm, simulated ones included",
  }),
  simulated_participant_count: Type.Integer({
    description:
      "Of them, the simulated participants of dry runs (erasing the dry runs' participants frees the arm of them)",
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Group = Static<typeof Group>;

/** A change made to a running arm (`GET /api/v1/admin/experiments/{id}/changes`). */
export const ArmChange = Type.Object({
  group_id: Type.String(),
  group_name: Type.String(),
  field: Type.Union([
    Type.Literal("algorithm_feed"),
    Type.Literal("algorithm_watch"),
    Type.Literal("ui_feed"),
    Type.Literal("ui_watch"),
  ]),
  old_value: Type.Union([Type.String(), Type.Null()]),
  new_value: Type.Union([Type.String(), Type.Null()]),
  admin: Type.Union([Type.String(), Type.Null()]),
  changed_at: Type.String(),
});
export type ArmChange = Static<typeof ArmChange>;
