import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, type Client, codeOf, startTestApp, type TestApp } from "../../../test/harness/app.ts";

/**
 * api.md "Trust boundaries": researcher code runs on the console's origin, where the admin cookie goes
 * with every request. These are the requests a layout's code can make from a participant page or a
 * console tab of a signed-in admin's browser, as the browser sends them (with Fetch Metadata).
 */
describe("admin routes from a browser need the console credential", () => {
  let app: TestApp;
  let admin: Client;
  let credential: string;
  beforeAll(async () => {
    app = await startTestApp("pglite");
    admin = app.client();
    const signedIn = await admin.post<{ console_token: string }>("/api/v1/auth/login", ADMIN);
    credential = signedIn.body.console_token;
  });
  afterAll(async () => {
    await app?.stop();
  });

  /**
   * A request as a browser sends a page load (Node's fetch would rewrite its `Sec-Fetch-Mode` to `cors`),
   * with the cookies of `as`.
   */
  const browserRequest = (
    as: Client,
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<{ status: number; headers: Headers; text: string }> =>
    new Promise((resolve, reject) => {
      const cookie = [...as.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
      const req = request(`${app.url}${path}`, {
        method,
        headers: { ...headers, ...(cookie ? { cookie } : {}) },
      });
      req.on("response", (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") h.set(k, v);
          resolve({ status: res.statusCode ?? 0, headers: h, text });
        });
      });
      req.on("error", reject);
      req.end(body);
    });

  /** What Chromium sends with a page's `fetch` to its own origin. */
  const pageFetch = { "sec-fetch-site": "same-origin", "sec-fetch-mode": "cors", "sec-fetch-dest": "empty" };
  const withOrigin = (h: Record<string, string>) => ({ ...h, origin: app.url });
  const adminNames = async () =>
    (await admin.get<{ username: string }[]>("/api/v1/admin/admins")).body.map((a) => a.username);

  it("refuses a page's fetch to admin routes with the admin cookie alone, creating and reading nothing", async () => {
    const create = await admin.request("POST", "/api/v1/admin/admins", {
      json: { username: "layout-made", password: "layout-made-pass" },
      headers: withOrigin(pageFetch),
    });
    expect(create.status).toBe(403);
    expect(codeOf(create)).toBe("console_credential_required");
    for (const path of ["/api/v1/admin/admins", "/api/v1/admin/experiments", "/api/v1/auth/me"]) {
      const read = await admin.request("GET", path, { headers: pageFetch });
      expect(read.status, path).toBe(403);
      expect(read.text, path).not.toContain(ADMIN.username);
    }
    const wrong = await admin.request("GET", "/api/v1/admin/admins", {
      headers: {
        ...pageFetch,
        "x-feedlab-console": credential.replace(/^./, (c) => (c === "A" ? "B" : "A")),
      },
    });
    expect(wrong.status).toBe(403);
    // Another page cannot sign the admin out either.
    const logout = await admin.request("POST", "/api/v1/auth/logout", { headers: withOrigin(pageFetch) });
    expect(logout.status).toBe(403);
    // /readyz tells such a request no more than a stranger.
    expect(
      Object.keys((await admin.request("GET", "/readyz", { headers: pageFetch })).body as object),
    ).toEqual(["status"]);
    // Scripts and the CLI send no Fetch Metadata: the cookie alone still works, and nothing was created.
    expect(await adminNames()).toEqual([ADMIN.username]);
    expect((await admin.get("/api/v1/auth/me")).status).toBe(200);
  });

  it("answers the console's requests, which carry the credential, and the credential of one session only", async () => {
    const console = { ...withOrigin(pageFetch), "x-feedlab-console": credential };
    const created = await admin.request("POST", "/api/v1/admin/admins", {
      json: { username: "console-made", password: "console-made-pass" },
      headers: console,
    });
    expect(created.status).toBe(201);
    expect((await admin.request("GET", "/api/v1/auth/me", { headers: console })).status).toBe(200);
    // Another admin session's credential is not this one's.
    const other = app.client();
    const theirs = await other.post<{ console_token: string }>("/api/v1/auth/login", ADMIN);
    expect(theirs.body.console_token).not.toBe(credential);
    const crossed = await other.request("GET", "/api/v1/auth/me", {
      headers: { ...pageFetch, "x-feedlab-console": credential },
    });
    expect(crossed.status).toBe(403);
    await admin.request("DELETE", "/api/v1/admin/admins/console-made", { headers: console });
  });

  it("answers a top-level page load of an admin route in a window no other page can script, and never in a frame", async () => {
    const navigate = {
      "sec-fetch-site": "same-origin",
      "sec-fetch-mode": "navigate",
      "sec-fetch-user": "?1",
    };
    // A link to a download, or the address bar: the answer opens in an isolated window.
    for (const dest of ["document", "empty"]) {
      const read = await browserRequest(admin, "GET", "/api/v1/admin/experiments", {
        ...navigate,
        "sec-fetch-dest": dest,
      });
      expect(read.status, dest).toBe(200);
      expect(read.headers.get("cross-origin-opener-policy")).toBe("same-origin");
    }
    for (const dest of ["iframe", "object", "embed"]) {
      const framed = await browserRequest(admin, "GET", "/api/v1/admin/experiments", {
        ...navigate,
        "sec-fetch-dest": dest,
      });
      expect(framed.status, dest).toBe(403);
    }
    // A form's POST is a navigation too, but a change: it needs the credential.
    const form = await browserRequest(
      admin,
      "POST",
      "/api/v1/admin/admins",
      withOrigin({
        ...navigate,
        "sec-fetch-dest": "document",
        "content-type": "application/x-www-form-urlencoded",
      }),
      "username=form-made&password=form-made-pass",
    );
    expect(form.status).toBe(403);
    expect(await adminNames()).toEqual([ADMIN.username]);
  });

  it("puts the credential only in a console page a signed-in admin's browser opens as a page, never cached", async () => {
    const meta = /<meta name="feedlab-console" content="([\w-]+)">/;
    const topLevel = { "sec-fetch-site": "none", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" };
    const page = await browserRequest(admin, "GET", "/admin/experiments", topLevel);
    expect(page.status).toBe(200);
    expect(meta.exec(page.text)?.[1]).toBe(credential);
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("cross-origin-opener-policy")).toBe("same-origin");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    // A page's fetch of the console, a frame of it, a stranger, a participant page: no credential.
    const asFetch = await admin.request("GET", "/admin/experiments", { headers: pageFetch });
    const asFrame = await browserRequest(admin, "GET", "/admin", { ...topLevel, "sec-fetch-dest": "iframe" });
    const stranger = await browserRequest(app.client(), "GET", "/admin", topLevel);
    const participantPage = await browserRequest(admin, "GET", "/", topLevel);
    for (const r of [asFetch, asFrame, stranger, participantPage]) {
      expect(r.status).toBe(200);
      expect(r.text).toContain("<html");
      expect(r.text).not.toMatch(meta);
      expect(r.text).not.toContain(credential);
    }
    expect(participantPage.headers.get("cross-origin-opener-policy")).toBe("same-origin-allow-popups");
  });

  it("sandboxes the layout preview's document, serves the files it loads to its own origin, and installs no service worker", async () => {
    const preview = await app.client().get("/layout-preview.html");
    expect(preview.status).toBe(200);
    expect(preview.headers.getSetCookie()).toEqual([]);
    expect(preview.headers.get("content-security-policy")).toContain("sandbox allow-scripts");
    expect(preview.headers.get("content-security-policy")).not.toContain("allow-same-origin");
    const script = /src="(\/_app\/[^"]+\.js)"/.exec(preview.text)?.[1] ?? "";
    const asset = await app.client().request("GET", script, { headers: { origin: "null" } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get("access-control-allow-origin")).toBe("*");
    expect(asset.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    // A layout's module is script of this origin: registering it as a service worker is refused.
    const worker = await admin.request("GET", script, {
      headers: {
        "service-worker": "script",
        "sec-fetch-dest": "serviceworker",
        "sec-fetch-site": "same-origin",
      },
    });
    expect(worker.status).toBe(403);
  });
});
