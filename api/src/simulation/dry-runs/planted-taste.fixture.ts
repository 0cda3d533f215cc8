import type { DryRun, Experiment } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Backend, type Client, startTestApp, type TestApp } from "../../../../test/harness/app.ts";

const CATEGORIES = ["Cooking", "Travel", "Science", "Music", "Sports", "Gaming"] as const;
const PER_CATEGORY = 12;

/** Polls a dry run until it is done or failed. */
async function finished(admin: Client, experimentId: string, runId: string): Promise<DryRun> {
  const until = Date.now() + 300_000;
  for (;;) {
    const r = await admin.get<DryRun>(`/api/v1/admin/experiments/${experimentId}/dry-runs/${runId}`);
    if (r.body.status === "done" || r.body.status === "failed") return r.body;
    if (Date.now() > until) throw new Error(`dry run still ${r.body.status} after 5 minutes`);
    await new Promise((res) => setTimeout(res, 500));
  }
}

/**
 * Issue 36, "Learning shows": simulated participants whose tastes favour a few of the pool's categories
 * and tags (each seed plants one), a seeded HTTP dry run of arms random, popularity and learned_model;
 * the learned model is trained between visits on the dry run's own events and serves only the
 * simulated participants. The learned arm's click rate must come out above both others, its 95%
 * interval clear of random's.
 *
 * Each database's run is a file of its own (planted-taste.<backend>.int.test.ts), so that the two run
 * at once on the integration tier's two workers. The comparison of the arms, a claim about learning
 * that the database does not change, needs the full size (40 a arm, 8 visits each: 2.5 minutes of the
 * tier on PGlite); `compare: false` runs a dry run of 8 a arm and 3 visits, enough to show the model
 * trained between visits on that database serves the simulated participants and no one else.
 */
export function plantedTasteSuite(backend: Backend, { compare }: { compare: boolean }): void {
  const perArm = compare ? 40 : 8;
  const sessions = compare ? 8 : 3;
  describe(`a dry run with planted tastes (${backend}, ${perArm} a arm, ${sessions} visits)`, () => {
    let app: TestApp;
    let admin: Client;
    let run: DryRun;

    beforeAll(async () => {
      app = await startTestApp(backend);
      admin = await app.admin();
      const experiment = (
        await admin.post<Experiment>("/api/v1/admin/experiments", { name: "Planted tastes" })
      ).body;
      const videos = CATEGORIES.flatMap((category, c) =>
        Array.from({ length: PER_CATEGORY }, (_, i) => ({
          external_id: `planted-${c}-${i}`,
          url: `https://cdn.example.org/planted/${c}/${i}.mp4`,
          title: `${category} ${i + 1}`,
          category,
          tags: [category.toLowerCase(), `${category.toLowerCase()}-${i % 3}`],
          duration_seconds: 60,
          // Interleaved, so the newest-first fallback shows every category alike.
          published_at: new Date(Date.UTC(2026, 0, 1 + i * CATEGORIES.length + c)).toISOString(),
        })),
      );
      const added = await admin.post<{ videos: { id: string }[] }>("/api/v1/admin/videos", { videos });
      expect(added.status).toBe(201);
      await admin.put(`/api/v1/admin/experiments/${experiment.id}/videos`, {
        video_ids: added.body.videos.map((v) => v.id),
      });
      for (const algorithm of ["random", "popularity", "learned_model"]) {
        const r = await admin.post(`/api/v1/admin/experiments/${experiment.id}/groups`, {
          name: algorithm,
          algorithm_config: { feed: algorithm, watch: "similarity" },
          ui_config: { feed: "grid-desktop", watch: "grid-desktop" },
        });
        expect(r.status, JSON.stringify(r.body)).toBe(201);
      }
      await admin.patch(`/api/v1/admin/experiments/${experiment.id}`, {
        completion: { after_sessions: sessions },
      });
      // 40 a arm: with 20, the random arm's rate moved enough from run to run (0.059-0.068 here) that the
      // difference's interval once touched 0 on a loaded CI machine (learned 0.081, random 0.068).
      const started = await admin.post<DryRun>(`/api/v1/admin/experiments/${experiment.id}/dry-runs`, {
        participants_per_arm: perArm,
        browser: false,
        seed: 2026,
      });
      expect(started.status).toBe(202);
      run = await finished(admin, experiment.id, started.body.id);
    }, 360_000);
    afterAll(async () => {
      await app?.stop();
    });

    // Defined only at full size: a smaller run says nothing about the arms' difference.
    if (compare)
      it("shows the learned arm's click rate above random's and popularity's, its interval clear of random's", () => {
        expect(run.status, run.error ?? "").toBe("done");
        const ctr = (name: string) => {
          const found = run.arms.find((a) => a.name === name)?.ctr;
          if (!found || found.value === null)
            throw new Error(`no click rate for ${name}: ${JSON.stringify(run.arms)}`);
          return found as { value: number; low: number; high: number };
        };
        const learned = ctr("learned_model");
        const random = ctr("random");
        const popularity = ctr("popularity");
        expect(learned.value, JSON.stringify({ learned, random, popularity })).toBeGreaterThan(random.value);
        expect(learned.value).toBeGreaterThan(popularity.value);
        // The difference's 95% interval, from each arm's (independent arms, normal approximation).
        const se = (r: { low: number; high: number }) => (r.high - r.low) / (2 * 1.959964);
        const diff = learned.value - random.value;
        const low = diff - 1.959964 * Math.hypot(se(learned), se(random));
        expect(low, JSON.stringify({ learned, random, diff })).toBeGreaterThan(0);
      });

    it("says how much of the learned arm's feed the model served, not its fallback", () => {
      expect(run.status, run.error ?? "").toBe("done");
      const learned = run.arms.find((a) => a.name === "learned_model");
      // The first visit comes before any model; the later ones are the model's.
      expect(learned?.served_by_model).toBeGreaterThan(0.5);
      expect(run.arms.find((a) => a.name === "random")?.served_by_model).toBeNull();
    });

    it("trains no model the real participants would see", async () => {
      const runs = await admin.get<unknown[]>(`/api/v1/admin/experiments/${run.experiment_id}/models`);
      expect(runs.body).toEqual([]);
      const db = app.runtime.db;
      expect(Number((await db("item_similarity").count<{ n: string }[]>("* as n"))[0]?.n)).toBe(0);
    });
  });
}
