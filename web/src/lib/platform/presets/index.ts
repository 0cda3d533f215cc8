import type { ComponentType } from "preact";
import type { FeedLayoutProps, WatchLayoutProps } from "../data.ts";

type Device = "desktop" | "tablet" | "mobile";

/** One page of a style family: its layout for each device variant. */
interface FamilyPage<Props> {
  readonly default: Readonly<Record<Device, ComponentType<Props>>>;
}

/**
 * The two neutral style families, one chunk per page: the feed page never downloads the watch page's
 * layout (nor the watch page the feed's).
 */
const FAMILIES = {
  grid: {
    feed: (): Promise<FamilyPage<FeedLayoutProps>> => import("./grid-feed.tsx"),
    watch: (): Promise<FamilyPage<WatchLayoutProps>> => import("./grid-watch.tsx"),
  },
  list: {
    feed: (): Promise<FamilyPage<FeedLayoutProps>> => import("./list-feed.tsx"),
    watch: (): Promise<FamilyPage<WatchLayoutProps>> => import("./list-watch.tsx"),
  },
};

/**
 * The six bundled presets (spec: UI resolution; api.md `GET /api/v1/admin/ui-presets`), two style
 * families in three device variants, keyed `<style>-<device>`. Each page loads on demand: a participant
 * downloads only the page of the preset their group uses.
 */
const PRESETS = {
  "grid-desktop": ["grid", "desktop"],
  "grid-tablet": ["grid", "tablet"],
  "grid-mobile": ["grid", "mobile"],
  "list-desktop": ["list", "desktop"],
  "list-tablet": ["list", "tablet"],
  "list-mobile": ["list", "mobile"],
} as const satisfies Record<string, readonly [keyof typeof FAMILIES, Device]>;

export type PresetKey = keyof typeof PRESETS;
export const PRESET_KEYS = Object.keys(PRESETS) as PresetKey[];
/** The UI key that bypasses a page (feed: straight to the first video; watch: the bare player). */
export const UI_NONE = "none";
/**
 * The plain layout a template falls back to when it throws while rendering (it renders through the
 * same surfaces, so the page keeps tracking).
 */
export const FALLBACK_PRESET: PresetKey = "grid-desktop";

const isPresetKey = (key: string): key is PresetKey => Object.hasOwn(PRESETS, key);

export type Page = "feed" | "watch";
/** A layout component of one page. */
export type Layout = ComponentType<FeedLayoutProps> | ComponentType<WatchLayoutProps>;

/**
 * Resolves UI keys the presets do not know (the other authoring tracks: a ui_templates UUID). Returns
 * null for keys it does not handle.
 */
export type LayoutResolver = (key: string, page: Page) => Promise<Layout> | null;
const resolvers: LayoutResolver[] = [];

/** Lets another authoring track (code, blocks) render its UI keys through the same host. */
export function registerLayoutResolver(resolver: LayoutResolver): void {
  resolvers.push(resolver);
}

/**
 * The layout component for a page's UI key (spec: UI resolution): a preset key loads that preset,
 * `none` on the watch page is the bare player (the feed's `none` redirects before it renders), and
 * other keys go to the registered resolvers. A key nothing resolves is an error, never another layout
 * in its place: the researcher must see that the group's UI does not exist.
 */
export async function loadLayout(key: string, page: Page): Promise<Layout> {
  if (key === UI_NONE) return (await import("./none.tsx")).default[page];
  if (isPresetKey(key)) return loadPreset(key, page);
  for (const resolve of resolvers) {
    const layout = resolve(key, page);
    if (layout) return layout;
  }
  throw new Error(`No layout for the UI key "${key}" of the ${page} page.`);
}

async function loadPreset(key: PresetKey, page: Page): Promise<Layout> {
  const [family, device] = PRESETS[key];
  return (await FAMILIES[family][page]()).default[device];
}
