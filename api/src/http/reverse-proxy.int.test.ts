import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, Client, codeOf, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";

const HTTPS_URL = "https://study.example.org";
/** What a TLS-terminating proxy adds for a client at `address`. */
const viaProxy = (address: string, proto = "https") => ({
  "x-forwarded-for": address,
  "x-forwarded-proto": proto,
});

/** The one Set-Cookie of a reply, attributes lower-cased. */
const setCookie = (headers: Headers, name: string) =>
  headers
    .getSetCookie()
    .find((c) => c.startsWith(`${name}=`))
    ?.split(";")
    .map((part) => part.trim().toLowerCase());

async function participantCount(admin: Client, experimentId: string): Promise<number> {
  const r = await admin.get<{ total: number }>(`/api/v1/admin/experiments/${experimentId}/participants`);
  return r.body.total;
}

/** api.md "Behind a reverse proxy", with an https public URL and no proxy trusted. */
describe("an https public URL without FEEDLAB_TRUST_PROXY", () => {
  let app: TestApp;
  let admin: Client;
  beforeAll(async () => {
    app = await startTestApp("pglite", { env: { FEEDLAB_PUBLIC_URL: HTTPS_URL } });
    // Signing in is what this setting refuses: the admin's session comes from the service itself.
    admin = await app.adminBySession();
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("answers 400 insecure_request naming FEEDLAB_TRUST_PROXY to a sign-in, forwarded headers or not", async () => {
    for (const headers of [{}, viaProxy("203.0.113.7")]) {
      const r = await new Client(app.url, headers).post("/api/v1/auth/login", ADMIN);
      expect([r.status, codeOf(r)]).toEqual([400, "insecure_request"]);
      expect(JSON.stringify(r.body)).toContain("FEEDLAB_TRUST_PROXY");
      expect(r.headers.getSetCookie()).toEqual([]);
    }
  });

  it("refuses a join before creating the participant", async () => {
    const { experiment } = await createStudy(admin, { status: "running", videoCount: 1 });
    const r = await app
      .client()
      .post("/api/v1/participants/join", { experiment_id: experiment.id, login_id: "p1" });
    expect([r.status, codeOf(r)]).toEqual([400, "insecure_request"]);
    expect(await participantCount(admin, experiment.id)).toBe(0);
  });

  it("sends Strict-Transport-Security on every response", async () => {
    const r = await app.client().get("/healthz");
    expect(r.headers.get("strict-transport-security")).toMatch(/^max-age=\d{7,}/);
  });
});

/** api.md "Behind a reverse proxy", with one trusted proxy (this test's client plays it, from 127.0.0.1). */
describe("FEEDLAB_TRUST_PROXY=1 behind a TLS proxy", () => {
  let app: TestApp;
  let admin: Client;
  beforeAll(async () => {
    app = await startTestApp("pglite", {
      env: { FEEDLAB_PUBLIC_URL: HTTPS_URL, FEEDLAB_TRUST_PROXY: "1", FEEDLAB_JOIN_RATE_LIMIT: "3" },
    });
    admin = new Client(app.url, viaProxy("198.51.100.10"));
    expect((await admin.post("/api/v1/auth/login", ADMIN)).status).toBe(200);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("signs in over forwarded HTTPS with a Secure, HttpOnly, SameSite=Lax cookie", async () => {
    const r = await new Client(app.url, viaProxy("198.51.100.11")).post("/api/v1/auth/login", ADMIN);
    expect(r.status).toBe(200);
    expect(setCookie(r.headers, "feedlab_admin")).toEqual(
      expect.arrayContaining(["secure", "httponly", "samesite=lax"]),
    );
  });

  it("refuses a sign-in the proxy says arrived over plain HTTP", async () => {
    const r = await new Client(app.url, viaProxy("198.51.100.12", "http")).post("/api/v1/auth/login", ADMIN);
    expect([r.status, codeOf(r)]).toEqual([400, "insecure_request"]);
  });

  it("limits joins per client address, so other clients behind the same proxy still join", async () => {
    const { experiment } = await createStudy(admin, { status: "running", videoCount: 1 });
    const join = (address: string, login_id: string) =>
      new Client(app.url, viaProxy(address)).post("/api/v1/participants/join", {
        experiment_id: experiment.id,
        login_id,
      });
    for (const id of ["a1", "a2", "a3"]) expect((await join("203.0.113.1", id)).status).toBe(200);
    const refused = await join("203.0.113.1", "a4");
    expect([refused.status, codeOf(refused)]).toEqual([429, "too_many_requests"]);
    for (const [i, address] of ["203.0.113.2", "203.0.113.3", "2001:db8::5"].entries())
      expect((await join(address, `b${i}`)).status).toBe(200);
    const joined = setCookie((await join("203.0.113.4", "c1")).headers, "feedlab_participant");
    expect(joined).toEqual(expect.arrayContaining(["secure", "httponly", "samesite=lax"]));
    expect(await participantCount(admin, experiment.id)).toBe(7);
  });

  it("records the client's address, not the proxy's, in the audit log", async () => {
    const failed = await new Client(app.url, viaProxy("192.0.2.44")).post("/api/v1/auth/login", {
      username: ADMIN.username,
      password: "not-the-password",
    });
    expect(failed.status).toBe(401);
    await admin.post("/api/v1/admin/experiments", { name: "Audited" });
    const log = await admin.get<{ action: string; details: { address?: string } }[]>("/api/v1/admin/audit");
    const entry = (action: string) => log.body.find((e) => e.action === action);
    expect(entry("auth.login_failed")?.details.address).toBe("192.0.2.44");
    expect(entry("experiment.create")?.details.address).toBe("198.51.100.10");
  });
});

/** An http public URL: cookies are Secure exactly when the trusted proxy says the request was HTTPS. */
describe("FEEDLAB_TRUST_PROXY with an http public URL", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp("pglite", { env: { FEEDLAB_TRUST_PROXY: "127.0.0.1" } });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("marks the cookie Secure over forwarded HTTPS only, and sends no Strict-Transport-Security", async () => {
    const secure = await new Client(app.url, viaProxy("203.0.113.9")).post("/api/v1/auth/login", ADMIN);
    expect(setCookie(secure.headers, "feedlab_admin")).toContain("secure");
    const plain = await new Client(app.url, viaProxy("203.0.113.9", "http")).post(
      "/api/v1/auth/login",
      ADMIN,
    );
    expect(plain.status).toBe(200);
    expect(setCookie(plain.headers, "feedlab_admin")).not.toContain("secure");
    expect(plain.headers.get("strict-transport-security")).toBeNull();
  });
});
