import type { Experiment, Group, Video } from "@feedlab/schemas";
import type { VideoRow } from "../../api/src/videos/videos.service.ts";
import type { Client } from "./app.ts";

let counter = 0;

/** A video input with plausible metadata; `n` makes external ids and dates distinct. */
export function videoInput(n: number, extra: Record<string, unknown> = {}) {
  return {
    external_id: `vid-${n}-${++counter}`,
    url: `https://cdn.example.org/media/${n}.mp4`,
    title: `Video number ${n}`,
    channel_name: `Channel ${n % 3}`,
    category: "Education",
    tags: ["demo", `t${n}`],
    duration_seconds: 30 + n,
    view_count: 1000 * n,
    published_at: new Date(Date.UTC(2026, 0, 1 + n)).toISOString(),
    ...extra,
  };
}

/** `n` stored video rows as the database returns them (recommender tests build pools of them). */
export function videoRows(n: number, over: (i: number) => Partial<VideoRow> = () => ({})): VideoRow[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    external_id: `ext-${i}`,
    url: "",
    resolved_url: "",
    type: "native",
    title: `Video ${i}`,
    channel_name: null,
    category: null,
    description: null,
    tags: [],
    duration_seconds: null,
    view_count: null,
    thumbnail_url: null,
    published_at: new Date(Date.UTC(2026, 0, 1 + i)),
    comments: [],
    captions: [],
    created_at: new Date(Date.UTC(2026, 0, 1)),
    updated_at: new Date(Date.UTC(2026, 0, 1)),
    ...over(i),
  }));
}

async function ok<T>(p: Promise<{ status: number; body: unknown }>, status: number): Promise<T> {
  const r = await p;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body as T;
}

export interface StudyFixture {
  readonly experiment: Experiment;
  readonly groups: Group[];
  readonly videos: Video[];
}

/** An experiment with groups (weights given), a pool of `videoCount` videos, and the status given. */
export async function createStudy(
  admin: Client,
  options: { weights?: number[]; videoCount?: number; status?: string; name?: string } = {},
): Promise<StudyFixture> {
  const experiment = await ok<Experiment>(
    admin.post("/api/v1/admin/experiments", { name: options.name ?? "Study" }),
    201,
  );
  const groups: Group[] = [];
  for (const [i, weight] of (options.weights ?? [1, 1]).entries()) {
    groups.push(
      await ok<Group>(
        admin.post(`/api/v1/admin/experiments/${experiment.id}/groups`, {
          name: `Arm ${i + 1}`,
          weight,
          algorithm_config: { feed: "recency", watch: "recency" },
          ui_config: { feed: "grid-desktop", watch: "grid-desktop" },
        }),
        201,
      ),
    );
  }
  const count = options.videoCount ?? 5;
  const videos =
    count > 0
      ? (
          await ok<{ videos: Video[] }>(
            admin.post("/api/v1/admin/videos", {
              videos: Array.from({ length: count }, (_, i) => videoInput(i + 1)),
            }),
            201,
          )
        ).videos
      : [];
  await ok(
    admin.put(`/api/v1/admin/experiments/${experiment.id}/videos`, { video_ids: videos.map((v) => v.id) }),
    200,
  );
  if (options.status && options.status !== "draft") {
    await ok(admin.patch(`/api/v1/admin/experiments/${experiment.id}`, { status: options.status }), 200);
  }
  return { experiment, groups, videos };
}

/** The committed demo media (webm with a jpg poster each), served by the app under /media/demo. */
const DEMO_FILES = ["sourdough-basics", "lisbon-48-hours", "game-of-life-explained"] as const;

/** Adds the demo media as videos `<prefix>-<file>` titled "`<title>` 1..3", for browser tests that play them. */
export async function addDemoVideos(admin: Client, prefix: string, title: string): Promise<Video[]> {
  const r = await admin.post<{ videos: Video[] }>("/api/v1/admin/videos", {
    videos: DEMO_FILES.map((name, i) => ({
      external_id: `${prefix}-${name}`,
      url: `/media/demo/${name}.webm`,
      thumbnail_url: `/media/demo/${name}.jpg`,
      title: `${title} ${i + 1}`,
      duration_seconds: 25,
      published_at: new Date(Date.UTC(2026, 5, 1 + i)).toISOString(),
    })),
  });
  if (r.status !== 201)
    throw new Error(`adding the demo videos failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.videos;
}

/** An experiment with one arm "Arm" (recency, the grid presets) and the given pool, in the given status. */
export async function createArmStudy(
  admin: Client,
  name: string,
  videos: readonly Video[],
  status: "draft" | "running" | "completed" = "running",
): Promise<Experiment> {
  const experiment = (await admin.post<Experiment>("/api/v1/admin/experiments", { name })).body;
  await admin.post(`/api/v1/admin/experiments/${experiment.id}/groups`, {
    name: "Arm",
    algorithm_config: { feed: "recency", watch: "recency" },
    ui_config: { feed: "grid-desktop", watch: "grid-desktop" },
  });
  await admin.put(`/api/v1/admin/experiments/${experiment.id}/videos`, {
    video_ids: videos.map((v) => v.id),
  });
  if (status !== "draft") await admin.patch(`/api/v1/admin/experiments/${experiment.id}`, { status });
  return experiment;
}

/** A code layout of the feed page that compiles: every card in a feed surface. */
export const FEED_SOURCE = `import { useFeed } from "@feedlab/data";
import { FeedSurface, VideoSurface } from "@feedlab/surfaces";

export default function Feed() {
  const feed = useFeed();
  return (
    <FeedSurface>
      {feed.items.map((video, i) => <VideoSurface key={video.id} video={video} position={i} />)}
    </FeedSurface>
  );
}
`;
