// What the study benchmarks (results, big-study) seed alike, straight into the tables: a running
// experiment and its arms, and the evaluation read model as the projector leaves it for their events.
import { randomUUID } from "node:crypto";
import type { Db } from "../../api/src/db/db.ts";

/** A running experiment named `name` with `arms` arms (popularity on the feed, similarity on watch). */
export async function insertStudy(db: Db, name: string, arms: number) {
  const experiment = randomUUID();
  await db("experiments").insert({ id: experiment, name, status: "running" });
  const groups = Array.from({ length: arms }, (_, i) => ({
    id: randomUUID(),
    experiment_id: experiment,
    name: `Arm ${i + 1}`,
    algorithm_feed: "popularity",
    algorithm_watch: "similarity",
    ui_feed: "grid-desktop",
    ui_watch: "grid-desktop",
  }));
  await db("groups").insert(groups);
  return { experiment, groups };
}

/** The evaluation counts of the experiment's events, as the projector makes them. */
export async function insertEvaluationCounts(db: Db, experiment: string): Promise<void> {
  await db.raw(
    `insert into evaluation_counts (experiment_id, group_id, user_id, surface, recommender, impressions,
       feed_clicks, plays, completions, likes, last_at)
     select experiment_id, group_id, user_id,
       case when event_type in ('IMPRESSION', 'FEED_CLICK') then 'feed' else 'watch' end,
       case when event_type in ('IMPRESSION', 'FEED_CLICK') then 'popularity' else 'similarity' end,
       count(*) filter (where event_type = 'IMPRESSION'), count(*) filter (where event_type = 'FEED_CLICK'),
       count(*) filter (where event_type = 'VIDEO_PLAY'), count(*) filter (where event_type = 'VIDEO_ENDED'),
       count(*) filter (where event_type = 'LIKE'), max(received_at)
     from events where experiment_id = ? and event_type <> 'VIDEO_PROGRESS'
     group by 1, 2, 3, 4, 5`,
    [experiment],
  );
}
