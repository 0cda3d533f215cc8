import type { ExperimentStats, ParticipantSummary } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { deliverEvents, joinWithSession, wireEvent } from "../../../test/harness/events.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";
import { joinParticipant, visit } from "../../../test/harness/surveys.ts";
import { joinSimulated } from "../participants/simulated.fixture.ts";

/**
 * `/stats`' `ipw` under adaptive assignment (api.md "Assignment (wave 4)"), on both databases: each arm's
 * metric weighted by 1 / the probability each participant had of it, over the participants the read
 * counts, against the same mean computed here from the participants list.
 */
describe.each(BACKENDS)("inverse-probability-weighted results (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
  });

  const patch = async (id: string, body: unknown) => {
    const r = await admin.patch(`/api/v1/admin/experiments/${id}`, body);
    expect(r.status, r.text).toBe(200);
  };
  const participants = async (id: string) =>
    (
      await admin.get<{ items: ParticipantSummary[] }>(
        `/api/v1/admin/experiments/${id}/participants?limit=1000`,
      )
    ).body.items;
  const stats = async (id: string, query = "") => {
    const r = await admin.get<ExperimentStats>(`/api/v1/admin/experiments/${id}/stats${query}`);
    expect(r.status, r.text).toBe(200);
    return r.body;
  };
  /** Σ m/p / Σ 1/p over the participants given, each with their metric m (none: left out). */
  const hajek = (list: readonly { m: number | null; p: number | null }[]) => {
    const counted = list.filter((x) => x.m !== null);
    const weight = (x: { p: number | null }) => 1 / (x.p ?? 1);
    return (
      counted.reduce((s, x) => s + weight(x) * (x.m as number), 0) /
      counted.reduce((s, x) => s + weight(x), 0)
    );
  };

  it("weighs each arm's completion by 1 / each participant's probability, within its bootstrap interval, leaving out whom the read leaves out", async () => {
    const { experiment, groups } = await createStudy(admin, { videoCount: 1 });
    const id = experiment.id;
    await patch(id, {
      // A burn-in of 3: every arm keeps two participants after the exclusion below, so each has an
      // interval (with 2, an arm left with one has none, and the draws after the burn-in vary by run).
      assignment: { method: "adaptive", metric: "completion_rate", burn_in: 3, seed: 5 },
      completion: { after_sessions: 1, code: "DONE" },
    });
    await patch(id, { status: "running" });
    // Sequential joins, two of every three finishing before the next joins: after the burn-in, Thompson
    // sampling sees the arms' completion differ and gives newcomers unequal probabilities.
    for (let i = 0; i < 12; i++) {
      const p = await joinParticipant(app, id, `ipw-${i}`);
      if (i % 3 === 0) continue;
      await visit(app, p.client, p.sessionId);
      expect((await p.client.get<{ status: string }>("/api/v1/me")).body.status).toBe("finished");
    }
    const joined = await participants(id);
    expect(joined).toHaveLength(12);
    // Not a balanced study in disguise: some probability is not one half.
    expect(joined.some((p) => Math.abs((p.assignment?.probability ?? 1) - 0.5) > 1e-9)).toBe(true);

    // A researcher's exclusion and a dry run's participant are left out, as from every other figure.
    const [excluded] = joined;
    const out = await admin.patch(`/api/v1/admin/participants/${excluded?.user_id}`, {
      excluded: true,
      reason: "left out of ipw",
    });
    expect(out.status, out.text).toBe(204);
    const simulated = await joinSimulated(app, id, "sim-ipw");

    const everyone = await participants(id);
    const expected = (groupId: string, withSimulated: boolean) =>
      hajek(
        everyone
          .filter((p) => p.group_id === groupId && p.excluded_at === null && (withSimulated || !p.simulated))
          .map((p) => ({ m: p.finished_at === null ? 0 : 1, p: p.assignment?.probability ?? null })),
      );
    for (const [query, withSimulated] of [
      ["", false],
      ["?include_simulated=true", true],
    ] as const) {
      const body = await stats(id, query);
      expect(body.groups.map((g) => g.group_id)).toEqual(groups.map((g) => g.id));
      for (const g of body.groups) {
        const ipw = g.ipw;
        expect(ipw?.value).toBeCloseTo(expected(g.group_id, withSimulated), 12);
        expect(ipw?.low).toBeLessThanOrEqual(ipw?.value ?? Number.NaN);
        expect(ipw?.high).toBeGreaterThanOrEqual(ipw?.value ?? Number.NaN);
      }
    }
    expect(everyone.find((p) => p.user_id === simulated.userId)?.simulated).toBe(true);
    // Seeded: the same data reads the same interval.
    expect((await stats(id)).groups.map((g) => g.ipw)).toEqual((await stats(id)).groups.map((g) => g.ipw));
  });

  it("weighs each participant's own click-through rate, leaving out those without an impression", async () => {
    const { experiment } = await createStudy(admin, { videoCount: 1, weights: [1] });
    const id = experiment.id;
    await patch(id, { assignment: { method: "adaptive", metric: "ctr", burn_in: 1, seed: 9 } });
    await patch(id, { status: "running" });
    // 1/4 and 3/6 of feed impressions clicked; the third participant sees nothing: no rate.
    for (const [login, impressions, clicks] of [
      ["ctr-1", 4, 1],
      ["ctr-2", 6, 3],
      ["ctr-3", 0, 0],
    ] as const) {
      const p = await joinWithSession(app.client(), id, login);
      if (impressions === 0) continue;
      await deliverEvents(p, [
        ...Array.from({ length: impressions }, () =>
          wireEvent("IMPRESSION", { payload: { context: "feed" } }),
        ),
        ...Array.from({ length: clicks }, () => wireEvent("FEED_CLICK")),
      ]);
    }
    expect(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 10_000)).toBe(true);
    const [group] = (await stats(id)).groups;
    // One arm: every probability is 1, and the mean is of the participants' rates, not the pooled 4/10.
    expect(group?.ipw?.value).toBeCloseTo((1 / 4 + 3 / 6) / 2, 12);
    expect(group?.ctr.value).toBeCloseTo(4 / 10, 12);
  });

  it("adds no ipw when the experiment does not assign adaptively", async () => {
    const { experiment } = await createStudy(admin, { videoCount: 1, status: "running" });
    await joinParticipant(app, experiment.id, "balanced-1");
    const body = await stats(experiment.id);
    expect(body.groups.length).toBeGreaterThan(0);
    expect(body.groups.every((g) => !("ipw" in g))).toBe(true);
  });
});
