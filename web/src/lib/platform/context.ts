import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Video } from "../types.ts";
import type { PlatformRuntime } from "./runtime.ts";
import type { TrackedItem } from "./tracking/samplers.ts";

/** The runtime of the session, put in the tree by the layout host. */
export const RuntimeContext = createContext<PlatformRuntime | null>(null);

export function useRuntime(): PlatformRuntime {
  const runtime = useContext(RuntimeContext);
  if (!runtime) {
    throw new Error(
      "Feedlab: the platform hooks and surfaces work inside a layout mounted by the platform host.",
    );
  }
  return runtime;
}

/** The page a card lives on, provided by FeedSurface and WatchSurface to the VideoSurfaces inside. */
export interface SurfaceContextValue {
  readonly pageType: "feed" | "watch";
  /** The watch page's video (VIDEO_CLICK's `fromVideoId`); null on the feed. */
  readonly video: Video | null;
  /** Follows a card's visibility (VIEWPORT_VISIBILITY, IMPRESSION); returns the function that stops it. */
  observe(element: Element, item: TrackedItem, onImpression: () => void): () => void;
}

export const SurfaceContext = createContext<SurfaceContextValue | null>(null);
