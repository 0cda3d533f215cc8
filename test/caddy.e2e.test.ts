import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { Agent, FormData, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pyyamlLoad } from "./harness/analysis.ts";
import { ADMIN, startTestApp, type TestApp } from "./harness/app.ts";
import { type CaddyProxy, COMMITTED_CADDYFILE, startCaddy } from "./harness/caddy.ts";
import { createStudy } from "./harness/fixtures.ts";
import { freePort } from "./harness/ports.ts";

/** Joins per client address per minute, low so that one address meets it in a few requests. */
const JOIN_LIMIT = 3;

/**
 * api.md "Behind a reverse proxy", issue 60's public server: the committed Caddyfile, as the compose
 * files and deploy/install.sh run it (Debian's Caddy, a certificate of its local authority), in front
 * of the embedded server, which trusts it as the one proxy in front (FEEDLAB_TRUST_PROXY=1, as there).
 * Caddy connects to Feedlab from 127.0.0.1; each client here connects to Caddy from an address of
 * its own in 127.0.0.0/8.
 */
describe("Feedlab behind the committed Caddyfile over HTTPS (Caddy's local authority)", () => {
  let app: TestApp;
  let caddy: CaddyProxy;
  let experimentId: string;

  beforeAll(async () => {
    const port = await freePort();
    app = await startTestApp("pglite", {
      env: {
        FEEDLAB_PUBLIC_URL: `https://localhost:${port}`,
        FEEDLAB_TRUST_PROXY: "1",
        FEEDLAB_JOIN_RATE_LIMIT: String(JOIN_LIMIT),
      },
    });
    caddy = await startCaddy({ port, upstream: app.url });
    // Set up past the proxy with a session from the service: the sign-in through Caddy is a test.
    const admin = await app.adminBySession();
    experimentId = (await createStudy(admin, { status: "running", videoCount: 2 })).experiment.id;
  });
  afterAll(async () => {
    await caddy?.stop();
    await app?.stop();
  });

  /** A client at one loopback address that trusts only Caddy's local authority, with a cookie jar. */
  function clientAt(address: string) {
    const dispatcher = new Agent({ localAddress: address, connect: { ca: caddy.rootCertificate } });
    const cookies = new Map<string, string>();
    const send = async (
      method: "GET" | "POST",
      pathname: string,
      options: { json?: unknown; form?: FormData; headers?: Record<string, string> } = {},
    ) => {
      const headers: Record<string, string> = { ...options.headers };
      if (cookies.size > 0) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join("; ");
      if (options.json !== undefined) headers["content-type"] = "application/json";
      const r = await request(`${caddy.url}${pathname}`, {
        method,
        headers,
        body: options.json !== undefined ? JSON.stringify(options.json) : options.form,
        dispatcher,
      });
      const setCookies = [r.headers["set-cookie"] ?? []].flat();
      for (const c of setCookies) {
        const [pair = ""] = c.split(";");
        const eq = pair.indexOf("=");
        if (eq > 0) cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
      }
      const bytes = Buffer.from(await r.body.arrayBuffer());
      return {
        status: r.statusCode,
        headers: r.headers,
        setCookies,
        bytes,
        json: () => JSON.parse(`${bytes}`),
      };
    };
    return {
      get: (pathname: string, headers?: Record<string, string>) => send("GET", pathname, { headers }),
      post: (pathname: string, json: unknown, headers?: Record<string, string>) =>
        send("POST", pathname, { json, headers }),
      upload: (pathname: string, form: FormData) => send("POST", pathname, { form }),
      close: () => dispatcher.close(),
    };
  }

  async function join(address: string, loginId: string, headers?: Record<string, string>) {
    const client = clientAt(address);
    try {
      return await client.post(
        "/api/v1/participants/join",
        { experiment_id: experimentId, login_id: loginId },
        headers,
      );
    } finally {
      await client.close();
    }
  }

  const cookieNamed = (setCookies: string[], name: string) =>
    setCookies.find((c) => c.startsWith(`${name}=`));

  it("answers /readyz over HTTPS with a certificate of Caddy's authority, with one HSTS header from Feedlab", async () => {
    const client = clientAt("127.0.4.1");
    const r = await client.get("/readyz");
    await client.close();
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ status: "ready" });
    expect(r.headers["strict-transport-security"]).toMatch(/^max-age=\d{7,}/);
  });

  it("signs the admin in and joins a participant over HTTPS, with Secure, HttpOnly, SameSite=Lax cookies", async () => {
    const admin = clientAt("127.0.4.2");
    // As the console sends it: from the public URL's origin.
    const signIn = await admin.post("/api/v1/auth/login", ADMIN, { origin: caddy.url });
    await admin.close();
    expect(signIn.status, `${signIn.bytes}\n${caddy.logs()}`).toBe(200);
    const adminCookie = cookieNamed(signIn.setCookies, "feedlab_admin");
    expect(adminCookie, JSON.stringify(signIn.setCookies)).toBeDefined();

    const joined = await join("127.0.4.3", "caddy-participant", { origin: caddy.url });
    expect(joined.status).toBe(200);
    const participantCookie = cookieNamed(joined.setCookies, "feedlab_participant");
    expect(participantCookie, JSON.stringify(joined.setCookies)).toBeDefined();

    for (const cookie of [adminCookie, participantCookie]) {
      const attributes = `${cookie}`.split(";").map((a) => a.trim().toLowerCase());
      expect(attributes).toEqual(expect.arrayContaining(["secure", "httponly", "samesite=lax"]));
    }
  });

  it(`refuses a join past ${JOIN_LIMIT} from one client address, but not from another, nor from a third that names the first in its own X-Forwarded-For`, async () => {
    const first = "127.0.5.1";
    const statuses: number[] = [];
    for (let i = 0; i <= JOIN_LIMIT; i++) statuses.push((await join(first, `limit-${i}`)).status);
    expect(statuses).toEqual([...Array(JOIN_LIMIT).fill(200), 429]);

    // Feedlab counts the address Caddy reports: another client's joins are its own...
    expect((await join("127.0.5.2", "other-address")).status).toBe(200);
    // ...and Caddy replaces a client's X-Forwarded-For with the address it connected from.
    const forged = await join("127.0.5.3", "forged-address", { "x-forwarded-for": first });
    expect(forged.status).toBe(200);
  });

  it("records the client's address, not Caddy's, in the audit log of a failed sign-in", async () => {
    const stranger = clientAt("127.0.6.9");
    const failed = await stranger.post("/api/v1/auth/login", {
      username: ADMIN.username,
      password: "a-wrong-guess",
    });
    await stranger.close();
    expect(failed.status).toBe(401);

    const admin = await app.adminBySession();
    const audit = await admin.get<{ action: string; details: { address?: string } }[]>(
      "/api/v1/admin/audit?limit=20",
    );
    const entry = audit.body.find((e) => e.action === "auth.login_failed");
    expect(entry?.details.address).toBe("127.0.6.9");
  });

  it("passes a 24 MB upload to Feedlab and streams it back whole and by range", async () => {
    const admin = clientAt("127.0.7.1");
    expect((await admin.post("/api/v1/auth/login", ADMIN)).status).toBe(200);
    // An MP4 to Feedlab's eyes, which tell a file's type from its first bytes: an `ftyp` box.
    const video = Buffer.concat([
      Buffer.from([0, 0, 0, 0x18]),
      Buffer.from("ftypisom"),
      randomBytes(24 * 1024 * 1024),
    ]);
    const form = new FormData();
    form.set("file", new Blob([video], { type: "video/mp4" }), "large.mp4");
    const uploaded = await admin.upload("/api/v1/admin/media", form);
    expect(uploaded.status, `${uploaded.bytes}`).toBe(201);
    const { url, bytes } = uploaded.json() as { url: string; bytes: number };
    expect(bytes).toBe(video.length);

    const whole = await admin.get(url);
    expect(whole.status).toBe(200);
    const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
    expect(sha256(whole.bytes)).toBe(sha256(video));

    const part = await admin.get(url, { range: "bytes=1000-1999" });
    expect(part.status).toBe(206);
    expect(part.bytes.equals(video.subarray(1000, 2000))).toBe(true);
    await admin.close();
  });
});

/**
 * deploy/compose.https.yml, which no Docker engine here can run: read as YAML, it runs the Caddyfile
 * tested above in front of one Feedlab process on the embedded database, in the settings tested above.
 */
describe("deploy/compose.https.yml", () => {
  const deploy = path.resolve(import.meta.dirname, "../deploy");
  interface Service {
    build?: { context: string; dockerfile: string };
    environment: Record<string, string>;
    ports?: string[];
    volumes: string[];
  }

  it("puts the tested Caddyfile, the only published ports, in front of one embedded Feedlab that trusts it", async () => {
    const compose = (await pyyamlLoad(readFileSync(path.join(deploy, "compose.https.yml"), "utf8"))) as {
      services: Record<string, Service>;
      volumes: Record<string, unknown>;
    };
    expect(Object.keys(compose.services).sort()).toEqual(["caddy", "feedlab"]);
    const { caddy, feedlab } = compose.services as { caddy: Service; feedlab: Service };

    expect(caddy.ports).toEqual(["80:80", "443:443", "443:443/udp"]);
    expect(feedlab.ports).toBeUndefined();
    const mounted = caddy.volumes.find((v) => v.endsWith(":/etc/caddy/Caddyfile:ro"))?.split(":")[0] ?? "";
    expect(path.resolve(deploy, mounted)).toBe(COMMITTED_CADDYFILE);
    expect(caddy.environment.FEEDLAB_SITE).toMatch(/^\$\{FEEDLAB_DOMAIN:\?[^}]+\}$/);
    expect(caddy.environment.FEEDLAB_UPSTREAMS).toBe("feedlab:8080");

    const context = path.resolve(deploy, feedlab.build?.context ?? "");
    expect(existsSync(path.join(context, feedlab.build?.dockerfile ?? ""))).toBe(true);
    expect(feedlab.environment).toMatchObject({ FEEDLAB_TRUST_PROXY: "1" });
    expect(feedlab.environment.FEEDLAB_PUBLIC_URL).toMatch(/^https:\/\/\$\{FEEDLAB_DOMAIN:\?[^}]+\}$/);
    expect(feedlab.environment).not.toHaveProperty("DATABASE_URL");
    expect(feedlab.environment).not.toHaveProperty("KAFKA_BROKERS");
    // The data folder and the uploads each on a named volume the file declares.
    for (const folder of [feedlab.environment.FEEDLAB_DATA_DIR, feedlab.environment.FEEDLAB_MEDIA_DIR]) {
      const volume = feedlab.volumes.find((v) => v.endsWith(`:${folder}`))?.split(":")[0] ?? "";
      expect(Object.keys(compose.volumes), `${folder} on ${volume}`).toContain(volume);
    }
  });
});
