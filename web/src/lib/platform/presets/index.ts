import type { ComponentType } from "preact";
import type { FeedLayoutProps, WatchLayoutProps } from "../data.ts";

/** A bundled preset: the feed page and the watch page of one style and device. */
export interface PresetModule {
  readonly feed: ComponentType<FeedLayoutProps>;
  readonly watch: ComponentType<WatchLayoutProps>;
}

/**
 * The six bundled presets (spec: UI resolution; api.md `GET /api/v1/admin/ui-presets`), two neutral
 * style families in three device variants, keyed `<style>-<device>`. Each loads on demand: a
 * participant downloads only the preset their group uses.
 */
const PRESETS = {
  "grid-desktop": () => import("./grid-desktop.tsx"),
  "grid-tablet": () => import("./grid-tablet.tsx"),
  "grid-mobile": () => import("./grid-mobile.tsx"),
  "list-desktop": () => import("./list-desktop.tsx"),
  "list-tablet": () => import("./list-tablet.tsx"),
  "list-mobile": () => import("./list-mobile.tsx"),
} satisfies Record<string, () => Promise<{ default: PresetModule }>>;

export type PresetKey = keyof typeof PRESETS;
export const PRESET_KEYS = Object.keys(PRESETS) as PresetKey[];
/** The UI key that bypasses a page (feed: straight to the first video; watch: the bare player). */
export const UI_NONE = "none";
/** What renders a UI key nothing else resolves (a template the server no longer has, say). */
export const FALLBACK_PRESET: PresetKey = "grid-desktop";

export const isPresetKey = (key: string): key is PresetKey => Object.hasOwn(PRESETS, key);

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
 * other keys go to the registered resolvers, else the fallback preset.
 */
export async function loadLayout(key: string, page: Page): Promise<Layout> {
  if (key === UI_NONE) return (await import("./none.tsx")).default[page];
  if (isPresetKey(key)) return (await PRESETS[key]()).default[page];
  for (const resolve of resolvers) {
    const layout = resolve(key, page);
    if (layout) return layout;
  }
  console.warn(`feedlab: no layout for UI key "${key}"; showing the ${FALLBACK_PRESET} preset`);
  return (await PRESETS[FALLBACK_PRESET]()).default[page];
}
