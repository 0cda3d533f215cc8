import { EXAMPLE_PAYLOADS, type ExperimentStats } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { type Joined, joinWithSession, sendEvents, wireEvent } from "../../../test/harness/events.ts";
import { createStudy, type StudyFixture } from "../../../test/harness/fixtures.ts";

describe.each(BACKENDS)("latency per arm in /stats (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  let study: StudyFixture;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
    study = await createStudy(admin, { videoCount: 2, status: "running", weights: [1] });
  });
  afterAll(async () => {
    await app?.stop();
  });

  const feed = (latency_ms: number) =>
    wireEvent("HOME_FEED", { payload: { ...EXAMPLE_PAYLOADS.HOME_FEED, latency_ms } });
  const related = (latency_ms: number) =>
    wireEvent("RECOMMENDATIONS", { payload: { ...EXAMPLE_PAYLOADS.RECOMMENDATIONS, latency_ms } });

  async function participant(login: string, events: ReturnType<typeof wireEvent>[]): Promise<Joined> {
    const p = await joinWithSession(app.client(), study.experiment.id, login);
    expect((await sendEvents(p, events)).body.rejected).toEqual([]);
    return p;
  }

  async function stats(): Promise<ExperimentStats> {
    expect(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 10_000)).toBe(true);
    return (await admin.get<ExperimentStats>(`/api/v1/admin/experiments/${study.experiment.id}/stats`)).body;
  }

  it("gives null quantiles for an arm whose participants reported no latency", async () => {
    const [group] = (await stats()).groups;
    const none = { p50: null, p95: null, requests: 0, participants: 0 };
    expect(group?.latency_ms).toEqual({ feed: none, related: none });
  });

  it("gives each surface's p50 and p95 over the arm's events, to 2.5 ms, and how many loads and participants they rest on, leaving excluded participants out", async () => {
    // Given 20 feed loads: 18 at 12 ms, 2 at 431 ms (p50 12, p95 the 19th of 20: 431), and 3 related
    // loads at 40, 41, 42 ms; then a participant whose 5 s loads would move both, excluded.
    await participant("fast", [...Array.from({ length: 9 }, () => feed(12)), related(40), related(41)]);
    await participant("mixed", [...Array.from({ length: 9 }, () => feed(12)), feed(431), feed(431)]);
    await participant("third", [related(42)]);
    const slow = await participant(
      "slow",
      Array.from({ length: 30 }, () => feed(5000)),
    );
    const excluded = await admin.patch(`/api/v1/admin/participants/${slow.userId}`, {
      excluded: true,
      reason: "test",
    });
    expect(excluded.status).toBe(204);
    const [group] = (await stats()).groups;
    const near = (value: number | null | undefined, expected: number) =>
      expect(Math.abs((value ?? Number.NaN) - expected)).toBeLessThanOrEqual(2.5);
    near(group?.latency_ms.feed.p50, 12);
    near(group?.latency_ms.feed.p95, 431);
    near(group?.latency_ms.related.p50, 41);
    near(group?.latency_ms.related.p95, 42);
    expect(group?.latency_ms.feed).toMatchObject({ requests: 20, participants: 2 });
    expect(group?.latency_ms.related).toMatchObject({ requests: 3, participants: 2 });
  });
});
