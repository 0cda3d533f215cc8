import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, BACKENDS, codeOf, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";

describe.each(BACKENDS)("admin authentication (%s)", (backend) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(backend);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("sets an HttpOnly admin cookie and answers /auth/me when the credentials are right", async () => {
    const c = app.client();
    const login = await c.post("/api/v1/auth/login", ADMIN);
    expect(login.status).toBe(200);
    expect(login.body).toEqual({ username: ADMIN.username });
    const cookie = login.headers.getSetCookie().find((s) => s.startsWith("feedlab_admin="));
    expect(cookie).toMatch(/httponly/i);
    expect(cookie).toMatch(/samesite=lax/i);
    expect((await c.get("/api/v1/auth/me")).body).toEqual({ username: ADMIN.username });
  });

  it("answers 401 when the password is wrong, and stores no session", async () => {
    const c = app.client();
    const r = await c.post("/api/v1/auth/login", { username: ADMIN.username, password: "wrong-password" });
    expect(r.status).toBe(401);
    expect(codeOf(r)).toBe("unauthorized");
    expect(r.headers.getSetCookie()).toEqual([]);
    expect((await c.get("/api/v1/auth/me")).status).toBe(401);
  });

  it("ends the session on logout so the old cookie no longer works, though the server had just resolved it", async () => {
    const c = await app.admin();
    const token = c.cookies.get("feedlab_admin");
    // The cookie is resolved (and remembered) before the logout.
    expect((await c.get("/api/v1/auth/me")).status).toBe(200);
    expect((await c.post("/api/v1/auth/logout")).status).toBe(204);
    expect((await c.get("/api/v1/auth/me")).status).toBe(401);
    const replay = app.client();
    replay.cookies.set("feedlab_admin", token ?? "");
    expect((await replay.get("/api/v1/admin/experiments")).status).toBe(401);
  });

  it("answers 401 on every admin route without a cookie and 403 with a participant cookie", async () => {
    const admin = await app.admin();
    const { experiment } = await createStudy(admin, { status: "running" });
    const participant = app.client();
    expect(
      (
        await participant.post("/api/v1/participants/join", {
          experiment_id: experiment.id,
          login_id: "p-auth",
        })
      ).status,
    ).toBe(200);
    const doc = (await app.client().get("/api/v1/openapi.json")).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    const adminPaths = Object.keys(doc.paths).filter((p) => p.startsWith("/api/v1/admin/"));
    expect(adminPaths.length).toBeGreaterThan(10);
    for (const p of adminPaths) {
      for (const method of Object.keys(doc.paths[p] ?? {})) {
        const concrete = p.replace(/\{\w+\}/g, experiment.id);
        const init = method === "get" || method === "delete" ? {} : { json: {} };
        const anon = await app.client().request(method.toUpperCase(), concrete, init);
        expect(anon.status, `${method} ${p} without a cookie`).toBe(401);
        const asParticipant = await participant.request(method.toUpperCase(), concrete, init);
        expect(asParticipant.status, `${method} ${p} with a participant cookie`).toBe(403);
      }
    }
  });

  it("answers 429 with Retry-After after ten failed logins for one username", async () => {
    const c = app.client();
    for (let i = 0; i < 10; i++) {
      expect(
        (await c.post("/api/v1/auth/login", { username: "someone", password: `guess-${i}` })).status,
      ).toBe(401);
    }
    const limited = await c.post("/api/v1/auth/login", { username: "someone", password: "guess-11" });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("keeps admin sessions across a restart because they are stored in the database", async () => {
    const c = await app.admin();
    app = await app.restart();
    const again = app.client();
    for (const [k, v] of c.cookies) again.cookies.set(k, v);
    expect((await again.get("/api/v1/auth/me")).status).toBe(200);
  });
});
