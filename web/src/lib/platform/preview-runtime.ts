import { ParticipantApi } from "../participant-api.ts";
import type { FeedPage, Video } from "../types.ts";
import { PlatformRuntime } from "./runtime.ts";
import { TrackingCore } from "./tracking/core.ts";
import { memoryStore } from "./tracking/storage.ts";

/** One event the preview would have sent. */
export interface PreviewEvent {
  readonly event_type: string;
  readonly video_id?: string;
  readonly position_in_feed?: number;
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

function page(videos: readonly Video[], url: URL): FeedPage {
  const limit = Number(url.searchParams.get("limit") ?? 20);
  const offset = Number(url.searchParams.get("offset") ?? 0);
  // The preview's ranking (newest first) is deterministic.
  const items = videos.slice(offset, offset + limit).map((v) => ({ ...v, propensity: 1 }));
  const more = offset + limit < videos.length;
  return { items, has_more: more, next_offset: more ? offset + limit : null, recommender: "preview" };
}

/**
 * A platform runtime for the editor's preview: the real surfaces and hooks, served from the
 * experiment's pool in the browser (newest first, nothing excluded) by a client that never reaches
 * the participant endpoints, and a tracking core whose batches go to `onEvents` instead of the
 * server. Nothing the preview does is stored as study data.
 */
export function previewRuntime(
  videos: readonly Video[],
  onEvents: (events: PreviewEvent[]) => void,
): PlatformRuntime {
  const sessionId = crypto.randomUUID();
  const fetchFn = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    // The preview's document has an origin of its own (sandboxed): only the path matters here.
    const url = new URL(String(input), "http://preview.invalid");
    if (url.pathname === "/api/v1/events") {
      const body = JSON.parse(String(init?.body ?? "{}")) as { events?: PreviewEvent[] };
      onEvents(body.events ?? []);
      return json({ accepted: body.events?.length ?? 0, rejected: [], position: "p1." }, 202);
    }
    if (url.pathname === "/feed") return json(page(videos, url));
    const related = /^\/feed\/([^/]+)\/related$/.exec(url.pathname);
    if (related)
      return json(
        page(
          videos.filter((v) => v.id !== related[1]),
          url,
        ),
      );
    const video = /^\/api\/v1\/videos\/([^/]+)$/.exec(url.pathname);
    if (video) {
      const found = videos.find((v) => v.id === video[1]);
      return found ? json(found) : json({ error: { code: "not_found", message: "No such video." } }, 404);
    }
    return json({ error: { code: "not_found", message: "Not part of the preview." } }, 404);
  };
  const core = new TrackingCore({
    sessionId,
    fetch: (url, init) => fetchFn(url, init),
    sendBeacon: () => true,
    sessionStore: memoryStore(),
    localStore: memoryStore(),
  });
  return new PlatformRuntime(
    {
      user_id: "00000000-0000-4000-8000-000000000000",
      login_id: "preview",
      experiment_id: "00000000-0000-4000-8000-000000000000",
      experiment_status: "running",
      group_id: "00000000-0000-4000-8000-000000000000",
      algorithm_config: { feed: "preview", watch: "preview" },
      ui_config: { feed: "preview", watch: "preview" },
      language: "en",
    },
    sessionId,
    core,
    new ParticipantApi(fetchFn),
  );
}
