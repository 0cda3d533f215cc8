import {
  ErrorBody,
  ExperimentQuality,
  IdParams,
  ParticipantQuality,
  QualityQuery,
  Uuid,
} from "@feedlab/schemas";
import { Type } from "@sinclair/typebox";
import { notFound } from "../http/errors.ts";
import { route } from "../http/route.ts";
import type { QualityService } from "./quality.service.ts";

/** Participant quality (api.md "Data quality and validity"; docs/quality.md). */
export function qualityRoutes({ quality }: { quality: QualityService }) {
  return [
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}/quality",
      tag: "results",
      summary: "Participant quality: measures, flags and the exclusion rules per participant, and per group",
      description:
        "Per participant, from the quality read model and the survey responses: active_seconds (page visible and focused), visible_watch_seconds and watch_seconds (playback while visible, and by the wall clock), hidden_share (hidden time over the visit, first to last event; null with no visit), pointer_events (MOUSE_MOVEMENT events), viewport_width (the widest SESSION_START viewport), seconds_per_question (timed responses' duration_ms over their surveys' questions; null without a timed response), straight_lined, attention {passed, failed}, duplicate_recruiting_id; `flags` names each measure past its threshold (docs/quality.md), and `excluded_by_rules` whether any of the experiment's exclusion_rules holds (a null measure never holds). `groups` counts every participant of each group (the filters page only `participants`). Participants in join order, paged: limit (default 100, at most 1000), cursor (`next_cursor` of the previous page), flagged=true keeps flagged participants, user_id one participant. Simulated participants (dry runs) are left out unless include_simulated=true.",
      access: "admin",
      role: "analyst",
      params: IdParams,
      query: QualityQuery,
      responses: {
        200: { description: "Quality per group and participant", schema: ExperimentQuality },
        400: { description: "A cursor this server did not give", schema: ErrorBody },
        404: { description: "Unknown experiment", schema: ErrorBody },
      },
      handler: async (ctx, { params, query }) => {
        ctx.body = await quality.forExperiment(params.id, query);
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/participants/{user_id}/quality",
      tag: "results",
      summary: "One participant's quality: their measures, flags and whether the exclusion rules hold",
      description:
        "The participant's item of `GET /api/v1/admin/experiments/{id}/quality` (the same measures, flags and excluded_by_rules, simulated participants too), read from this participant's rows only, so it costs the same at any size of study: what the console's participant page shows.",
      access: "admin",
      role: "analyst",
      params: Type.Object({ user_id: Uuid }),
      responses: {
        200: { description: "The participant's quality", schema: ParticipantQuality },
        404: { description: "Unknown participant", schema: ErrorBody },
      },
      handler: async (ctx, { params }) => {
        const found = await quality.forParticipant(params.user_id);
        if (found === null) throw notFound("participant");
        ctx.body = found;
      },
    }),
  ];
}
