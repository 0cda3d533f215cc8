import {
  ErrorBody,
  EVENT_TYPES,
  EventBatch,
  EventBatchResult,
  IdParams,
  IncludeSimulated,
  parseEventTypes,
  StoredEvent,
  Uuid,
} from "@feedlab/schemas";
import { Type } from "@sinclair/typebox";
import { participantOf } from "../auth/auth.middleware.ts";
import { unprocessable } from "../http/errors.ts";
import { route } from "../http/route.ts";
import type { EventStoreReader } from "./event-store.read.ts";
import type { EventsService } from "./events.service.ts";

/** A batch of up to 500 events with payloads up to 64 KB each fits; larger bodies get 413. */
const EVENTS_BODY_LIMIT = 2 * 1024 * 1024;

const ExportQuery = Type.Object({
  format: Type.Union([Type.Literal("ndjson"), Type.Literal("csv"), Type.Literal("parquet")], {
    default: "ndjson",
  }),
  spreadsheet_safe: Type.Optional(
    Type.Boolean({
      description:
        'CSV only: text that a spreadsheet would run as a formula (starting with =, +, -, @, tab or carriage return) gets a leading apostrophe (OWASP: CSV injection). A number written as text (`-3`, `+1`, `-0.5e3`) is never touched. Off by default, the console\'s downloads included (its "For Excel" box asks for it), so the file holds exactly what was stored.',
    }),
  ),
  types: Type.Optional(Type.String({ description: "Comma-separated event types", maxLength: 2000 })),
  since: Type.Optional(Type.String({ format: "date-time", description: "Client timestamp, inclusive" })),
  until: Type.Optional(Type.String({ format: "date-time", description: "Client timestamp, exclusive" })),
  include_simulated: Type.Optional(IncludeSimulated),
});

export function eventRoutes({ events, eventStore }: { events: EventsService; eventStore: EventStoreReader }) {
  return [
    route({
      method: "post",
      path: "/api/v1/events",
      tag: "events",
      summary: "Send a batch of events",
      description:
        "Each event is the spec's wire format plus a client-generated `event_id` (a repeated id is accepted and stored once). Valid events are stored even when others are rejected. Answers 202 once the batch is durable in the event log. Also accepts `text/plain` bodies holding JSON, as `navigator.sendBeacon` sends.",
      access: "participant",
      body: EventBatch,
      // Each event with text PostgreSQL cannot store is rejected on its own (the rest are stored).
      checksOwnText: true,
      jsonBodyTypes: ["text/plain"],
      bodyLimitBytes: EVENTS_BODY_LIMIT,
      responses: {
        202: { description: "Accepted", schema: EventBatchResult },
        403: { description: "Another participant's session", schema: ErrorBody },
        404: { description: "Unknown session", schema: ErrorBody },
        413: { description: "Body over 2 MB", schema: ErrorBody },
      },
      handler: async (ctx, { body }) => {
        const result = await events.ingest(participantOf(ctx).userId, body.session_id, body.events);
        ctx.status = 202;
        ctx.body = result;
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}/events",
      audit: "export.events",
      identifies: true,
      tag: "events",
      summary: "Export the experiment's events (NDJSON, CSV or Parquet, streamed)",
      description: `Columns: event_id, session_id, user_id, login_id, group_id, event_type, video_id, timestamp, received_at, watch_ratio, watch_duration, position_in_feed, algorithm_feed, algorithm_watch, payload (JSON text in CSV), experiment_id, group_name, seq, ui_feed, ui_watch (the UI in force when the event arrived: a preset key, none, or <template id>@<version>; empty on events logged before 0.2), timestamp_flag (future, before_study or stale when the client timestamp cannot be right; empty otherwise), ui_feed_name, ui_watch_name (the name of the layout in ui_feed/ui_watch as it is at export time, or the preset key itself, or none; empty when ui_feed/ui_watch is empty or the layout was deleted). Ordered by client timestamp, ties broken by session and seq (events without a seq last). \`types\` filters by event type (${EVENT_TYPES.length} types); \`since\`/\`until\` filter by client timestamp. Simulated participants' events (dry runs) are left out unless include_simulated=true.`,
      access: "admin",
      role: "analyst",
      params: IdParams,
      query: ExportQuery,
      responses: {
        200: { description: "The events", contentType: "application/x-ndjson" },
        422: { description: "Unknown event type in `types`", schema: ErrorBody },
      },
      handler: async (ctx, { params, query }) => {
        await eventStore.assertExperiment(params.id);
        const { types, unknown } = parseEventTypes(query.types ?? "");
        if (unknown.length > 0) {
          throw unprocessable("unknown_event_type", `Unknown event type(s): ${unknown.join(", ")}`, {
            field: "types",
            types: unknown,
          });
        }
        const filter = {
          experimentId: params.id,
          types: types.length > 0 ? types : undefined,
          since: query.since,
          until: query.until,
          includeSimulated: query.include_simulated === true,
        };
        const stamp = new Date().toISOString().replace(/[:.]/g, "-");
        if (query.format === "csv") {
          ctx.type = "text/csv; charset=utf-8";
          ctx.attachment(`events-${params.id}-${stamp}.csv`);
          ctx.body = eventStore.csv(filter, { safe: query.spreadsheet_safe === true });
        } else if (query.format === "parquet") {
          ctx.type = "application/vnd.apache.parquet";
          ctx.attachment(`events-${params.id}-${stamp}.parquet`);
          const send = await eventStore.parquet(filter);
          ctx.status = 200;
          // The export writes the response itself once it has its first bytes (parquet.ts); until
          // then a failure is answered like every other error.
          await send(ctx.res);
          ctx.respond = false;
        } else {
          ctx.type = "application/x-ndjson; charset=utf-8";
          ctx.attachment(`events-${params.id}-${stamp}.ndjson`);
          ctx.body = eventStore.ndjson(filter);
        }
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/participants/{user_id}/trajectory",
      tag: "events",
      summary: "A participant's events in time order",
      description:
        "Leaves out MOUSE_MOVEMENT, SCROLL, VIEWPORT_VISIBILITY, VIDEO_PROGRESS, VISIBILITY_CHANGE, WINDOW_FOCUS and WINDOW_BLUR (spec).",
      access: "admin",
      role: "analyst",
      params: Type.Object({ user_id: Uuid }),
      responses: {
        200: { description: "Events", schema: Type.Array(StoredEvent) },
        404: { description: "Unknown participant" },
      },
      handler: async (ctx, { params }) => {
        ctx.body = await eventStore.trajectory(params.user_id);
      },
    }),
  ];
}
