/**
 * The visual track's 19 blocks (spec: Authoring tracks): what each is, its props with their types and
 * defaults, and what it may contain. One catalog for the server (validating a tree on save and
 * exporting it as TSX), the console's block editor (palette and props panel) and the docs; the
 * components themselves are `@feedlab/blocks` in the participant runtime. Beside it: `check-tree.ts`
 * (validation of a tree), `tree-to-tsx.ts` (its export as code) and `starter-tree.ts` (a new layout).
 */

/** One prop of a block: its type, default, and what the props panel shows. */
export type BlockProp =
  | { readonly type: "string"; readonly default: string; readonly label: string; readonly maxLength?: number }
  | {
      readonly type: "number";
      readonly default: number;
      readonly label: string;
      readonly min: number;
      readonly max: number;
    }
  | { readonly type: "boolean"; readonly default: boolean; readonly label: string }
  | {
      readonly type: "enum";
      readonly default: string;
      readonly label: string;
      readonly values: readonly string[];
    };

/**
 * What a block may contain: `none`; `blocks` (any block but Page); `card` (VideoList: the parts
 * of each video's card, which show that card's video).
 */
type BlockChildren = "none" | "blocks" | "card";

export interface BlockSpec {
  readonly group: "layout" | "videos" | "video" | "page";
  readonly summary: string;
  readonly props: Readonly<Record<string, BlockProp>>;
  readonly children: BlockChildren;
  /** Shows one video's data: inside a VideoList card, or on the watch page (its video). */
  readonly video?: boolean;
  /** May be a part of a VideoList card. */
  readonly inCard?: boolean;
  /** Only on the watch page, outside cards. */
  readonly watchOnly?: boolean;
}

type PropOf<K extends BlockProp["type"]> = Extract<BlockProp, { readonly type: K }>;

const text = (label: string, value: string, maxLength = 2000): PropOf<"string"> => ({
  type: "string",
  default: value,
  label,
  maxLength,
});
const num = (label: string, value: number, min: number, max: number): PropOf<"number"> => ({
  type: "number",
  default: value,
  label,
  min,
  max,
});
const flag = (label: string, value: boolean): PropOf<"boolean"> => ({
  type: "boolean",
  default: value,
  label,
});
/** An enum prop; its type keeps its values (`BlockProps` gives the union of them). */
const choice = <const V extends readonly [string, ...string[]]>(
  label: string,
  values: V,
  value: V[number] = values[0],
): PropOf<"enum"> & { readonly default: V[number]; readonly values: V } => ({
  type: "enum",
  default: value,
  label,
  values,
});

export const BLOCKS = {
  // Layout
  Page: {
    group: "layout",
    summary: "The whole page (always the root): its surface, width and colours.",
    props: {
      maxWidth: num("Maximum width (px)", 1280, 320, 3840),
      padding: num("Padding (px)", 16, 0, 96),
      theme: choice("Theme", ["light", "dark"]),
    },
    children: "blocks",
  },
  Stack: {
    group: "layout",
    summary: "Blocks one after another, down the page or side by side.",
    props: {
      direction: choice("Direction", ["vertical", "horizontal"]),
      gap: num("Gap (px)", 12, 0, 96),
      align: choice("Align", ["stretch", "start", "center", "end"]),
    },
    children: "blocks",
  },
  Grid: {
    group: "layout",
    summary: "Blocks in columns that wrap (as many as fit, or a fixed number).",
    props: {
      columns: num("Columns (0: as many as fit)", 0, 0, 12),
      minColumnWidth: num("Minimum column width (px)", 240, 80, 1200),
      gap: num("Gap (px)", 16, 0, 96),
    },
    children: "blocks",
  },
  SplitColumn: {
    group: "layout",
    summary:
      "Two columns: the first block on the left, the others stacked on the right; one column on narrow screens.",
    props: {
      ratio: choice("Width of the left column to the right", ["2:1", "3:1", "1:1", "1:2"]),
      gap: num("Gap (px)", 24, 0, 96),
    },
    children: "blocks",
  },
  Tabs: {
    group: "layout",
    summary: "One tab per block inside; the participant switches between them.",
    props: { titles: text("Tab titles, separated by commas", "Videos, About", 500) },
    children: "blocks",
  },
  Divider: {
    group: "page",
    summary: "A thin line between sections, with space around it.",
    props: { spacing: num("Space above and below (px)", 16, 0, 96) },
    children: "none",
  },
  Text: {
    group: "page",
    summary: "A heading, a paragraph or a highlighted note: instructions for participants.",
    props: {
      text: text("Text", "Pick a video you would like to watch."),
      style: choice("Style", ["paragraph", "heading", "note"]),
    },
    children: "none",
  },
  // Videos
  VideoList: {
    group: "videos",
    summary:
      "The recommended videos (the arm's feed or watch recommender) as cards; the blocks inside make up each card.",
    props: {
      source: choice("Videos", ["feed", "related"]),
      title: text("Heading (for screen readers when hidden)", "Recommended videos", 120),
      showTitle: flag("Show the heading", false),
      layout: choice("Cards", ["grid", "list"]),
      pageSize: num("Videos per load", 12, 1, 50),
      more: choice("More videos", ["on scroll", "button", "none"]),
    },
    children: "card",
  },
  // One video's parts
  Thumbnail: {
    group: "video",
    summary: "The video's thumbnail image, with its duration.",
    props: { showDuration: flag("Show the duration", true) },
    children: "none",
    video: true,
    inCard: true,
  },
  Title: {
    group: "video",
    summary: "The video's title.",
    props: { size: choice("Size", ["medium", "small", "large"]) },
    children: "none",
    video: true,
    inCard: true,
  },
  Channel: {
    group: "video",
    summary: "The channel's name, with an avatar.",
    props: { showAvatar: flag("Show the avatar", true) },
    children: "none",
    video: true,
    inCard: true,
  },
  Views: {
    group: "video",
    summary: 'The view count ("12K views").',
    props: {},
    children: "none",
    video: true,
    inCard: true,
  },
  Published: {
    group: "video",
    summary: 'When the video was published ("3 months ago" or the date).',
    props: { format: choice("Format", ["relative", "date"]) },
    children: "none",
    video: true,
    inCard: true,
  },
  Tags: {
    group: "video",
    summary: "The video's tags (#topic).",
    props: { max: num("At most", 5, 1, 50) },
    children: "none",
    video: true,
    inCard: true,
  },
  Description: {
    group: "video",
    summary: "The video's description, optionally folded to two lines.",
    props: { collapsed: flag("Folded, with Show more", false) },
    children: "none",
    video: true,
    inCard: true,
  },
  Likes: {
    group: "video",
    summary: "Like and Dislike buttons for the watch page's video (LIKE, DISLIKE).",
    props: { showDislike: flag("Show Dislike", true) },
    children: "none",
    video: true,
    watchOnly: true,
  },
  Actions: {
    group: "video",
    summary:
      "A row of actions under the player: the channel on the left, the blocks inside (Likes) on the right.",
    props: { showChannel: flag("Show the channel", true) },
    children: "blocks",
    video: true,
    watchOnly: true,
  },
  Comments: {
    group: "video",
    summary: "The video's comments.",
    props: { limit: num("At most", 20, 1, 200), title: text("Heading", "Comments", 120) },
    children: "none",
    video: true,
    watchOnly: true,
  },
  Player: {
    group: "video",
    summary: "The video player of the watch page (all playback events).",
    props: { autoplay: flag("Start playing on open", true) },
    children: "none",
    video: true,
    watchOnly: true,
  },
} as const satisfies Record<string, BlockSpec>;

export type BlockType = keyof typeof BLOCKS;
export const BLOCK_TYPES = Object.keys(BLOCKS) as BlockType[];

/** The value of a prop in code: one of an enum's values, else its type's (string, number, boolean). */
type PropValue<P> = P extends { readonly type: "enum"; readonly values: readonly (infer V)[] }
  ? V
  : P extends BlockProp
    ? P["default"]
    : never;

/**
 * A block's props as its component (`@feedlab/blocks`) takes them, derived from the catalog: each
 * optional, its default standing in when absent.
 */
export type BlockProps<T extends BlockType> = {
  [K in keyof (typeof BLOCKS)[T]["props"]]?: PropValue<(typeof BLOCKS)[T]["props"][K]>;
};

/** A node of a block tree (api.md: `{type, props?, children?}`). */
export interface BlockNode {
  readonly type: string;
  readonly props?: Readonly<Record<string, unknown>>;
  readonly children?: readonly BlockNode[];
}
