import { readFileSync } from "node:fs";
import path from "node:path";
import type { Experiment } from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import type { Logger } from "pino";
import type { ExperimentsService } from "../experiments/experiments.service.ts";
import { experimentExists } from "../experiments/queries/experiments.queries.ts";
import type { GroupsService } from "../groups/groups.service.ts";
import { setSettingOnce, settingOf } from "../packages/queries/settings.queries.ts";
import { videoIdsByExternalId } from "../videos/queries/videos.queries.ts";
import { importVideos, parseImport } from "../videos/videos.import.ts";
import type { VideosService } from "../videos/videos.service.ts";

/** Where the committed demo media and their metadata live. */
const DEMO_DIR = path.resolve(import.meta.dirname, "../../demo");
export const DEMO_MEDIA_DIR = path.join(DEMO_DIR, "media");
const SEED_KEY = "demo_seed";

export interface DemoDeps {
  readonly db: Db;
  readonly log: Logger;
  readonly experiments: ExperimentsService;
  readonly groups: GroupsService;
  readonly videos: VideosService;
}

/**
 * Seeds the running demo study once per database: its videos, a running experiment with two arms
 * and the pool. A marker in app_settings makes later starts seed nothing, even if the admin has
 * since deleted or changed the demo.
 */
export async function seedDemo(deps: DemoDeps): Promise<{ experiment: Experiment; seeded: boolean } | null> {
  const { db, log, experiments, groups, videos } = deps;
  const marker = await settingOf<{ experiment_id?: string }>(db, SEED_KEY);
  if (marker) {
    const id = marker.value?.experiment_id;
    const exists = id ? await experimentExists(db, id) : false;
    return exists && id ? { experiment: await experiments.get(id), seeded: false } : null;
  }
  const parsed = parseImport(readFileSync(path.join(DEMO_DIR, "videos.json"), "utf8"), "json");
  const summary = await importVideos(videos, parsed.rows);
  if (summary.rejected.length > 0)
    log.warn({ rejected: summary.rejected }, "some demo videos were not imported");
  const externalIds = (parsed.rows as { external_id: string }[]).map((r) => r.external_id);
  const poolRows = await videoIdsByExternalId(db, externalIds);
  const order = new Map(externalIds.map((id, i) => [id, i]));
  poolRows.sort((a, b) => (order.get(a.external_id) ?? 0) - (order.get(b.external_id) ?? 0));

  const experiment = await experiments.create(
    {
      name: "Demo study: feed layouts and ranking",
      description:
        "A running demo with two arms: newest-first in a grid, and a random order in a list. Join as a participant, watch, and look at what the study records.",
    },
    "running",
  );
  await groups.create(experiment.id, {
    name: "Arm A: recency, grid",
    algorithm_config: { feed: "recency", watch: "recency" },
    ui_config: { feed: "grid-desktop", watch: "grid-desktop" },
  });
  await groups.create(experiment.id, {
    name: "Arm B: random, list",
    algorithm_config: { feed: "random", watch: "random" },
    ui_config: { feed: "list-desktop", watch: "list-desktop" },
  });
  await videos.setPool(
    experiment.id,
    poolRows.map((r) => r.id),
  );
  await setSettingOnce(db, SEED_KEY, { experiment_id: experiment.id }, new Date());
  log.info({ experiment_id: experiment.id, videos: poolRows.length }, "demo study seeded");
  return { experiment, seeded: true };
}
