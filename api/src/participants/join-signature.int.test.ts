import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, codeOf, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";

const SECRET = "a-long-random-join-secret-for-tests";

/** api.md, Participant rights and access: signed join links with FEEDLAB_JOIN_SECRET. */
describe.each(BACKENDS)("signed join links (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  beforeAll(async () => {
    app = await startTestApp(backend, { env: { FEEDLAB_JOIN_SECRET: SECRET } });
    admin = await app.admin();
  });
  afterAll(async () => {
    await app?.stop();
  });

  const sign = (experimentId: string, loginId: string) =>
    createHmac("sha256", SECRET).update(`${experimentId}:${loginId}`).digest("hex");

  it("refuses a join without its signature or with another participant's, and accepts the right one", async () => {
    const { experiment } = await createStudy(admin, { status: "running", videoCount: 1 });
    const join = (login_id: string, sig?: string) =>
      app.client().post("/api/v1/participants/join", {
        experiment_id: experiment.id,
        login_id,
        ...(sig ? { sig } : {}),
      });
    for (const r of [
      await join("alice"),
      await join("alice", sign(experiment.id, "bob")),
      await join("alice", "zz"),
    ])
      expect([r.status, codeOf(r)]).toEqual([403, "bad_signature"]);
    expect(
      (await admin.get<{ items: unknown[] }>(`/api/v1/admin/experiments/${experiment.id}/participants`)).body
        .items,
    ).toEqual([]);
    expect((await join("alice", sign(experiment.id, "alice"))).status).toBe(200);
    expect((await join("alice", sign(experiment.id, "alice").toUpperCase())).status).toBe(200);

    // The console's links carry the signature.
    const listed = await admin.get<{ items: { login_id: string; join_sig: string }[] }>(
      `/api/v1/admin/experiments/${experiment.id}/participants`,
    );
    expect(listed.body.items.map((p) => [p.login_id, p.join_sig])).toEqual([
      ["alice", sign(experiment.id, "alice")],
    ]);
  });
});
