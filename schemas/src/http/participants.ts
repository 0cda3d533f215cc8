import { type Static, Type } from "@sinclair/typebox";
import { Timestamp, Uuid } from "./common.ts";
import { RECRUITING_PARAMETERS } from "./enums.ts";
import { ExperimentStatus } from "./experiments.ts";
import { SurfaceConfig } from "./groups.ts";

const LoginId = Type.String({ minLength: 1, maxLength: 255, pattern: "^\\S(.*\\S)?$" });

const RecruitingValue = Type.String({ maxLength: 255 });

export const JoinBody = Type.Object(
  {
    experiment_id: Uuid,
    login_id: LoginId,
    recruiting: Type.Optional(
      Type.Object(Object.fromEntries(RECRUITING_PARAMETERS.map((k) => [k, Type.Optional(RecruitingValue)])), {
        additionalProperties: false,
        description:
          "The recruiting parameters of the study link (PROLIFIC_PID, STUDY_ID, SESSION_ID, workerId, assignmentId, hitId), kept from the participant's first join and exported with them",
      }),
    ),
  },
  { additionalProperties: false },
);
export type JoinBody = Static<typeof JoinBody>;

export const JoinResult = Type.Object({
  user_id: Uuid,
  login_id: Type.String(),
  experiment_id: Uuid,
  group_id: Uuid,
});
export type JoinResult = Static<typeof JoinResult>;

export const ParticipantCreate = Type.Object(
  { login_id: LoginId, group_id: Type.Optional(Uuid) },
  { additionalProperties: false },
);
export type ParticipantCreate = Static<typeof ParticipantCreate>;

export const Participant = Type.Object({
  user_id: Uuid,
  login_id: Type.String(),
  group_id: Uuid,
  created_at: Timestamp,
});
export type Participant = Static<typeof Participant>;

export const Me = Type.Object({
  user_id: Uuid,
  login_id: Type.String(),
  experiment_id: Uuid,
  experiment_status: ExperimentStatus,
  group_id: Uuid,
  algorithm_config: SurfaceConfig,
  ui_config: SurfaceConfig,
});
export type Me = Static<typeof Me>;

export const SessionBody = Type.Object({ session_id: Uuid }, { additionalProperties: false });
export type SessionBody = Static<typeof SessionBody>;

export const SessionRecord = Type.Object({
  session_id: Uuid,
  user_id: Uuid,
  created_at: Timestamp,
  ended_at: Type.Union([Timestamp, Type.Null()]),
});
