/** A recommender record as the registry presents it (spec: "Recommender record (registry)"). */
export interface RecommenderRecord {
  readonly key: string;
  /** `builtin` for the five built-ins (api.md), `external_http` for registered services. */
  readonly kind: "builtin" | "external_http";
  readonly label: string;
  readonly description: string;
  readonly category: string;
  readonly supports_feed: boolean;
  readonly supports_watch: boolean;
  readonly config: Readonly<Record<string, unknown>>;
  /** Null for a built-in whose texts were never changed. */
  readonly created_at: string | null;
  readonly updated_at: string | null;
}

/**
 * The five built-in keys of the spec. They exist in every deployment, serve both pages, and cannot
 * be deleted; an admin may change their label, description and category only (spec rule 3).
 */
export const BUILTIN_RECOMMENDERS: readonly RecommenderRecord[] = [
  {
    key: "random",
    kind: "builtin",
    label: "Random",
    description:
      "A random order of the pool, fixed per participant session: pages never repeat and a reload shows the same order.",
    category: "baseline",
    supports_feed: true,
    supports_watch: true,
    config: {},
    created_at: null,
    updated_at: null,
  },
  {
    key: "popularity",
    kind: "builtin",
    label: "Popularity",
    description: "Most played videos in this experiment first (VIDEO_PLAY counts, autoplay included).",
    category: "baseline",
    supports_feed: true,
    supports_watch: true,
    config: {},
    created_at: null,
    updated_at: null,
  },
  {
    key: "recency",
    kind: "builtin",
    label: "Recency",
    description: "Newest videos first, by publication date.",
    category: "baseline",
    supports_feed: true,
    supports_watch: true,
    config: {},
    created_at: null,
    updated_at: null,
  },
  {
    key: "similarity",
    kind: "builtin",
    label: "Similarity",
    description:
      "Item-to-item similarity from video metadata, blended with co-views once they exist. Feed: similar to the participant's recent watches, else popularity.",
    category: "content",
    supports_feed: true,
    supports_watch: true,
    config: {},
    created_at: null,
    updated_at: null,
  },
  {
    key: "learned_model",
    kind: "builtin",
    label: "Learned model",
    description:
      "Trained on this study's events. Feed: collaborative filtering, then popularity, then recency. Watch: item-to-item similarity, then popularity.",
    category: "learned",
    supports_feed: true,
    supports_watch: true,
    config: {},
    created_at: null,
    updated_at: null,
  },
];

const BUILTIN_KEYS: ReadonlySet<string> = new Set(BUILTIN_RECOMMENDERS.map((r) => r.key));

export const isBuiltinKey = (key: string) => BUILTIN_KEYS.has(key);
