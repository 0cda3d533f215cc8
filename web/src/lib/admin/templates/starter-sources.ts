import gridFeed from "#lib/platform/presets/grid-feed.tsx?raw";
import gridParts from "#lib/platform/presets/grid-parts.tsx?raw";
import gridWatch from "#lib/platform/presets/grid-watch.tsx?raw";
import listFeed from "#lib/platform/presets/list-feed.tsx?raw";
import listParts from "#lib/platform/presets/list-parts.tsx?raw";
import listWatch from "#lib/platform/presets/list-watch.tsx?raw";
import shared from "#lib/platform/presets/shared.tsx?raw";
import { starterSource } from "#lib/platform/presets/starters.ts";

const FILES = {
  grid: { parts: gridParts, feed: gridFeed, watch: gridWatch },
  list: { parts: listParts, feed: listFeed, watch: listWatch },
} as const;

/** The bundled presets' keys, as the editor offers them to start from. */
export const STARTER_PRESETS = ["grid", "list"].flatMap((family) =>
  ["desktop", "tablet", "mobile"].map((device) => `${family}-${device}`),
);

/** A preset page as a self-contained template source (see starters.ts). */
export function presetStarter(preset: string, page: "feed" | "watch"): string {
  const [family, device] = preset.split("-") as [keyof typeof FILES, string];
  const files = FILES[family];
  return starterSource({ shared, parts: files.parts, page: files[page] }, preset, page, device);
}
