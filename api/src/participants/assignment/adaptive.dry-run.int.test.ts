import type { Experiment, ExperimentStats, Group, ParticipantSummary, Video } from "@feedlab/schemas";
import { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, startTestApp, type TestApp } from "../../../../test/harness/app.ts";
import { PARTICIPANT_COOKIE } from "../../auth/cookies.ts";
import { createParticipantModel } from "../../simulation/behaviour.ts";
import { createHttpJourney } from "../../simulation/drive/http-journey.ts";
import { ParticipantClient } from "../../simulation/drive/participant-client.ts";
import { newestPosition } from "../../simulation/dry-runs/runner.ts";
import { poolVideos } from "../../videos/queries/videos.queries.ts";

/**
 * Issue 56: adaptive assignment learning from participants' behaviour, not from planted Bernoulli
 * outcomes (adaptive.simulation.test.ts does those). The participants are a dry run's simulated ones,
 * made and driven as its runner makes and drives them over HTTP (runner.ts: `createSimulated`, a
 * participant session, `createParticipantModel({seed, pool})`, `createHttpJourney`, then waiting for the
 * projector to pass their events), with two differences, since a dry run never lets the method choose:
 * its runner names each participant's arm (the same seeds in every arm, so that the arms are compared on
 * common random numbers; the method then records `manual`) and creates them all before any journey
 * starts. Here no arm is named, so `chooseArm` runs the experiment's `adaptive` method for each
 * simulated newcomer on the simulated participants' outcomes so far (assign.ts `armOutcomes`), and each
 * joins once the one before has finished and the projector has counted their events.
 *
 * The planted better arm: a persona's taste favours categories in proportion to their size in the pool
 * (taste.ts `drawTaste`), so nearly every persona favours one of three large categories and almost none
 * any of the one-video categories. The newest videos are such "odds and ends", more than a feed page of
 * them, so the newest-first arm's feed shows nothing else and its participants click little (a journey's
 * third look at the feed opens its best card anyway); the shuffled arm's feed is three-quarters the
 * large categories. The metric is `ctr`, which a dry run reports per arm.
 *
 * Seeded: the personas (seeds SEED + i) and the method's draws (`seed`). Not bit for bit: the draws are
 * forked on the experiment's id and the shuffled feed on each session's id, both random UUIDs, so the
 * counts printed vary a little from run to run. In 16 runs (2026-12-03) the better arm took 40 to 50 of
 * the 50 participants after the burn-in (the threshold is two-thirds), every one of them with a chance
 * above a half (the threshold is most of them), and the other arm's never more than 0.36.
 */
const SEED = 56;
const PARTICIPANTS = 60;
const BURN_IN = 5;
const FLOOR = 0.05;
const LARGE_CATEGORIES = ["Music", "Cooking", "Travel"] as const;
const PER_LARGE_CATEGORY = 24;
/** More than a feed page (PAGE_SIZE, 20), so the newest-first feed shows only these. */
const ODDS_AND_ENDS = 24;

/** The pool, oldest first: the large categories, then the one-video categories. */
function pool() {
  const large = Array.from({ length: PER_LARGE_CATEGORY }, (_, i) =>
    LARGE_CATEGORIES.map((category, c) => ({
      external_id: `large-${c}-${i}`,
      url: `https://cdn.example.org/large/${c}/${i}.mp4`,
      title: `${category} ${i + 1}`,
      category,
      tags: [category.toLowerCase(), `${category.toLowerCase()}-${i % 3}`],
      duration_seconds: 60,
    })),
  ).flat();
  const odds = Array.from({ length: ODDS_AND_ENDS }, (_, i) => ({
    external_id: `odd-${i}`,
    url: `https://cdn.example.org/odd/${i}.mp4`,
    title: `Odds and ends ${i + 1}`,
    category: `Odds and ends ${i + 1}`,
    tags: [],
    duration_seconds: 60,
  }));
  return [...large, ...odds].map((v, i) => ({
    ...v,
    published_at: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
  }));
}

describe("adaptive assignment of a dry run's simulated participants, one after another (pglite)", () => {
  let app: TestApp;
  let admin: Client;
  let experimentId: string;
  let newest: Group;
  let shuffled: Group;

  beforeAll(async () => {
    app = await startTestApp("pglite");
    admin = await app.admin();
    experimentId = (
      await admin.post<Experiment>("/api/v1/admin/experiments", { name: "Adaptive against a planted arm" })
    ).body.id;
    const added = await admin.post<{ videos: { id: string }[] }>("/api/v1/admin/videos", { videos: pool() });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const put = await admin.put(`/api/v1/admin/experiments/${experimentId}/videos`, {
      video_ids: added.body.videos.map((v) => v.id),
    });
    expect(put.status).toBe(200);
    const arm = async (name: string, feed: string) => {
      const r = await admin.post<Group>(`/api/v1/admin/experiments/${experimentId}/groups`, {
        name,
        algorithm_config: { feed, watch: "similarity" },
        ui_config: { feed: "grid-desktop", watch: "grid-desktop" },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body;
    };
    newest = await arm("Newest first", "recency");
    shuffled = await arm("Shuffled", "random");
    const set = await admin.patch(`/api/v1/admin/experiments/${experimentId}`, {
      assignment: { method: "adaptive", metric: "ctr", burn_in: BURN_IN, floor: FLOOR, seed: SEED },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
  });

  it("sends most simulated newcomers after the burn-in to the arm whose feed they click more, each recorded as adaptive with a probability within the floor", async () => {
    const { db, services, progress } = app.runtime;
    const videos = await poolVideos<Pick<Video, "id" | "category" | "tags" | "duration_seconds">>(
      db,
      experimentId,
      "id",
      "category",
      "tags",
      "duration_seconds",
    );
    const design = { completion: null, needsFeedMinutes: false, poolSize: videos.length };
    const agent = new Agent({ connections: 4, keepAliveTimeout: 10_000 });
    const started = Date.now();
    /** Each participant's arm, in order of joining. */
    const arms: string[] = [];
    try {
      for (let i = 0; i < PARTICIPANTS; i++) {
        // No arm named: the experiment's method chooses, as for any newcomer.
        const p = await services.participants.createSimulated(experimentId, `sim-adaptive-${i + 1}`);
        const groupId = p.group_id;
        if (groupId === null) throw new Error(`sim-adaptive-${i + 1} joined without an arm`);
        arms.push(groupId);
        const token = (await services.auth.issueParticipantSession(p.user_id)).token;
        const journey = createHttpJourney(
          new ParticipantClient(app.url, `${PARTICIPANT_COOKIE}=${token}`, agent),
          {
            participant: { userId: p.user_id, loginId: p.login_id, groupId },
            model: createParticipantModel({ seed: SEED + i, pool: videos }),
            design,
            deadline: Date.now() + 60_000,
          },
        );
        await journey.begin();
        for (let n = 1; n <= journey.sessions; n++) await journey.visit(n);
        await journey.end();
        expect(journey.record.problems, JSON.stringify(journey.record.problems)).toEqual([]);
        // The next newcomer's draws see this one's clicks and impressions.
        expect(await progress.waitFor(newestPosition([journey.record]), 30_000)).toBe(true);
      }
    } finally {
      await agent.close();
    }

    const stats = await admin.get<ExperimentStats>(
      `/api/v1/admin/experiments/${experimentId}/stats?include_simulated=true`,
    );
    /** The arm's ctr as the method counts it (every impression) and as a dry run reports it (the feed's). */
    const rates = (g: Group) => {
      const arm = stats.body.groups.find((x) => x.group_id === g.id);
      const feed = stats.body.recommenders.find(
        (r) => r.surface === "feed" && r.key === g.algorithm_config.feed,
      );
      const ratio = (clicks = 0, impressions = 0) => (impressions > 0 ? clicks / impressions : 0);
      return {
        ctr: ratio(arm?.feed_clicks, arm?.impressions),
        text: `${arm?.feed_clicks} clicks / ${arm?.impressions} impressions = ${ratio(arm?.feed_clicks, arm?.impressions).toFixed(3)} (feed only ${ratio(feed?.feed_clicks, feed?.impressions).toFixed(3)})`,
      };
    };
    const count = (ids: readonly string[], g: Group) => ids.filter((id) => id === g.id).length;
    const split = (ids: readonly string[]) =>
      `newest first ${count(ids, newest)}, shuffled ${count(ids, shuffled)}`;
    const early = arms.slice(0, 2 * BURN_IN);
    const later = arms.slice(2 * BURN_IN);
    console.info(
      [
        `adaptive (ctr, burn-in ${BURN_IN}, seed ${SEED}), ${PARTICIPANTS} simulated participants one after another in ${((Date.now() - started) / 1000).toFixed(1)} s`,
        `  participants 1-${early.length} (burn-in): ${split(early)}`,
        `  participants ${early.length + 1}-${PARTICIPANTS}: ${split(later)}`,
        `  of which ${PARTICIPANTS / 2 + 1}-${PARTICIPANTS}: ${split(arms.slice(PARTICIPANTS / 2))}`,
        `  order: ${arms.map((id) => (id === shuffled.id ? "S" : "N")).join("")}`,
        `  newest first: ${rates(newest).text}; shuffled: ${rates(shuffled).text}`,
      ].join("\n"),
    );

    // The plant holds: the simulated participants click more in the shuffled arm.
    expect(rates(shuffled).ctr).toBeGreaterThan(rates(newest).ctr);
    // The burn-in balances; after it, most go where they click more.
    expect(count(early, newest)).toBe(BURN_IN);
    expect(count(later, shuffled) / later.length).toBeGreaterThan(2 / 3);

    // What each participant keeps: the method, and the chance it gave them their arm.
    const list = await admin.get<{ items: ParticipantSummary[] }>(
      `/api/v1/admin/experiments/${experimentId}/participants?limit=1000`,
    );
    const byLogin = new Map(list.body.items.map((p) => [p.login_id, p]));
    const kept = arms.map((groupId, i) => {
      const p = byLogin.get(`sim-adaptive-${i + 1}`);
      expect(p?.simulated).toBe(true);
      expect(p?.group_id).toBe(groupId);
      expect(p?.assignment?.method).toBe("adaptive");
      const probability = p?.assignment?.probability ?? Number.NaN;
      expect(probability).toBeGreaterThan(0);
      expect(probability).toBeLessThanOrEqual(1);
      return { better: groupId === shuffled.id, probability };
    });
    // 1/arms during the burn-in; then the Thompson chance after the floor, never 0 or 1.
    for (const k of kept.slice(0, 2 * BURN_IN)) expect(k.probability).toBe(0.5);
    const after = kept.slice(2 * BURN_IN);
    for (const k of after) {
      expect(k.probability).toBeGreaterThanOrEqual(FLOOR);
      expect(k.probability).toBeLessThanOrEqual(1 - FLOOR);
    }
    // Sent to the better arm because the method favoured it: most of them had a chance above a half.
    const favoured = after.filter((k) => k.better && k.probability > 0.5).length;
    expect(favoured / after.filter((k) => k.better).length).toBeGreaterThan(0.8);
  }, 120_000);
});
