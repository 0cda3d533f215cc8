import type { Caption, Video, VideoInput, VideoPatch, VideoType } from "@feedlab/schemas";
import type { Knex } from "knex";
import { usesVisibleTo } from "../auth/members.ts";
import { iso, isoOrNull, json, numOrNull } from "../db/present.ts";
import type { ServiceDeps } from "../deps.ts";
import { experimentExists, lockExperiment } from "../experiments/queries/experiments.queries.ts";
import { conflict, notFound, unprocessable } from "../http/errors.ts";
import { type PoolHolder, poolsHolding } from "./queries/videos.queries.ts";
import { resolveVideoUrl } from "./video-url.ts";

export interface VideoRow {
  id: string;
  external_id: string;
  url: string;
  resolved_url: string;
  type: VideoType;
  title: string;
  channel_name: string | null;
  category: string | null;
  description: string | null;
  tags: unknown;
  duration_seconds: number | null;
  view_count: number | string | null;
  thumbnail_url: string | null;
  published_at: Date | null;
  comments: unknown;
  captions: unknown;
  created_at: Date;
  updated_at: Date;
}

export const presentVideo = (r: VideoRow): Video => ({
  id: r.id,
  external_id: r.external_id,
  url: r.url,
  resolved_url: r.resolved_url,
  type: r.type,
  title: r.title,
  channel_name: r.channel_name,
  category: r.category,
  description: r.description,
  tags: json<string[]>(r.tags, []),
  duration_seconds: numOrNull(r.duration_seconds),
  view_count: numOrNull(r.view_count),
  thumbnail_url: r.thumbnail_url,
  published_at: isoOrNull(r.published_at),
  comments: json<{ author: string; text: string }[]>(r.comments, []),
  captions: json<Caption[]>(r.captions, []),
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

/** Row values for an insert; jsonb columns are encoded here (pg would turn JS arrays into SQL arrays). */
function toRow(v: VideoInput, id: string, at: Date) {
  const { type, resolved_url } = resolveVideoUrl(v.url);
  return {
    id,
    external_id: v.external_id,
    url: v.url,
    resolved_url,
    type,
    title: v.title,
    channel_name: v.channel_name ?? null,
    category: v.category ?? null,
    description: v.description ?? null,
    tags: JSON.stringify(v.tags ?? []),
    duration_seconds: v.duration_seconds ?? null,
    view_count: v.view_count ?? null,
    thumbnail_url: v.thumbnail_url ?? null,
    published_at: v.published_at ? new Date(v.published_at) : null,
    comments: JSON.stringify(v.comments ?? []),
    captions: JSON.stringify(v.captions ?? []),
    created_at: at,
    updated_at: at,
  };
}

/** Column values of the fields a patch gives (jsonb encoded, the URL's type and player URL derived). */
function changesOf(patch: VideoPatch, at: Date): Record<string, unknown> {
  const changes: Record<string, unknown> = { updated_at: at };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    changes[k] =
      k === "tags" || k === "comments" || k === "captions"
        ? JSON.stringify(v)
        : k === "published_at" && v
          ? new Date(String(v))
          : v;
  }
  if (patch.url) Object.assign(changes, resolveVideoUrl(patch.url));
  return changes;
}

export interface VideosServiceDeps extends ServiceDeps {
  /** Called after a change that cached pools must see: a video edited or deleted, a pool replaced. */
  readonly onChange?: (change: { type: "videos" } | { type: "pool"; experiment_id: string }) => void;
}

export function createVideosService({ db, newId, now, onChange }: VideosServiceDeps) {
  /** Existing external ids among the given ones. */
  async function existingExternalIds(
    trx: Knex | Knex.Transaction,
    ids: readonly string[],
  ): Promise<Set<string>> {
    const found = new Set<string>();
    for (let i = 0; i < ids.length; i += 1000) {
      const rows = await trx("videos")
        .whereIn("external_id", ids.slice(i, i + 1000))
        .select("external_id");
      for (const r of rows as { external_id: string }[]) found.add(r.external_id);
    }
    return found;
  }

  /** Inserts rows in chunks inside one transaction and returns them presented, in input order. */
  async function insertRows(
    trx: Knex.Transaction,
    videos: readonly VideoInput[],
    onChunk?: (done: number) => void,
  ): Promise<Video[]> {
    const at = now();
    const rows = videos.map((v) => toRow(v, newId(), at));
    const out: Video[] = [];
    for (let i = 0; i < rows.length; i += 500) {
      const inserted = (await trx("videos")
        .insert(rows.slice(i, i + 500))
        .returning("*")) as VideoRow[];
      out.push(...inserted.map(presentVideo));
      onChunk?.(out.length);
    }
    return out;
  }

  return {
    existingExternalIds: (ids: readonly string[]) => existingExternalIds(db, ids),

    /**
     * Stores already-checked videos atomically, all of them or, on failure, none: `fresh` are new,
     * `updates` replace the fields they give of the stored videos with their external ids.
     */
    async saveAll(
      fresh: readonly VideoInput[],
      updates: readonly VideoInput[],
      onChunk?: (done: number) => void,
    ): Promise<void> {
      await db.transaction(async (trx) => {
        await insertRows(trx, fresh, onChunk);
        const at = now();
        for (const [i, v] of updates.entries()) {
          const { external_id, ...fields } = v;
          await trx("videos").where({ external_id }).update(changesOf(fields, at));
          if ((i + 1) % 500 === 0) onChunk?.(fresh.length + i + 1);
        }
      });
      if (updates.length > 0) onChange?.({ type: "videos" });
    },

    /** All or nothing: any duplicate external_id (in the batch or stored) refuses the whole batch. */
    async createMany(videos: readonly VideoInput[]): Promise<Video[]> {
      const seen = new Set<string>();
      const dupInBatch = videos.map((v) => v.external_id).filter((id) => seen.size === seen.add(id).size);
      if (dupInBatch.length > 0) {
        throw conflict(
          "duplicate_external_id",
          `external_id "${dupInBatch[0]}" appears twice in the request.`,
          {
            external_ids: dupInBatch,
          },
        );
      }
      return db.transaction(async (trx) => {
        const existing = await existingExternalIds(trx, [...seen]);
        if (existing.size > 0) {
          throw conflict(
            "duplicate_external_id",
            `A video with external_id "${[...existing][0]}" already exists.`,
            {
              external_ids: [...existing],
            },
          );
        }
        return insertRows(trx, videos);
      });
    },

    async list(): Promise<Video[]> {
      const rows = await db<VideoRow>("videos")
        .select("*")
        .orderBy("created_at", "desc")
        .orderBy("external_id");
      return rows.map(presentVideo);
    },

    async get(id: string): Promise<Video> {
      const row = await db<VideoRow>("videos").where({ id }).first();
      if (!row) throw notFound("video");
      return presentVideo(row);
    },

    async update(id: string, patch: VideoPatch): Promise<Video> {
      const [row] = (await db("videos")
        .where({ id })
        .update(changesOf(patch, now()))
        .returning("*")) as VideoRow[];
      if (!row) throw notFound("video");
      onChange?.({ type: "videos" });
      return presentVideo(row);
    },

    /** The experiments whose pool holds the video, running ones first. */
    async usage(id: string): Promise<PoolHolder[]> {
      const video = await db("videos").where({ id }).first("id");
      if (!video) throw notFound("video");
      return poolsHolding(db, id);
    },

    /**
     * Deleting a video also removes it from every pool; a video in a running study's pool is refused
     * (participants may be watching it), naming those of them in `visible` (null: all) and counting the rest.
     */
    async remove(id: string, visible: readonly string[] | null = null): Promise<void> {
      await db.transaction(async (trx) => {
        const video = await trx("videos").where({ id }).forUpdate().first("id");
        if (!video) throw notFound("video");
        const running = (await poolsHolding(trx, id))
          .filter((e) => e.status === "running")
          .map(({ id, name }) => ({ id, name }));
        if (running.length > 0) {
          const { named, elsewhere } = usesVisibleTo(running, visible, (e) => e.id);
          const names = [
            ...named.map((e) => `“${e.name}”`),
            ...(elsewhere.length > 0 ? [`${elsewhere.length} of other researchers`] : []),
          ];
          throw conflict(
            "video_in_running_study",
            `This video is in the pool of ${running.length} running ${running.length === 1 ? "study" : "studies"} (${names.join(", ")}): remove it from ${running.length === 1 ? "that pool" : "those pools"} or pause ${running.length === 1 ? "it" : "them"} first.`,
            { experiments: named, others: elsewhere.length },
          );
        }
        await trx("videos").where({ id }).delete();
      });
      onChange?.({ type: "videos" });
    },

    async getPool(experimentId: string): Promise<string[]> {
      if (!(await experimentExists(db, experimentId))) throw notFound("experiment");
      const rows = await db("experiment_videos")
        .where({ experiment_id: experimentId })
        .orderBy("position")
        .select("video_id");
      return (rows as { video_id: string }[]).map((r) => r.video_id);
    },

    /** Replaces the pool in one transaction; unknown video ids refuse the whole request. */
    async setPool(experimentId: string, videoIds: readonly string[]): Promise<string[]> {
      const stored = await db.transaction(async (trx) => {
        if (!(await lockExperiment(trx, experimentId, "id"))) throw notFound("experiment");
        const found = new Set<string>();
        for (let i = 0; i < videoIds.length; i += 1000) {
          const rows = await trx("videos")
            .whereIn("id", videoIds.slice(i, i + 1000))
            .select("id");
          for (const r of rows as { id: string }[]) found.add(r.id);
        }
        const unknown = videoIds.filter((id) => !found.has(id));
        if (unknown.length > 0) {
          throw unprocessable("unknown_video", `${unknown.length} video id(s) do not exist.`, {
            field: "video_ids",
            video_ids: unknown.slice(0, 100),
          });
        }
        await trx("experiment_videos").where({ experiment_id: experimentId }).delete();
        const rows = videoIds.map((video_id, position) => ({
          experiment_id: experimentId,
          video_id,
          position,
        }));
        for (let i = 0; i < rows.length; i += 1000)
          await trx("experiment_videos").insert(rows.slice(i, i + 1000));
        return [...videoIds];
      });
      onChange?.({ type: "pool", experiment_id: experimentId });
      return stored;
    },
  };
}

export type VideosService = ReturnType<typeof createVideosService>;
