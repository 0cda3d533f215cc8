import { type Static, Type } from "@sinclair/typebox";
import { Nullable, Timestamp, Uuid } from "./common.ts";
import { IntegerIn, NumberIn } from "./numbers.ts";

/** Hours of a schedule: from a hundredth (36 s, for pilots and tests) to ten years. */
const Hours = (description: string) => NumberIn(0.01, 87_600, { description });

/** One later session's window (api.md "Longitudinal studies (wave 4)"). */
export const ScheduleWindow = Type.Object(
  {
    session: IntegerIn(2, 1000, {
      description: "The session this window is for: 2, 3, ... (the first session has no window)",
    }),
    opens_after_hours: Hours(
      "The window opens this many hours after the participant's previous session began (its first event reached the server)",
    ),
    closes_after_hours: Hours(
      "The window closes this many hours after the previous session began; more than opens_after_hours. A window that closes unused makes the participant lapsed.",
    ),
  },
  { additionalProperties: false },
);
export type ScheduleWindow = Static<typeof ScheduleWindow>;

export const Schedule = Type.Array(ScheduleWindow, {
  maxItems: 100,
  description:
    "When each later session may begin: one window per session from 2 on, in order (422 invalid_schedule otherwise); empty: no schedule. A session begun before its window is stored but never counts.",
});
export type Schedule = Static<typeof Schedule>;

export const Reminders = Type.Object(
  {
    email: Type.Boolean({
      description:
        "The consent page offers an optional e-mail field; reminders go out when a window opens (and before it closes). Needs FEEDLAB_SMTP_URL to start.",
    }),
    before_close_hours: Type.Optional(
      Hours("A second reminder this many hours before a window closes; less than every window's length"),
    ),
  },
  { additionalProperties: false },
);
export type Reminders = Static<typeof Reminders>;

/** `/me`'s next window, before it is used. */
export const NextSession = Type.Object({
  session: Type.Integer({ description: "The session the window is for" }),
  opens_at: Timestamp,
  closes_at: Timestamp,
});
export type NextSession = Static<typeof NextSession>;

const AttritionSession = Type.Object({
  session: Type.Integer({ description: "1, 2, ..." }),
  started: Type.Integer({ description: "Participants of the arm who began this session" }),
  lapsed: Type.Integer({
    description: "Participants of the arm whose window for this session closed unused",
  }),
});

/** `GET /api/v1/admin/experiments/{id}/attrition`. */
export const Attrition = Type.Object({
  arms: Type.Array(
    Type.Object({
      group_id: Uuid,
      name: Type.String(),
      sessions: Type.Array(AttritionSession),
    }),
  ),
  differential: Nullable(
    Type.Object({
      chi_square: Type.Number(),
      df: Type.Integer(),
      p: Type.Number(),
    }),
    {
      description:
        "Chi-square (no continuity correction) of arm by reached-the-last-session, real participants only; null with fewer than two arms with participants",
    },
  ),
});
export type Attrition = Static<typeof Attrition>;
