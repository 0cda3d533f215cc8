/**
 * What the blocks share: each block's props over the catalog's defaults, the page being rendered and
 * the video a video block shows (its card's, else the watch page's).
 */
import { type MessageKey, t, type Video } from "@feedlab/data";
import { BLOCKS, type BlockProps, type BlockType } from "@feedlab/schemas/ui/blocks/catalog.ts";
import type { ComponentChildren } from "preact";
import { createContext, useContext } from "react";

export interface WithChildren {
  readonly children?: ComponentChildren;
}

/** Each block's props with every one set: as given, else the catalog's default. */
export type Settings<T extends BlockType> = Required<BlockProps<T>>;

/** Each block's prop defaults, read from the catalog once (cards render them many times). */
const DEFAULTS = Object.fromEntries(
  Object.entries(BLOCKS).map(([type, spec]) => [
    type,
    Object.fromEntries(Object.entries(spec.props).map(([name, prop]) => [name, prop.default])),
  ]),
) as { [T in BlockType]: Settings<T> };

/**
 * The catalog's default texts a participant reads, as messages: a block that leaves them unset shows
 * them in the participant's language (a researcher's own text stays as written).
 */
const DEFAULT_TEXTS: Partial<Record<BlockType, Readonly<Record<string, MessageKey>>>> = {
  Tabs: { titles: "blocks.default.tabTitles" },
  Text: { text: "blocks.default.text" },
  VideoList: { title: "blocks.default.listTitle" },
  Comments: { title: "blocks.default.commentsTitle" },
};

/** A block's props as given, over the catalog's defaults (its texts in the participant's language). */
export function withDefaults<T extends BlockType>(type: T, given: BlockProps<T>): Settings<T> {
  const keys: Readonly<Record<string, MessageKey>> = DEFAULT_TEXTS[type] ?? {};
  const texts = Object.entries(keys).map(([prop, key]) => [prop, t(key)]);
  return { ...DEFAULTS[type], ...Object.fromEntries(texts), ...given };
}

interface PageContextValue {
  readonly page: "feed" | "watch";
  readonly videoId: string | null;
  readonly video: Video | null;
}
export const PageContext = createContext<PageContextValue>({ page: "feed", videoId: null, video: null });

/**
 * The video of the card being rendered (inside a VideoList), if any, and the level of its title's
 * heading: one below the list's heading.
 */
export const CardContext = createContext<{ video: Video; position: number; titleLevel?: 2 | 3 } | null>(null);

/**
 * Shows `video` in the video blocks inside it (Title, Thumbnail, ...), as a VideoList card does: for
 * code templates that get a video from a hook of their own.
 */
export function VideoScope({
  video,
  position = 0,
  children,
}: { video: Video; position?: number } & WithChildren) {
  return <CardContext.Provider value={{ video, position }}>{children}</CardContext.Provider>;
}

/** The video a video block shows: its card's, else the watch page's. */
export function useShownVideo(): { video: Video | null; inCard: boolean; titleLevel: 2 | 3 } {
  const card = useContext(CardContext);
  const page = useContext(PageContext);
  return card
    ? { video: card.video, inCard: true, titleLevel: card.titleLevel ?? 3 }
    : { video: page.video, inCard: false, titleLevel: 3 };
}
