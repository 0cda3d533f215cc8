import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  ADMIN,
  BACKENDS,
  type Client,
  codeOf,
  type Reply,
  startTestApp,
  type TestApp,
} from "../../../test/harness/app.ts";
import { joinWithSession, wireEvent } from "../../../test/harness/events.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";

const METRICS_TOKEN = "metrics-token-0123456789";

describe.each(BACKENDS)("HTTP conventions of api.md (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  beforeAll(async () => {
    app = await startTestApp(backend, { env: { FEEDLAB_METRICS_TOKEN: METRICS_TOKEN } });
    admin = await app.admin();
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("answers 400 malformed_json with the error body when JSON is broken", async () => {
    const r = await admin.request("POST", "/api/v1/admin/experiments", { body: '{"name": "x"' });
    expect(r.status).toBe(400);
    expect(codeOf(r)).toBe("malformed_json");
    expect((r.body as { error: { message: string } }).error.message).toMatch(/JSON/);
  });

  it("answers 400 unsupported_content_type when the body is not JSON", async () => {
    const r = await admin.request("POST", "/api/v1/admin/experiments", {
      body: "name=x",
      contentType: "application/x-www-form-urlencoded",
    });
    expect(r.status).toBe(400);
    expect(codeOf(r)).toBe("unsupported_content_type");
  });

  it("answers 413 when the body exceeds the limit, and stores nothing", async () => {
    const r = await admin.post("/api/v1/admin/experiments", {
      name: "big",
      description: "x".repeat(2 * 1024 * 1024),
    });
    expect(r.status).toBe(413);
    expect(codeOf(r)).toBe("payload_too_large");
    expect((await admin.get<unknown[]>("/api/v1/admin/experiments")).body).toEqual([]);
  });

  it("answers 422 validation_failed naming the field when a rule is broken", async () => {
    const r = await admin.post("/api/v1/admin/experiments", { name: "" });
    expect(r.status).toBe(422);
    expect(codeOf(r)).toBe("validation_failed");
    expect((r.body as { error: { details: { field: string } } }).error.details.field).toBe("name");
    const missing = await admin.post("/api/v1/admin/experiments", { description: "no name" });
    expect((missing.body as { error: { details: { field: string } } }).error.details.field).toBe("name");
    const unknown = await admin.post("/api/v1/admin/experiments", { name: "x", colour: "red" });
    expect((unknown.body as { error: { details: { field: string } } }).error.details.field).toBe("colour");
  });

  it("answers 404 not_found for unknown ids, malformed ids and unknown API paths", async () => {
    expect(codeOf(await admin.get("/api/v1/admin/experiments/00000000-0000-4000-8000-000000000000"))).toBe(
      "not_found",
    );
    expect((await admin.get("/api/v1/admin/experiments/not-a-uuid")).status).toBe(404);
    const unknown = await admin.get("/api/v1/nothing-here");
    expect(unknown.status).toBe(404);
    expect(codeOf(unknown)).toBe("not_found");
  });

  it("echoes a caller's X-Request-Id and generates one otherwise", async () => {
    const given = await admin.request("GET", "/api/v1/admin/experiments", {
      headers: { "x-request-id": "trace-123" },
    });
    expect(given.headers.get("x-request-id")).toBe("trace-123");
    const generated = await admin.get("/api/v1/admin/nope");
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect((generated.body as { error: { request_id: string } }).error.request_id).toBe(
      generated.headers.get("x-request-id"),
    );
  });

  it("sends security headers on API and page responses; console pages and admin answers isolate their window and are never framed", async () => {
    for (const p of ["/api/v1/auth/me", "/api/v1/admin/experiments", "/admin", "/", "/api/v1/me"]) {
      const r = await app.client().get(p);
      expect(r.headers.get("x-content-type-options"), p).toBe("nosniff");
      expect(r.headers.get("content-security-policy"), p).toContain("default-src 'self'");
      const console = p.startsWith("/admin") || p.startsWith("/api/v1/a");
      expect(r.headers.get("x-frame-options"), p).toBe(console ? "DENY" : "SAMEORIGIN");
      expect(r.headers.get("content-security-policy"), p).toContain(
        console ? "frame-ancestors 'none'" : "frame-ancestors 'self'",
      );
      // Different policies keep a participant page's window and a console window apart on one origin.
      expect(r.headers.get("cross-origin-opener-policy"), p).toBe(
        console ? "same-origin" : "same-origin-allow-popups",
      );
    }
  });

  it("serves the web app precompressed to browsers that accept it, and plain to others", async () => {
    const shell = await fetch(`${app.url}/`, { headers: { "accept-encoding": "br, gzip" } });
    expect(shell.headers.get("content-encoding")).toBe("br");
    expect(shell.headers.get("content-type")).toContain("text/html");
    expect(shell.headers.get("vary")).toContain("Accept-Encoding");
    expect(await shell.text()).toContain("<html");
    const plain = await fetch(`${app.url}/admin`, { headers: { "accept-encoding": "identity" } });
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(await plain.text()).toContain("<html");
  });

  it("serves the participant shell for the feed and watch pages and the console app for other pages", async () => {
    for (const page of ["/", "/watch/abc-123"]) {
      const html = await (await fetch(`${app.url}${page}`)).text();
      expect(html, page).toContain('id="participant"');
      expect(html, page).not.toContain("__sveltekit");
    }
    for (const page of ["/admin", "/join/some-experiment", "/watch/a/b"]) {
      const html = await (await fetch(`${app.url}${page}`)).text();
      expect(html, page).toContain("__sveltekit");
    }
  });

  it("answers 400 malformed_path, not a 500, for a page or media path with a malformed escape", async () => {
    for (const page of ["/watch/%E0%A4%A", "/admin/%"]) {
      const r = await fetch(`${app.url}${page}`);
      expect(r.status, page).toBe(400);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe("malformed_path");
    }
    const media = await fetch(`${app.url}/media/%E0%A4%A`);
    expect([400, 404]).toContain(media.status);
  });

  it("serves health, readiness, and Prometheus metrics to the holder of FEEDLAB_METRICS_TOKEN only", async () => {
    const c = app.client();
    expect((await c.get("/healthz")).status).toBe(200);
    expect((await c.get("/readyz")).body).toEqual({ status: "ready" });
    for (const authorization of [undefined, "Bearer wrong-token-0123456789", `Basic ${METRICS_TOKEN}`]) {
      const refused = await c.request("GET", "/metrics", {
        headers: authorization ? { authorization } : {},
      });
      expect(refused.status, authorization).toBe(401);
      expect(codeOf(refused)).toBe("unauthorized");
      expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(refused.text).not.toContain("feedlab_");
    }
    const metrics = await c.request("GET", "/metrics", {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get("content-type")).toContain("text/plain");
    expect(metrics.text).toMatch(
      /feedlab_http_requests_total\{method="GET",route="\/readyz",status="200"\} 1/,
    );
  });

  it("tells only an admin why the server is not ready; anyone else gets its status alone", async () => {
    const down = vi
      .spyOn(app.runtime.eventLog, "healthcheck")
      .mockRejectedValue(new Error("broker 10.0.0.7:9092 unreachable"));
    try {
      const anonymous = await app.client().get("/readyz");
      expect(anonymous.status).toBe(503);
      expect(anonymous.body).toEqual({ status: "not_ready" });
      const asAdmin = await admin.get("/readyz");
      expect(asAdmin.status).toBe(503);
      expect(codeOf(asAdmin)).toBe("not_ready");
    } finally {
      down.mockRestore();
    }
    expect((await app.client().get("/readyz")).body).toEqual({ status: "ready" });
  });

  it("serves an OpenAPI 3.1 document covering every route, and its reader", async () => {
    const c = app.client();
    const doc = (await c.get("/api/v1/openapi.json")).body as {
      openapi: string;
      paths: Record<string, Record<string, { requestBody?: unknown }>>;
    };
    expect(doc.openapi).toBe("3.1.0");
    for (const p of [
      "/api/v1/auth/login",
      "/api/v1/admin/experiments/{id}",
      "/api/v1/admin/experiments/{id}/groups",
      "/api/v1/admin/groups/{id}",
      "/api/v1/admin/videos",
      "/api/v1/admin/experiments/{id}/videos",
      "/api/v1/admin/experiments/{id}/participants",
      "/api/v1/participants/join",
      "/api/v1/me",
      "/sessions",
      "/feed",
      "/feed/{id}/related",
      "/api/v1/videos/{id}",
    ]) {
      expect(doc.paths[p], p).toBeDefined();
    }
    expect(doc.paths["/api/v1/admin/experiments"]?.post?.requestBody).toMatchObject({
      content: { "application/json": { schema: { required: ["name"] } } },
    });
    const reader = await c.get("/api/docs");
    expect(reader.status).toBe(200);
    expect(reader.text).toContain("swagger-ui");
    expect((await c.get("/api/docs/assets/swagger-ui-bundle.js")).status).toBe(200);
  });

  it("refuses with 403 cross_origin, changing nothing, a sign-in, join, event batch or admin change that a page of another origin sent, and lets the server's own pages through", async () => {
    const { experiment } = await createStudy(admin, { status: "running", videoCount: 1 });
    const participant = await joinWithSession(app.client(), experiment.id, "origin-p");
    const port = new URL(app.url).port;
    const foreign: Record<string, string>[] = [
      { origin: "https://evil.example" },
      { origin: "null" },
      { origin: `http://127.0.0.1:${Number(port) === 1 ? 2 : 1}` },
      { origin: app.url, "sec-fetch-site": "same-site" },
      { "sec-fetch-site": "cross-site" },
    ];
    const own: Record<string, string>[] = [
      { origin: app.url, "sec-fetch-site": "same-origin" },
      { origin: `http://localhost:${port}` },
    ];
    const login = (c: Client, headers: Record<string, string>) =>
      c.request("POST", "/api/v1/auth/login", { json: ADMIN, headers });
    const join = (loginId: string, headers: Record<string, string>) =>
      app.client().request("POST", "/api/v1/participants/join", {
        json: { experiment_id: experiment.id, login_id: loginId },
        headers,
      });
    // As navigator.sendBeacon sends it: text/plain.
    const beacon = (id: string, headers: Record<string, string>) =>
      participant.client.request("POST", "/api/v1/events", {
        body: JSON.stringify({
          session_id: participant.sessionId,
          events: [wireEvent("PAGE_LOAD", { event_id: id })],
        }),
        contentType: "text/plain;charset=UTF-8",
        headers,
      });
    const rename = (name: string, headers: Record<string, string>, as = admin) =>
      as.request("PATCH", `/api/v1/admin/experiments/${experiment.id}`, { json: { name }, headers });
    const refused = (r: Reply, what: string) => {
      expect(r.status, what).toBe(403);
      expect(codeOf(r), what).toBe("cross_origin");
    };

    const refusedEvents: string[] = [];
    for (const [i, headers] of foreign.entries()) {
      const what = JSON.stringify(headers);
      const stranger = app.client();
      const signIn = await login(stranger, headers);
      refused(signIn, `sign-in ${what}`);
      expect(signIn.headers.getSetCookie()).toEqual([]);
      refused(await join(`cross-${i}`, headers), `join ${what}`);
      refusedEvents.push(crypto.randomUUID());
      refused(await beacon(refusedEvents.at(-1) ?? "", headers), `events ${what}`);
      refused(await rename(`Renamed ${i}`, headers), `rename ${what}`);
    }
    expect((await admin.get<{ name: string }>(`/api/v1/admin/experiments/${experiment.id}`)).body.name).toBe(
      "Study",
    );
    const people = await admin.get<{ items: { login_id: string }[] }>(
      `/api/v1/admin/experiments/${experiment.id}/participants`,
    );
    expect(people.body.items.map((p) => p.login_id)).toEqual(["origin-p"]);

    const accepted: string[] = [];
    for (const [i, headers] of own.entries()) {
      const what = JSON.stringify(headers);
      const c = app.client();
      const signedIn = await login(c, headers);
      expect(signedIn.status, `sign-in ${what}`).toBe(200);
      expect((await c.get("/api/v1/auth/me")).status).toBe(200);
      expect((await join(`own-${i}`, headers)).status, `join ${what}`).toBe(200);
      accepted.push(crypto.randomUUID());
      expect((await beacon(accepted.at(-1) ?? "", headers)).status, `events ${what}`).toBe(202);
      // The console's own requests carry its credential (a browser's admin request needs it).
      const console = {
        ...headers,
        "x-feedlab-console": (signedIn.body as { console_token: string }).console_token,
      };
      expect((await rename(`Renamed ${i}`, console, c)).status, `rename ${what}`).toBe(200);
    }
    // Every event appended so far is projected: the accepted ones are stored, the refused ones never were.
    expect(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 10_000)).toBe(true);
    const stored = await app.runtime
      .db("events")
      .whereIn("event_id", [...accepted, ...refusedEvents])
      .pluck("event_id");
    expect(stored.sort()).toEqual([...accepted].sort());
  });
});
