import {
  ErrorBody,
  IdParams,
  JoinBody,
  JoinResult,
  Me,
  Participant,
  ParticipantCreate,
} from "@feedlab/schemas";
import { Type } from "@sinclair/typebox";
import type { AuthService } from "../auth/auth.service.ts";
import { type CookiePolicy, PARTICIPANT_COOKIE, setSessionCookie } from "../auth/cookies.ts";
import type { AppContext } from "../http/context.ts";
import { unauthorized } from "../http/errors.ts";
import { route } from "../http/route.ts";
import type { ParticipantsService } from "./participants.service.ts";

export interface ParticipantRoutesDeps {
  readonly participants: ParticipantsService;
  readonly auth: AuthService;
  readonly cookies: CookiePolicy;
}

/** The participant behind a request that passed `auth("participant")`. */
export function participantOf(ctx: AppContext) {
  const p = ctx.state.principal;
  if (p?.role !== "participant") throw unauthorized("Join the study first.");
  return p;
}

export function participantRoutes({ participants, auth, cookies }: ParticipantRoutesDeps) {
  return [
    route({
      method: "post",
      path: "/api/v1/participants/join",
      tag: "participants",
      summary: "Join (or resume) a study; sets the participant cookie",
      description:
        "Creates the participant on first join with balanced assignment across the experiment's groups by weight; later joins resume the same user and group. The experiment must be running or completed.",
      access: "public",
      body: JoinBody,
      responses: {
        200: { description: "Joined", schema: JoinResult },
        403: { description: "experiment_not_open", schema: ErrorBody },
        404: { description: "Unknown experiment", schema: ErrorBody },
      },
      handler: async (ctx, { body }) => {
        const joined = await participants.join(body.experiment_id, body.login_id);
        const { token, expiresAt } = await auth.issueParticipantSession(joined.user_id);
        setSessionCookie(ctx, PARTICIPANT_COOKIE, token, expiresAt, cookies);
        ctx.body = joined;
      },
    }),
    route({
      method: "get",
      path: "/api/v1/me",
      tag: "participants",
      summary: "The participant, their group's algorithm and UI configuration",
      access: "participant",
      responses: { 200: { description: "The participant", schema: Me } },
      handler: async (ctx) => {
        ctx.body = await participants.me(participantOf(ctx).userId);
      },
    }),
    route({
      method: "post",
      path: "/api/v1/admin/experiments/{id}/participants",
      tag: "participants",
      summary: "Register a participant (optionally into a given group)",
      access: "admin",
      params: IdParams,
      body: ParticipantCreate,
      responses: {
        201: { description: "Created", schema: Participant },
        409: { description: "duplicate_login_id", schema: ErrorBody },
        422: { description: "unknown_group", schema: ErrorBody },
      },
      handler: async (ctx, { params, body }) => {
        ctx.status = 201;
        ctx.body = await participants.create(params.id, body.login_id, body.group_id);
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}/participants",
      tag: "participants",
      summary: "List an experiment's participants",
      access: "admin",
      params: IdParams,
      responses: { 200: { description: "Participants", schema: Type.Array(Participant) } },
      handler: async (ctx, { params }) => {
        ctx.body = await participants.list(params.id);
      },
    }),
  ];
}
