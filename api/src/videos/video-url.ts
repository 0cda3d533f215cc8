import type { VideoType } from "@feedlab/schemas";

export interface ResolvedUrl {
  readonly type: VideoType;
  readonly resolved_url: string;
}

const YOUTUBE_ID = /^[A-Za-z0-9_-]{11}$/;

/**
 * Classifies a video URL: YouTube and Vimeo pages resolve to the provider's embeddable player URL;
 * anything else (a direct media file, absolute or on this server) is `native` and plays as is.
 */
export function resolveVideoUrl(url: string): ResolvedUrl {
  let u: URL;
  try {
    u = new URL(url, "http://local.invalid");
  } catch {
    return { type: "native", resolved_url: url };
  }
  const host = u.hostname.replace(/^(www\.|m\.)/, "");
  if (host === "youtube.com" || host === "youtube-nocookie.com" || host === "youtu.be") {
    let id: string | null = null;
    if (host === "youtu.be") id = u.pathname.slice(1).split("/")[0] ?? null;
    else if (u.pathname === "/watch") id = u.searchParams.get("v");
    else {
      const m = u.pathname.match(/^\/(embed|shorts|live|v)\/([^/?#]+)/);
      id = m?.[2] ?? null;
    }
    if (id && YOUTUBE_ID.test(id))
      return { type: "youtube", resolved_url: `https://www.youtube.com/embed/${id}` };
  }
  if (host === "vimeo.com" || host === "player.vimeo.com") {
    const m = u.pathname.match(/(?:^|\/)(\d{5,})(?:$|\/)/);
    if (m?.[1]) return { type: "vimeo", resolved_url: `https://player.vimeo.com/video/${m[1]}` };
  }
  return { type: "native", resolved_url: url };
}
