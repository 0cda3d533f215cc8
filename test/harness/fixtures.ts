import type { Experiment, Group, Video } from "@feedlab/schemas";
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
