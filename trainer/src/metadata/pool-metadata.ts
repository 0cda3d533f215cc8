import { rowsOf } from "@feedlab/sql";
import type { Knex } from "knex";
import type { MetadataNeighbour } from "../similarity.ts";
import { MetadataIndex, type VideoMetadata } from "./metadata-similarity.ts";

/** A pool's metadata similarity (TF-IDF cosine), indexed by the source's own list of external ids. */
export interface MetadataNeighbours {
  readonly externalIds: readonly string[];
  neighbours(index: number): readonly MetadataNeighbour[];
}

/**
 * The metadata similarity of an experiment's pool, the same TF-IDF index the similarity built-in
 * serves from, built from the pool's videos as the database holds them (ordered by external id, so
 * ties break the same way on every run).
 */
export async function poolMetadata(db: Knex, experimentId: string): Promise<MetadataNeighbours> {
  const result = await db.raw(
    `select coalesce(json_agg(json_build_object('external_id', v.external_id, 'title', v.title, 'tags', v.tags,
       'category', v.category, 'channel_name', v.channel_name, 'description', v.description)
       order by v.external_id), '[]')::text as videos
     from videos v join experiment_videos p on p.video_id = v.id where p.experiment_id = ?`,
    [experimentId],
  );
  const videos = JSON.parse(rowsOf<{ videos: string }>(result)[0]?.videos ?? "[]") as (VideoMetadata & {
    external_id: string;
  })[];
  const index = new MetadataIndex(videos);
  return { externalIds: videos.map((v) => v.external_id), neighbours: (i) => index.neighbours(i) };
}
