import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, codeOf, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";

/** The "join rate limit per client address" (FEEDLAB_JOIN_RATE_LIMIT joins per minute). */
describe.each(BACKENDS)("join rate limit (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  beforeAll(async () => {
    app = await startTestApp(backend, { env: { FEEDLAB_JOIN_RATE_LIMIT: "3" } });
    admin = await app.admin();
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("answers 429 with Retry-After once an address made the limit's joins in a minute, and creates nobody", async () => {
    const { experiment } = await createStudy(admin, { status: "running", videoCount: 1 });
    const join = (login_id: string) =>
      app.client().post("/api/v1/participants/join", { experiment_id: experiment.id, login_id });
    for (const id of ["p1", "p2", "p3"]) expect((await join(id)).status).toBe(200);
    const refused = await join("p4");
    expect([refused.status, codeOf(refused)]).toEqual([429, "too_many_requests"]);
    const wait = Number(refused.headers.get("retry-after"));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    const people = await admin.get<{ items: { login_id: string }[] }>(
      `/api/v1/admin/experiments/${experiment.id}/participants`,
    );
    expect(people.body.items.map((p) => p.login_id).sort()).toEqual(["p1", "p2", "p3"]);
  });
});
