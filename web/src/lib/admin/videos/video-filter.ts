import type { Video } from "../../types.ts";

/** What the video library and the pool picker filter by. */
export interface VideoFilter {
  /** Words that must all appear in the title, channel, category, tags or external id (any case). */
  readonly text: string;
  /** A provider type, or "" for any. */
  readonly type: string;
  /** A category, or "" for any. */
  readonly category: string;
}

export const NO_FILTER: VideoFilter = { text: "", type: "", category: "" };

const haystacks = new WeakMap<Video, string>();
const haystackOf = (v: Video) => {
  let h = haystacks.get(v);
  if (h === undefined) {
    h = [v.title, v.channel_name, v.category, v.external_id, ...v.tags]
      .filter(Boolean)
      .join(" ")
      .toLowerCase();
    haystacks.set(v, h);
  }
  return h;
};

/** The videos that match `filter`, in their order. */
export function filterVideos(videos: readonly Video[], filter: VideoFilter): Video[] {
  const words = filter.text.toLowerCase().split(/\s+/).filter(Boolean);
  return videos.filter(
    (v) =>
      (!filter.type || v.type === filter.type) &&
      (!filter.category || v.category === filter.category) &&
      words.every((w) => haystackOf(v).includes(w)),
  );
}

/** The categories of a library, sorted, for a filter's choices. */
export function categoriesOf(videos: readonly Video[]): string[] {
  return [...new Set(videos.map((v) => v.category).filter((c): c is string => Boolean(c)))].sort((a, b) =>
    a.localeCompare(b),
  );
}
