/** Pieces both bundled style families use. Like the presets, it imports only `react`. */

import type { VideoList } from "@feedlab/data";
import { useEffect, useRef } from "react";

const HUES = [4, 24, 45, 140, 168, 200, 220, 262, 291, 330];

/** A stable colour per channel for its initial, as video sites show a channel avatar. */
export function Avatar({ name }: { name: string | null }) {
  const label = name?.trim() || "?";
  let hash = 0;
  for (const ch of label) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  const hue = HUES[hash % HUES.length] ?? 220;
  return (
    <span className="fx-avatar" aria-hidden="true" style={{ background: `hsl(${hue} 55% 42%)` }}>
      {label.slice(0, 1).toUpperCase()}
    </span>
  );
}

export function ThumbUp() {
  return (
    <svg viewBox="0 0 24 24" aria-hidden="true">
      <path d="M2 21h4V9H2v12zm20-11a2 2 0 0 0-2-2h-6.3l1-4.6v-.3c0-.4-.2-.8-.4-1.1L13.2 1 6.6 7.6C6.2 8 6 8.5 6 9v10a2 2 0 0 0 2 2h9c.8 0 1.5-.5 1.8-1.2l3-7.1c.1-.2.2-.5.2-.7v-2z" />
    </svg>
  );
}

export function ThumbDown() {
  return (
    <svg viewBox="0 0 24 24" aria-hidden="true">
      <path d="M15 3H6c-.8 0-1.5.5-1.8 1.2l-3 7.1c-.1.2-.2.5-.2.7v2a2 2 0 0 0 2 2h6.3l-1 4.6v.3c0 .4.2.8.4 1.1l1.1 1 6.6-6.6c.4-.4.6-.9.6-1.4V5a2 2 0 0 0-2-2zm4 0v12h4V3h-4z" />
    </svg>
  );
}

/** Loads the next page as the end of the list comes near (with a button for keyboards). */
export function useMoreOnScroll(list: VideoList) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el || !list.hasMore) return;
    const io = new IntersectionObserver(([entry]) => entry?.isIntersecting && list.loadMore(), {
      rootMargin: "0px 0px 200px 0px",
    });
    io.observe(el);
    return () => io.disconnect();
  }, [list.hasMore, list.loadMore, list.items.length]);
  return ref;
}
