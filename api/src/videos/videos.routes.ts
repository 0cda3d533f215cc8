import {
  ErrorBody,
  IdParams,
  ImportSummary,
  PoolBody,
  Video,
  VideoList,
  VideoPatch,
  VideosCreate,
  VideoUsage,
} from "@feedlab/schemas";
import { Type } from "@sinclair/typebox";
import { accessOf } from "../auth/access.ts";
import { type MembersService, usesVisibleTo } from "../auth/members.ts";
import { badRequest } from "../http/errors.ts";
import { route } from "../http/route.ts";
import { importVideos, parseImport } from "./videos.import.ts";
import type { VideosService } from "./videos.service.ts";

const ImportQuery = Type.Object({
  update: Type.Optional(
    Type.Boolean({
      description: "Rows whose external_id exists update that video instead of being rejected",
    }),
  ),
});

/** Imports may be large files. */
const IMPORT_LIMIT_BYTES = 50 * 1024 * 1024;

export function videoRoutes({ videos, members }: { videos: VideosService; members: MembersService }) {
  return [
    route({
      method: "post",
      path: "/api/v1/admin/videos",
      audit: "video.create",
      tag: "videos",
      summary: "Add videos (all or nothing)",
      description:
        "`type` and `resolved_url` are derived from `url`: YouTube and Vimeo pages become their embeddable player URL, anything else is a native media file.",
      access: "admin",
      role: "researcher",
      body: VideosCreate,
      bodyLimitBytes: 10 * 1024 * 1024,
      responses: {
        201: { description: "Created", schema: VideoList },
        409: { description: "duplicate_external_id", schema: ErrorBody },
        422: { description: "validation_failed naming the field", schema: ErrorBody },
      },
      handler: async (ctx, { body }) => {
        ctx.status = 201;
        ctx.body = { videos: await videos.createMany(body.videos) };
      },
    }),
    route({
      method: "post",
      path: "/api/v1/admin/videos/import",
      audit: "video.import",
      tag: "videos",
      summary: "Import a CSV or JSON file of videos",
      description:
        "The body is the file itself (`text/csv` or `application/json`). Each row is checked on its own; accepted rows are stored in one transaction and rejected rows are listed with their reasons. A row whose `external_id` exists is rejected, or, with `update=true`, updates that video (the fields it gives). CSV: a header row of video fields (a column that names none is the file's error: 422 `unknown_columns`, with the field it probably means); `tags` separated by `|` or `;`; `comments` and `captions` as JSON arrays.",
      access: "admin",
      role: "researcher",
      rawBodyTypes: ["text/csv", "application/csv", "text/plain"],
      bodyLimitBytes: IMPORT_LIMIT_BYTES,
      responses: {
        200: { description: "Summary", schema: ImportSummary },
        422: { description: "invalid_file or unknown_columns (nothing imported)", schema: ErrorBody },
      },
      query: ImportQuery,
      handler: async (ctx, { raw, query }) => {
        if (!raw) throw badRequest("malformed_body", "Send the file as the request body.");
        const format = raw.mediaType === "application/json" ? "json" : "csv";
        const parsed = parseImport(raw.text, format);
        ctx.body = await importVideos(videos, parsed.rows, { update: query.update === true });
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/videos",
      tag: "videos",
      summary: "List videos",
      access: "admin",
      role: "researcher",
      responses: { 200: { description: "Videos", schema: Type.Array(Video) } },
      handler: async (ctx) => {
        ctx.body = await videos.list();
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/videos/{id}",
      tag: "videos",
      summary: "Read a video",
      access: "admin",
      role: "researcher",
      params: IdParams,
      responses: { 200: { description: "The video", schema: Video }, 404: { description: "Unknown video" } },
      handler: async (ctx, { params }) => {
        ctx.body = await videos.get(params.id);
      },
    }),
    route({
      method: "patch",
      path: "/api/v1/admin/videos/{id}",
      audit: "video.update",
      tag: "videos",
      summary: "Update a video's metadata or URL",
      access: "admin",
      role: "researcher",
      params: IdParams,
      body: VideoPatch,
      responses: { 200: { description: "Updated", schema: Video } },
      handler: async (ctx, { params, body }) => {
        ctx.body = await videos.update(params.id, body);
      },
    }),
    route({
      method: "delete",
      path: "/api/v1/admin/videos/{id}",
      audit: "video.delete",
      tag: "videos",
      summary: "Delete a video (it leaves every pool)",
      description:
        "A video in the pool of a running experiment is refused (409 video_in_running_study, details.experiments: [{id, name}]): participants may be watching it. Remove it from those pools, or pause the studies, first.",
      access: "admin",
      role: "researcher",
      params: IdParams,
      responses: {
        204: { description: "Deleted" },
        409: { description: "video_in_running_study", schema: ErrorBody },
      },
      handler: async (ctx, { params }) => {
        await videos.remove(params.id, await members.visibleTo(accessOf(ctx)));
        ctx.status = 204;
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/videos/{id}/usage",
      tag: "videos",
      summary: "The experiments whose pool holds the video (the console asks before deleting)",
      access: "admin",
      role: "researcher",
      params: IdParams,
      responses: {
        200: {
          description: "Pools holding the video",
          schema: VideoUsage,
        },
        404: { description: "Unknown video", schema: ErrorBody },
      },
      handler: async (ctx, { params }) => {
        const all = await videos.usage(params.id);
        const { named, elsewhere } = usesVisibleTo(all, await members.visibleTo(accessOf(ctx)), (e) => e.id);
        ctx.body = {
          experiments: named,
          others: elsewhere.length,
          others_running: elsewhere.filter((e) => e.status === "running").length,
        };
      },
    }),
    route({
      method: "put",
      path: "/api/v1/admin/experiments/{id}/videos",
      audit: "pool.update",
      tag: "videos",
      summary: "Replace the experiment's video pool",
      access: "admin",
      role: "editor",
      params: IdParams,
      body: PoolBody,
      responses: {
        200: { description: "The pool", schema: PoolBody },
        422: { description: "unknown_video", schema: ErrorBody },
      },
      handler: async (ctx, { params, body }) => {
        ctx.body = { video_ids: await videos.setPool(params.id, body.video_ids) };
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}/videos",
      tag: "videos",
      summary: "The experiment's video pool",
      access: "admin",
      role: "analyst",
      params: IdParams,
      responses: { 200: { description: "The pool", schema: PoolBody } },
      handler: async (ctx, { params }) => {
        ctx.body = { video_ids: await videos.getPool(params.id) };
      },
    }),
  ];
}
