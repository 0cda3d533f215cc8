import { ErrorBody, IdParams, SessionBody, SessionRecord, Uuid } from "@feedlab/schemas";
import { Type } from "@sinclair/typebox";
import { participantOf } from "../auth/auth.middleware.ts";
import { route } from "../http/route.ts";
import type { SessionsService } from "./sessions.service.ts";

const SessionStateSchema = Type.Object({
  session_id: Uuid,
  user_id: Uuid,
  created_at: Type.String(),
  ended_at: Type.Union([Type.String(), Type.Null()]),
  last_event_at: Type.Union([Type.String(), Type.Null()]),
  event_count: Type.Integer(),
  state: Type.Union([Type.Literal("active"), Type.Literal("ended")]),
  ended_by: Type.Union([
    Type.Literal("request"),
    Type.Literal("session_end_event"),
    Type.Literal("idle"),
    Type.Null(),
  ]),
});

export function sessionRoutes({ sessions }: { sessions: SessionsService }) {
  return [
    route({
      method: "post",
      path: "/sessions",
      tag: "sessions",
      summary: "Register a client-generated session id",
      access: "participant",
      body: SessionBody,
      responses: {
        201: { description: "Registered", schema: SessionRecord },
        200: { description: "Already registered by this participant", schema: SessionRecord },
        403: { description: "Registered by another participant", schema: ErrorBody },
      },
      handler: async (ctx, { body }) => {
        const { created, session } = await sessions.register(body.session_id, participantOf(ctx).userId);
        ctx.status = created ? 201 : 200;
        ctx.body = session;
      },
    }),
    route({
      method: "get",
      path: "/sessions/{id}",
      tag: "sessions",
      summary: "A session's state",
      description:
        "`state` is `ended` after POST /sessions/{id}/end (for good), after a SESSION_END event that no event follows in `seq` order (every page unload sends one, and a reload goes on in the same session, so a later event makes it active again), or when no event arrived for the idle timeout (FEEDLAB_SESSION_IDLE_MINUTES, default 30); `ended_by` says which.",
      access: "participant",
      params: IdParams,
      responses: {
        200: { description: "The session", schema: SessionStateSchema },
        403: { description: "Another participant's session" },
        404: { description: "Unknown session" },
      },
      handler: async (ctx, { params }) => {
        ctx.body = await sessions.state(params.id, participantOf(ctx).userId);
      },
    }),
    route({
      method: "post",
      path: "/sessions/{id}/end",
      tag: "sessions",
      summary: "End a session explicitly",
      access: "participant",
      params: IdParams,
      responses: {
        200: { description: "Ended", schema: SessionRecord },
        403: { description: "Another participant's session" },
        404: { description: "Unknown session" },
      },
      handler: async (ctx, { params }) => {
        ctx.body = await sessions.end(params.id, participantOf(ctx).userId);
      },
    }),
  ];
}
