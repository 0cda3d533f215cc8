import { type Static, Type } from "@sinclair/typebox";
import { Timestamp, Uuid } from "./common.ts";
import { EXPERIMENT_STATUSES } from "./enums.ts";

export const ExperimentStatus = Type.Union(EXPERIMENT_STATUSES.map((s) => Type.Literal(s)));
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];

const Name = Type.String({ minLength: 1, maxLength: 255 });
const Description = Type.String({ maxLength: 10000 });

export const ExperimentCreate = Type.Object(
  { name: Name, description: Type.Optional(Description) },
  { additionalProperties: false },
);
export type ExperimentCreate = Static<typeof ExperimentCreate>;

export const ExperimentPatch = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    status: Type.Optional(ExperimentStatus),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ExperimentPatch = Static<typeof ExperimentPatch>;

export const Experiment = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Type.String(),
  status: ExperimentStatus,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Experiment = Static<typeof Experiment>;
