import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, type Client, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";
import { joinParticipant } from "../../../test/harness/surveys.ts";

interface Entry {
  cursor: number;
  at: string;
  admin: string | null;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
}

/** api.md, Participant rights and access: `GET /api/v1/admin/audit`. */
describe("audit log", () => {
  let app: TestApp;
  let admin: Client;
  beforeAll(async () => {
    app = await startTestApp("pglite");
    admin = await app.admin();
  });
  afterAll(async () => {
    await app?.stop();
  });

  const audit = async (query = "") => (await admin.get<Entry[]>(`/api/v1/admin/audit${query}`)).body;

  it("records sign-ins, changes and exports, newest first, with field names and never the data", async () => {
    expect(
      (await app.client().post("/api/v1/auth/login", { username: ADMIN.username, password: "wrong-one" }))
        .status,
    ).toBe(401);
    const { experiment } = await createStudy(admin, { status: "running", weights: [1], videoCount: 1 });
    const p = await joinParticipant(app, experiment.id, "audited");
    await admin.patch(`/api/v1/admin/experiments/${experiment.id}`, {
      consent_text: "Secret consent wording",
      status: "paused",
    });
    await admin.patch(`/api/v1/admin/participants/${p.user.user_id}`, {
      excluded: true,
      reason: "Private reason",
    });
    await admin.get(`/api/v1/admin/experiments/${experiment.id}/participants?format=csv`);
    await admin.get(`/api/v1/admin/experiments/${experiment.id}/participants`); // a read, not recorded
    await admin.get(`/api/v1/admin/experiments/${experiment.id}/events?format=csv`);
    await admin.post("/api/v1/admin/admins", { username: "erin", password: "erin-password" });

    const entries = await audit();
    const actions = entries.map((e) => e.action);
    expect(actions.slice(0, 5)).toEqual([
      "admin.add",
      "export.events",
      "export.participants",
      "participant.exclusion",
      "experiment.update",
    ]);
    expect(actions).toContain("auth.login");
    expect(actions).toContain("auth.login_failed");
    expect(actions).toContain("experiment.create");
    expect(actions.filter((a) => a === "arm.create")).toHaveLength(1);
    const byAction = (a: string) => entries.find((e) => e.action === a);
    expect(byAction("experiment.update")).toMatchObject({
      admin: ADMIN.username,
      target: experiment.id,
      details: { fields: ["consent_text", "status"], status: "paused" },
    });
    expect(byAction("export.events")?.details).toMatchObject({ format: "csv" });
    expect(byAction("admin.add")).toMatchObject({ target: "erin", details: { fields: ["username"] } });
    expect(byAction("auth.login_failed")).toMatchObject({ admin: null, target: ADMIN.username });
    const text = JSON.stringify(entries);
    for (const secret of ["Secret consent wording", "Private reason", "erin-password", "wrong-one"])
      expect(text).not.toContain(secret);

    // Paging back from a cursor gives the older entries.
    const older = await audit(`?limit=2&before=${entries[1]?.cursor}`);
    expect(older.map((e) => e.cursor)).toEqual(entries.slice(2, 4).map((e) => e.cursor));
  });

  it("is for admins only", async () => {
    const { experiment } = await createStudy(admin, { status: "running", weights: [1], videoCount: 1 });
    const p = await joinParticipant(app, experiment.id, "curious");
    expect((await p.client.get("/api/v1/admin/audit")).status).toBe(403);
    expect((await app.client().get("/api/v1/admin/audit")).status).toBe(401);
  });
});
