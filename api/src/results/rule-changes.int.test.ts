import type { Experiment, ExperimentStats } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";

/**
 * Pre-registered exclusion rules (api.md "Data quality and validity"): set before the start, and a
 * change made later kept with who made it, when, the experiment's status, and the rules before and
 * after, which `/stats?exclusions=rules` gives beside the arms.
 */
describe.each(BACKENDS)("exclusion rules of an experiment (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
  });
  afterAll(async () => {
    await app?.stop();
  });

  const rules = (id: string, exclusion_rules: unknown) =>
    admin.patch<Experiment>(`/api/v1/admin/experiments/${id}`, { exclusion_rules });

  it("keeps every change of the rules with who, when, the status and before and after, the draft's and the running study's", async () => {
    const { experiment } = await createStudy(admin, { videoCount: 2 });
    const id = experiment.id;
    expect(experiment.exclusion_rules).toEqual([]);
    const first = [{ measure: "active_seconds", op: "<", value: 120 }];
    const set = await rules(id, first);
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.exclusion_rules).toEqual(first);
    // The same rules again change nothing, and leave no change behind.
    await rules(id, first);
    expect((await admin.patch(`/api/v1/admin/experiments/${id}`, { status: "running" })).status).toBe(200);
    const second = [...first, { measure: "attention_failed", op: ">=", value: 1 }];
    await rules(id, second);

    const stats = await admin.get<ExperimentStats>(`/api/v1/admin/experiments/${id}/stats?exclusions=rules`);
    expect(stats.status).toBe(200);
    expect(stats.body.exclusions).toBe("rules");
    expect(stats.body.rules?.rules).toEqual(second);
    const changes = stats.body.rules?.changes ?? [];
    expect(changes.map((c) => ({ status: c.status, before: c.before, after: c.after }))).toEqual([
      { status: "draft", before: [], after: first },
      { status: "running", before: first, after: second },
    ]);
    expect(changes.every((c) => c.admin === "admin" && !Number.isNaN(Date.parse(c.at)))).toBe(true);
    // Without exclusions=rules nothing of the rules is in the results.
    const manual = await admin.get<ExperimentStats>(`/api/v1/admin/experiments/${id}/stats`);
    expect(manual.body.exclusions).toBe("manual");
    expect(manual.body.rules).toBeUndefined();
    expect(manual.body.groups[0]?.excluded_by_rules).toBeUndefined();
  });

  it("refuses a rule over an unknown measure or operator, or a floor out of range, naming the field, and keeps the rules as they were", async () => {
    const { experiment } = await createStudy(admin, { videoCount: 2, name: "Refusals" });
    const id = experiment.id;
    for (const bad of [
      [{ measure: "mood", op: "<", value: 1 }],
      [{ measure: "active_seconds", op: "!=", value: 1 }],
      [{ measure: "active_seconds", op: "<", value: "a lot" }],
    ]) {
      const r = await rules(id, bad);
      expect(r.status, JSON.stringify(r.body)).toBe(422);
      expect(JSON.stringify(r.body)).toContain("exclusion_rules");
    }
    const floor = await admin.patch(`/api/v1/admin/experiments/${id}`, { min_response_ms: 20_000 });
    expect(floor.status).toBe(422);
    expect(JSON.stringify(floor.body)).toContain("min_response_ms");
    expect((await admin.get<Experiment>(`/api/v1/admin/experiments/${id}`)).body).toMatchObject({
      exclusion_rules: [],
      min_response_ms: null,
    });
  });
});
