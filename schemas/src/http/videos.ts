import { type Static, Type } from "@sinclair/typebox";
import { Nullable, Timestamp, Uuid } from "./common.ts";
import { VIDEO_TYPES } from "./enums.ts";
import { IntegerIn, NumberIn, SAFE_INTEGER_MAX } from "./numbers.ts";

/** An absolute http(s) URL or a path on this server (starting with `/`). */
const Url = Type.String({ minLength: 1, maxLength: 2048, pattern: "^(https?://[^\\s]+|/[^\\s]*)$" });

/** A caption track of a video: its language (BCP 47) and the WebVTT file's URL. */
export const Caption = Type.Object(
  {
    lang: Type.String({ minLength: 2, maxLength: 35, pattern: "^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$" }),
    url: Url,
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type Caption = Static<typeof Caption>;

export const Comment = Type.Object(
  {
    author: Type.String({ minLength: 1, maxLength: 255 }),
    text: Type.String({ minLength: 1, maxLength: 10000 }),
  },
  { additionalProperties: false },
);

const videoFields = {
  url: Url,
  title: Type.String({ minLength: 1, maxLength: 500 }),
  channel_name: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  category: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  description: Type.Optional(Nullable(Type.String({ maxLength: 20000 }))),
  tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 })),
  duration_seconds: Type.Optional(Nullable(NumberIn(0, 1_000_000))),
  // A bigint column.
  view_count: Type.Optional(Nullable(IntegerIn(0, SAFE_INTEGER_MAX))),
  thumbnail_url: Type.Optional(Nullable(Url)),
  published_at: Type.Optional(Nullable(Timestamp)),
  comments: Type.Optional(Type.Array(Comment, { maxItems: 1000 })),
  captions: Type.Optional(Type.Array(Caption, { maxItems: 50 })),
};

/** One video as submitted by an admin (`POST /api/v1/admin/videos` and imports). */
export type Comment = Static<typeof Comment>;

export const VideoInput = Type.Object(
  { external_id: Type.String({ minLength: 1, maxLength: 255 }), ...videoFields },
  { additionalProperties: false },
);
export type VideoInput = Static<typeof VideoInput>;

export const VideosCreate = Type.Object(
  { videos: Type.Array(VideoInput, { minItems: 1, maxItems: 10000 }) },
  { additionalProperties: false },
);
export type VideosCreate = Static<typeof VideosCreate>;

/** Every field but `external_id`: events name a video by it, so it stays what the study recorded. */
export const VideoPatch = Type.Partial(Type.Object(videoFields), {
  additionalProperties: false,
  minProperties: 1,
});
export type VideoPatch = Static<typeof VideoPatch>;

export const Video = Type.Object({
  id: Uuid,
  external_id: Type.String(),
  url: Type.String(),
  resolved_url: Type.String(),
  type: Type.Union(VIDEO_TYPES.map((t) => Type.Literal(t))),
  title: Type.String(),
  channel_name: Nullable(Type.String()),
  category: Nullable(Type.String()),
  description: Nullable(Type.String()),
  tags: Type.Array(Type.String()),
  duration_seconds: Nullable(Type.Number()),
  view_count: Nullable(Type.Integer()),
  thumbnail_url: Nullable(Type.String()),
  published_at: Nullable(Timestamp),
  comments: Type.Array(Comment),
  captions: Type.Array(Caption),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Video = Static<typeof Video>;

export const VideoList = Type.Object({ videos: Type.Array(Video) });
export type VideoList = Static<typeof VideoList>;

export const PoolBody = Type.Object(
  { video_ids: Type.Array(Uuid, { maxItems: 100000, uniqueItems: true }) },
  { additionalProperties: false },
);
export type PoolBody = Static<typeof PoolBody>;

/** One row an import refused, with the reason. `row` is 1-based in the file's data rows. */
export const ImportRejection = Type.Object({
  row: Type.Integer(),
  external_id: Type.Optional(Type.String()),
  code: Type.String(),
  message: Type.String(),
  field: Type.Optional(Type.String()),
});
export type ImportRejection = Static<typeof ImportRejection>;

export const ImportSummary = Type.Object({
  imported: Type.Integer({ description: "New videos stored" }),
  updated: Type.Integer({ description: "Stored videos changed (with `update=true`)" }),
  rejected: Type.Array(ImportRejection),
  without_view_count: Type.Integer({
    description:
      "New videos stored without a `view_count`: participants' cards show no views for them (never 0 views)",
  }),
});
export type ImportSummary = Static<typeof ImportSummary>;

/** The experiments whose pool holds a video (`GET /api/v1/admin/videos/{id}/usage`). */
export const VideoUsage = Type.Object({
  experiments: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), status: Type.String() }), {
    description: "The experiments the account sees (an account owner, all) whose pool holds the video",
  }),
  others: Type.Integer({
    minimum: 0,
    description: "How many more experiments' pools hold it: experiments the account is not a member of",
  }),
  others_running: Type.Integer({ minimum: 0, description: "How many of those are running" }),
});
export type VideoUsage = Static<typeof VideoUsage>;

/** A stored upload (`POST /api/v1/admin/media`). */
export const MediaUpload = Type.Object({
  url: Type.String({ description: "Where Feedlab serves the file (HTTP Range, cached for good)" }),
  sha256: Type.String({ description: "SHA-256 of the file, hex: study documents name uploads by it" }),
  content_type: Type.String(),
  bytes: Type.Integer(),
  kind: Type.Union([Type.Literal("video"), Type.Literal("captions"), Type.Literal("thumbnail")]),
  lang: Type.Optional(Type.String({ description: "The captions' language" })),
});
export type MediaUpload = Static<typeof MediaUpload>;

/** An upload found by its content (`GET /api/v1/admin/media/files/{sha256}`). */
export const MediaFile = Type.Object({
  url: Type.String(),
  sha256: Type.String(),
  bytes: Type.Integer(),
  kind: Type.Union([Type.Literal("video"), Type.Literal("captions"), Type.Literal("thumbnail")]),
  file_name: Type.String({ description: "The name the file was uploaded under" }),
});
export type MediaFile = Static<typeof MediaFile>;

/** What the console needs to know before an upload (`GET /api/v1/admin/media/settings`). */
export const MediaSettings = Type.Object({
  max_upload_bytes: Type.Integer({ description: "The largest file accepted (FEEDLAB_MAX_UPLOAD_MB)" }),
  store: Type.Union([Type.Literal("folder"), Type.Literal("s3")], { description: "Where uploads are kept" }),
});
export type MediaSettings = Static<typeof MediaSettings>;
