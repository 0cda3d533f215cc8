import { readFileSync } from "node:fs";
import type { AdminSettings } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, startTestApp, type TestApp } from "../../../test/harness/app.ts";

/** The release, as package.json names it (`feedlab --version`). */
const ROOT_VERSION = JSON.parse(
  readFileSync(new URL("../../../package.json", import.meta.url), "utf8"),
).version;

describe.each(BACKENDS)("GET /api/v1/admin/settings (%s)", (backend) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(backend);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("answers 401 without an admin session", async () => {
    const r = await app.client().get("/api/v1/admin/settings");
    expect(r.status).toBe(401);
  });

  it("reports the address the server really answers on, unreachable from elsewhere on 127.0.0.1", async () => {
    const r = await (await app.admin()).get<AdminSettings>("/api/v1/admin/settings");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      public_url: app.url,
      public_url_reachable: false,
      public_url_problem: expect.stringMatching(/127\.0\.0\.1 is a loopback address.*FEEDLAB_PUBLIC_URL/),
      version: ROOT_VERSION,
    });
  });
});

describe.each(BACKENDS)("GET /api/v1/admin/settings with FEEDLAB_PUBLIC_URL (%s)", (backend) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(backend, { env: { FEEDLAB_PUBLIC_URL: "https://study.example.org" } });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("reports FEEDLAB_PUBLIC_URL as reachable when its host is a public name", async () => {
    // An https public URL refuses sign-ins over plain HTTP: the session comes from the service itself.
    const r = await (await app.adminBySession()).get<AdminSettings>("/api/v1/admin/settings");
    expect(r.body).toEqual({
      public_url: "https://study.example.org",
      public_url_reachable: true,
      public_url_problem: null,
      version: ROOT_VERSION,
    });
  });
});
