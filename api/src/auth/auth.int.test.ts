import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ADMIN, BACKENDS, Client, codeOf, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";

describe.each(BACKENDS)("admin authentication (%s)", (backend) => {
  let app: TestApp;
  beforeAll(async () => {
    // Sign-in limits count per client address: the tests name theirs in X-Forwarded-For.
    app = await startTestApp(backend, { env: { FEEDLAB_TRUST_PROXY: "127.0.0.1" } });
  });
  const LOGIN = "/api/v1/auth/login";
  /** A client that the trusted proxy says is at `address`. */
  const from = (address: string) => new Client(app.url, { "x-forwarded-for": address });
  afterAll(async () => {
    await app?.stop();
  });

  it("sets an HttpOnly admin cookie and answers /auth/me when the credentials are right", async () => {
    const c = app.client();
    const login = await c.post("/api/v1/auth/login", ADMIN);
    expect(login.status).toBe(200);
    expect(login.body).toEqual({
      username: ADMIN.username,
      role: "owner",
      console_token: expect.stringMatching(/^[\w-]{43}$/),
    });
    const cookie = login.headers.getSetCookie().find((s) => s.startsWith("feedlab_admin="));
    expect(cookie).toMatch(/httponly/i);
    expect(cookie).toMatch(/samesite=lax/i);
    expect((await c.get("/api/v1/auth/me")).body).toEqual({ username: ADMIN.username, role: "owner" });
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

  it("answers 429 with Retry-After after ten failed logins from one address, whatever the usernames", async () => {
    const c = from("192.0.2.10");
    for (let i = 0; i < 10; i++) {
      expect((await c.post(LOGIN, { username: `someone-${i % 3}`, password: `guess-${i}` })).status).toBe(
        401,
      );
    }
    const limited = await c.post(LOGIN, { username: "someone-else", password: "guess-11" });
    expect(limited.status).toBe(429);
    expect(codeOf(limited)).toBe("too_many_requests");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("checks the password of only 10 of 40 wrong guesses sent at once from one address, answering the rest 429, and still signs the admin in from another address", async () => {
    const verify = vi.spyOn(app.runtime.services.auth, "verifyAdmin");
    try {
      const attacker = from("198.51.100.20");
      const replies = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          attacker.post(LOGIN, { username: ADMIN.username, password: `guess-${i}` }),
        ),
      );
      expect(verify).toHaveBeenCalledTimes(10);
      expect(replies.filter((r) => r.status === 401)).toHaveLength(10);
      const refused = replies.filter((r) => r.status === 429);
      expect(refused).toHaveLength(30);
      expect(refused.every((r) => Number(r.headers.get("retry-after")) > 0)).toBe(true);
      // The right password from the flooded address is refused unchecked too ...
      expect((await attacker.post(LOGIN, ADMIN)).status).toBe(429);
      expect(verify).toHaveBeenCalledTimes(10);
      // ... and signs in from anywhere else: no remote lockout.
      const admin = from("198.51.100.21");
      expect((await admin.post(LOGIN, ADMIN)).status).toBe(200);
      expect((await admin.get("/api/v1/auth/me")).body).toEqual({ username: ADMIN.username, role: "owner" });
    } finally {
      verify.mockRestore();
    }
  });

  it("keeps counting an address's failures after one of its sign-ins succeeds", async () => {
    const c = from("192.0.2.30");
    for (let i = 0; i < 9; i++)
      expect((await c.post(LOGIN, { username: ADMIN.username, password: `guess-${i}` })).status).toBe(401);
    expect((await c.post(LOGIN, ADMIN)).status).toBe(200);
    expect((await c.post(LOGIN, { username: ADMIN.username, password: "guess-9" })).status).toBe(401);
    expect((await c.post(LOGIN, ADMIN)).status).toBe(429);
  });

  it("counts the IPv6 addresses of one /64 together, and another /64 apart", async () => {
    for (let i = 1; i <= 10; i++) {
      const r = await from(`2001:db8:5:6::${i.toString(16)}`).post(LOGIN, {
        username: "x",
        password: `g-${i}`,
      });
      expect(r.status).toBe(401);
    }
    expect((await from("2001:db8:5:6:ffff::1").post(LOGIN, ADMIN)).status).toBe(429);
    expect((await from("2001:db8:5:7::1").post(LOGIN, ADMIN)).status).toBe(200);
  });

  it("keeps admin sessions across a restart because they are stored in the database", async () => {
    const c = await app.admin();
    app = await app.restart();
    const again = app.client();
    for (const [k, v] of c.cookies) again.cookies.set(k, v);
    expect((await again.get("/api/v1/auth/me")).status).toBe(200);
  });
});
