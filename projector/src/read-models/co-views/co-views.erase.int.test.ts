import { rowsOf } from "@feedlab/sql";
import { describe, expect, it } from "vitest";
import { ALICE, BOB } from "../../logged-event.fixture.ts";
import {
  BACKENDS,
  eraseAndReplay,
  SIM,
  STORY_WITH_SIMULATED,
  summary,
  useReadModelDb,
} from "../read-model.fixture.ts";
import { coViewsProjection } from "./co-views.projection.ts";

describe.each(BACKENDS)("erasing a participant from co-views (%s)", (backend) => {
  const db = useReadModelDb(backend);

  it("takes one off each pair of their videos, drops pairs only they made and their videos, as a replay without them does", async () => {
    // Given Alice's and Bob's events (STORY), when projected and Alice is erased:
    const { before, erased, replayed } = await eraseAndReplay(db(), coViewsProjection, ALICE);
    expect(erased).toEqual(replayed);
    expect(before).not.toEqual(replayed);
    expect(summary(erased.co_views, ["video_a", "video_b", "count"])).toEqual([
      "v-B v-a 1",
      "v-B v-d 1",
      "v-a v-d 1",
    ]);
    expect(summary(before.co_views, ["video_a", "video_b", "count"])).toContain("v-B v-a 2");
    expect(summary(erased.co_view_videos, ["user_id", "video_id"])).toEqual([
      `${BOB} v-B`,
      `${BOB} v-a`,
      `${BOB} v-d`,
    ]);
  });

  // PGlite has only the C collation (the test above covers it there); the harness's PostgreSQL is
  // made with the C locale too, so this one gives the videos a collation where "v-a" < "v-B", as a
  // database made with a language's locale has, while the projection keys pairs by code unit.
  it.runIf(backend === "postgres")(
    "takes their pairs off under a collation that orders ids otherwise than the projection keys them",
    async (ctx) => {
      const icu = await db().raw("select 1 from pg_collation where collname = 'und-x-icu'");
      if (rowsOf(icu).length === 0) ctx.skip("this PostgreSQL has no ICU collations");
      await db().raw(
        `alter table co_view_videos alter column video_id type varchar(255) collate "und-x-icu"`,
      );
      const { erased, replayed } = await eraseAndReplay(db(), coViewsProjection, ALICE);
      expect(erased).toEqual(replayed);
    },
  );

  it("takes nothing off for a simulated participant, whose watches made no pairs", async () => {
    // Given the story with a simulated participant's watches among it, when they are erased:
    const { before, erased, replayed } = await eraseAndReplay(
      db(),
      coViewsProjection,
      SIM,
      STORY_WITH_SIMULATED,
    );
    expect(erased).toEqual(replayed);
    expect(before).toEqual(replayed);
  });

  it("takes a real participant's pairs off as a replay without them does, among a simulated participant's watches", async () => {
    const { erased, replayed } = await eraseAndReplay(db(), coViewsProjection, ALICE, STORY_WITH_SIMULATED);
    expect(erased).toEqual(replayed);
    expect(summary(erased.co_views, ["video_a", "video_b", "count"])).toEqual([
      "v-B v-a 1",
      "v-B v-d 1",
      "v-a v-d 1",
    ]);
  });
});
