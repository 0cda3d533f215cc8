import type { Video } from "@feedlab/schemas";

/** The fields of a video its metadata similarity reads. */
export type VideoMetadata = Pick<Video, "tags" | "category" | "channel_name" | "title" | "description">;

/** A neighbour of a video: its pool index and a similarity in (0, 1]. */
export interface Neighbour {
  readonly index: number;
  readonly score: number;
}

/** How many neighbours of a video are kept. */
const NEIGHBOURS_KEPT = 100;
/** A term in more than this share of the pool (and more than COMMON_MIN videos) does not nominate neighbours. */
const COMMON_SHARE = 0.1;
const COMMON_MIN = 1000;

/** Field weights of the metadata vector (term frequency multipliers). */
const WEIGHTS = { tag: 1.0, category: 1.0, channel: 1.0, title: 0.5, description: 0.2 } as const;
const DESCRIPTION_WORDS = 60;
const STOPWORDS = new Set(
  "the and for with you your are was this that from how why what when who into out not but all can our its has have had will just about over more most than then them they their there these those one two".split(
    " ",
  ),
);

function words(text: string | null | undefined, max = Number.POSITIVE_INFINITY): string[] {
  if (!text) return [];
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    const w = m[0];
    if (w.length >= 3 && !STOPWORDS.has(w)) out.push(w);
    if (out.length >= max) break;
  }
  return out;
}

/** The weighted terms of a video: tags, category, channel, title words, the start of the description. */
export function termsOf(v: VideoMetadata): Map<string, number> {
  const terms = new Map<string, number>();
  const add = (term: string, w: number) => terms.set(term, (terms.get(term) ?? 0) + w);
  for (const tag of v.tags ?? []) {
    const t = tag.trim().toLowerCase();
    if (t) add(`tag:${t}`, WEIGHTS.tag);
  }
  if (v.category?.trim()) add(`cat:${v.category.trim().toLowerCase()}`, WEIGHTS.category);
  if (v.channel_name?.trim()) add(`ch:${v.channel_name.trim().toLowerCase()}`, WEIGHTS.channel);
  for (const w of words(v.title)) add(`w:${w}`, WEIGHTS.title);
  for (const w of words(v.description, DESCRIPTION_WORDS)) add(`w:${w}`, WEIGHTS.description);
  return terms;
}

/**
 * Item-to-item similarity from video metadata: TF-IDF vectors of each video's terms, cosine
 * similarity through an inverted index. Built once per pool (a pool change or a video edit gives a
 * new pool and so a new index); a video's neighbours are computed on first use (or ahead of it, see
 * `neighbourArrays`) and kept, in typed arrays (12 bytes a neighbour).
 */
export class MetadataIndex {
  readonly #size: number;
  /** Per video: term ids and their normalised weights. */
  readonly #vectors: { terms: Int32Array; weights: Float32Array }[];
  /** Per term: the videos that have it and their weights. */
  readonly #postings: { videos: Int32Array; weights: Float32Array }[];
  /** Per video, once computed: neighbour indices and scores, best first. */
  readonly #neighbours: ({ index: Int32Array; score: Float64Array } | undefined)[];
  readonly #scores: Float32Array;

  constructor(videos: readonly VideoMetadata[]) {
    this.#size = videos.length;
    const termIds = new Map<string, number>();
    const df: number[] = [];
    const raw = videos.map((v) => {
      const terms = termsOf(v);
      for (const term of terms.keys()) {
        let id = termIds.get(term);
        if (id === undefined) {
          id = df.length;
          termIds.set(term, id);
          df.push(0);
        }
        df[id] = (df[id] as number) + 1;
      }
      return terms;
    });
    const n = videos.length;
    const lists: { videos: number[]; weights: number[] }[] = df.map(() => ({ videos: [], weights: [] }));
    this.#vectors = raw.map((termCounts, i) => {
      const ids: number[] = [];
      const ws: number[] = [];
      let norm = 0;
      for (const [term, tf] of termCounts) {
        const id = termIds.get(term) as number;
        const w = tf * Math.log(1 + n / (df[id] as number));
        ids.push(id);
        ws.push(w);
        norm += w * w;
      }
      norm = Math.sqrt(norm) || 1;
      // Terms in ascending id order, so another video's weight of a term is a binary search away.
      const order = ids.map((_, k) => k).sort((x, y) => (ids[x] as number) - (ids[y] as number));
      const terms = Int32Array.from(order, (k) => ids[k] as number);
      const weights = Float32Array.from(order, (k) => (ws[k] as number) / norm);
      terms.forEach((id, k) => {
        const list = lists[id] as { videos: number[]; weights: number[] };
        list.videos.push(i);
        list.weights.push(weights[k] as number);
      });
      return { terms, weights };
    });
    this.#postings = lists.map((l) => ({
      videos: Int32Array.from(l.videos),
      weights: Float32Array.from(l.weights),
    }));
    this.#scores = new Float32Array(n);
    this.#neighbours = new Array(n);
  }

  /** Whether a video's neighbours are computed already (a call of `neighbours` costs nothing then). */
  has(index: number): boolean {
    return this.#neighbours[index] !== undefined;
  }

  /** Weight of term `term` in video `j`'s vector (0 when absent). */
  #weightOf(j: number, term: number): number {
    const v = this.#vectors[j];
    if (!v) return 0;
    let lo = 0;
    let hi = v.terms.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const t = v.terms[mid] as number;
      if (t === term) return v.weights[mid] as number;
      if (t < term) lo = mid + 1;
      else hi = mid - 1;
    }
    return 0;
  }

  /**
   * The video's most similar other videos, best first (ties by pool index), at most NEIGHBOURS_KEPT.
   * Candidates come from the video's distinctive terms; a term that more than COMMON_SHARE of a large
   * pool has (say "video" in every title) adds to the candidates' scores but does not nominate
   * candidates, so a video costs what its distinctive terms cost, not the pool's size. Scores are
   * the exact cosine either way.
   */
  neighbours(index: number): readonly Neighbour[] {
    const { index: indices, score } = this.neighbourArrays(index);
    return Array.from(indices, (j, k) => ({ index: j, score: score[k] as number }));
  }

  /** `neighbours` as typed arrays (kept: the same arrays on every call). */
  neighbourArrays(index: number): { readonly index: Int32Array; readonly score: Float64Array } {
    const cached = this.#neighbours[index];
    if (cached) return cached;
    const vector = this.#vectors[index];
    if (!vector) return { index: new Int32Array(0), score: new Float64Array(0) };
    const scores = this.#scores;
    const touched: number[] = [];
    const maxPosting = Math.max(COMMON_MIN, Math.floor(this.#size * COMMON_SHARE));
    const common: number[] = [];
    const nominate = (k: number) => {
      const posting = this.#postings[vector.terms[k] as number];
      if (!posting) return;
      const w = vector.weights[k] as number;
      const { videos, weights } = posting;
      for (let p = 0; p < videos.length; p++) {
        const j = videos[p] as number;
        if (scores[j] === 0) touched.push(j);
        scores[j] = (scores[j] as number) + w * (weights[p] as number);
      }
    };
    for (let k = 0; k < vector.terms.length; k++) {
      const size = this.#postings[vector.terms[k] as number]?.videos.length ?? 0;
      if (size > maxPosting) common.push(k);
      else nominate(k);
    }
    if (touched.length === 0) {
      // Only common terms: let them nominate (rare; bounded by the pool).
      for (const k of common) nominate(k);
      common.length = 0;
    }
    const found: Neighbour[] = [];
    for (const j of touched) {
      let s = scores[j] as number;
      scores[j] = 0;
      for (const k of common)
        s += (vector.weights[k] as number) * this.#weightOf(j, vector.terms[k] as number);
      if (j !== index && s > 1e-6) found.push({ index: j, score: Math.min(1, s) });
    }
    found.sort((a, b) => b.score - a.score || a.index - b.index);
    const kept = found.length > NEIGHBOURS_KEPT ? found.slice(0, NEIGHBOURS_KEPT) : found;
    const arrays = {
      index: Int32Array.from(kept, (n) => n.index),
      score: Float64Array.from(kept, (n) => n.score),
    };
    this.#neighbours[index] = arrays;
    return arrays;
  }
}

const indices = new WeakMap<readonly VideoMetadata[], MetadataIndex>();

/** The metadata index of a list of videos (a pool's), built on first use and dropped with the list. */
export function metadataIndexOf(videos: readonly VideoMetadata[]): MetadataIndex {
  let index = indices.get(videos);
  if (!index) {
    index = new MetadataIndex(videos);
    indices.set(videos, index);
  }
  return index;
}
