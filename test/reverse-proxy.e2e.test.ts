import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN } from "./harness/app.ts";
import { axeViolations } from "./harness/axe.ts";
import { saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";
import { createStudy } from "./harness/fixtures.ts";
import { startTlsProxy, type TlsProxy } from "./harness/nginx.ts";
import { freePort } from "./harness/ports.ts";

/** nginx reaches Feedlab from here; Chromium and the test's clients come from other loopback addresses. */
const PROXY_ADDRESS = "127.0.0.254";
/** FEEDLAB_JOIN_RATE_LIMIT's default: joins per client address per minute. */
const JOIN_LIMIT = 120;

/**
 * api.md "Behind a reverse proxy", issue 41's deployment: the committed nginx example terminates TLS
 * (a self-signed certificate) in front of the embedded server, which trusts that one proxy.
 */
describe("Feedlab behind nginx over HTTPS (Chromium)", () => {
  /** The port nginx listens on, which the app's public URL names. */
  let port: number;
  const suite = e2eSuite({
    app: async () => {
      port = await freePort();
      return {
        env: {
          FEEDLAB_PUBLIC_URL: `https://localhost:${port}`,
          FEEDLAB_TRUST_PROXY: PROXY_ADDRESS,
          FEEDLAB_JOIN_RATE_LIMIT: String(JOIN_LIMIT),
        },
      };
    },
    // The study is set up past the proxy with a session from the service: the admin's own sign-in
    // through nginx is what a test below checks.
    adminBySession: true,
  });
  let proxy: TlsProxy;
  let experimentId: string;

  beforeAll(async () => {
    proxy = await startTlsProxy({ port, upstream: suite.app.url, bindAddress: PROXY_ADDRESS });
    experimentId = (await createStudy(suite.api, { status: "running", videoCount: 3 })).experiment.id;
  });
  afterAll(async () => {
    await proxy?.stop();
  });

  /** A client at one loopback address, speaking HTTPS to nginx and trusting its certificate. */
  function clientAt(address: string) {
    const dispatcher = new Agent({ localAddress: address, connect: { ca: proxy.certificate } });
    return {
      post: async (pathname: string, body: unknown) => {
        const r = await request(`${proxy.url}${pathname}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
          dispatcher,
        });
        return {
          status: r.statusCode,
          headers: r.headers,
          body: (await r.body.json()) as { error?: { code: string } },
        };
      },
      close: () => dispatcher.close(),
    };
  }

  async function join(address: string, loginId: string) {
    const client = clientAt(address);
    try {
      return await client.post("/api/v1/participants/join", {
        experiment_id: experimentId,
        login_id: loginId,
      });
    } finally {
      await client.close();
    }
  }

  it("lets a participant join and an admin sign in over HTTPS, with Secure, HttpOnly, SameSite=Lax cookies", async () => {
    const context = await suite.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    await page.goto(`${proxy.url}/join/${experimentId}?login_id=chromium-participant`);
    await page.locator('a[href^="/watch/"]').first().waitFor();
    expect(new URL(page.url()).origin).toBe(proxy.url);
    await saveScreenshot(page, "https-proxy-feed");

    const admin = await suite.newContext({ ignoreHTTPSErrors: true });
    const console = await admin.newPage();
    const signIn = console.waitForResponse((r) => r.url().endsWith("/api/v1/auth/login"));
    await signInToConsole(console, proxy.url);
    const response = await signIn;
    expect(response.status()).toBe(200);
    expect(await response.headerValue("strict-transport-security")).toMatch(/^max-age=\d{7,}/);

    for (const [ctx, name] of [
      [context, "feedlab_participant"],
      [admin, "feedlab_admin"],
    ] as const) {
      const cookie = (await ctx.cookies(proxy.url)).find((c) => c.name === name);
      expect(cookie, `${name} in ${JSON.stringify(await ctx.cookies())}`).toMatchObject({
        secure: true,
        httpOnly: true,
        sameSite: "Lax",
      });
    }
    await context.close();
    await admin.close();
  });

  it(`accepts ${200} joins from ${200} client addresses within a minute, while one address meets the limit of ${JOIN_LIMIT}`, async () => {
    const started = Date.now();
    const launch = Array.from({ length: 200 }, (_, i) => ({
      address: `127.0.1.${i + 1}`,
      login: `launch-${i}`,
    }));
    const statuses: number[] = [];
    // A launch: 20 participants at a time, each from their own address.
    for (let i = 0; i < launch.length; i += 20) {
      const wave = await Promise.all(launch.slice(i, i + 20).map((p) => join(p.address, p.login)));
      statuses.push(...wave.map((r) => r.status));
    }
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(statuses.filter((s) => s === 200)).toHaveLength(200);

    // One address, 200 times: the limit holds (Retry-After says when to come back), and the
    // refused joins create nobody.
    const from = "127.0.2.1";
    const same: { status: number; retryAfter: unknown; code: string | undefined }[] = [];
    const sameStarted = Date.now();
    for (let i = 0; i < 200; i++) {
      const r = await join(from, `same-${i}`);
      same.push({ status: r.status, retryAfter: r.headers["retry-after"], code: r.body.error?.code });
    }
    const took = Date.now() - sameStarted;
    const accepted = same.filter((r) => r.status === 200).length;
    // Exactly the limit when the 200 took under a minute; a slower machine lets in at most the limit
    // again for each further minute (the window slides).
    expect(accepted).toBeGreaterThanOrEqual(JOIN_LIMIT);
    expect(accepted).toBeLessThanOrEqual(JOIN_LIMIT * (1 + Math.floor(took / 60_000)));
    expect(same.slice(0, JOIN_LIMIT).every((r) => r.status === 200)).toBe(true);
    const refused = same.filter((r) => r.status === 429);
    expect(refused.length).toBe(200 - accepted);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((r) => r.code === "too_many_requests" && Number(r.retryAfter) > 0)).toBe(true);

    const people = await suite.api.get<{ items: { login_id: string }[]; next_cursor: string | null }>(
      `/api/v1/admin/experiments/${experimentId}/participants?limit=1000`,
    );
    expect(people.body.next_cursor).toBeNull();
    expect(people.body.items.filter((p) => p.login_id.startsWith("launch-"))).toHaveLength(200);
    expect(people.body.items.filter((p) => p.login_id.startsWith("same-"))).toHaveLength(accepted);
  });

  it("shows the client's address in the console's audit log, not the proxy's", async () => {
    const stranger = clientAt("127.0.3.9");
    const failed = await stranger.post("/api/v1/auth/login", {
      username: ADMIN.username,
      password: "a-wrong-guess",
    });
    await stranger.close();
    expect(failed.status).toBe(401);

    const context = await suite.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    await signInToConsole(page, proxy.url);
    await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Audit" }).click();
    const rows = page.getByRole("region", { name: "Entries" }).getByRole("row");
    await rows.filter({ hasText: "Failed sign-in" }).filter({ hasText: "From 127.0.3.9" }).waitFor();
    // Chromium connects from 127.0.0.1.
    await rows.filter({ hasText: "Signed in" }).filter({ hasText: "From 127.0.0.1" }).first().waitFor();
    expect(await page.getByRole("region", { name: "Entries" }).textContent()).not.toContain(PROXY_ADDRESS);
    expect(await axeViolations(page)).toEqual([]);
    await saveScreenshot(page, "https-proxy-audit");
    await context.close();
  });
});
