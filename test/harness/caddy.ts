import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Agent, request } from "undici";

/** Debian's Caddy (package `caddy`); FEEDLAB_CADDY points elsewhere. */
const caddyPath = process.env.FEEDLAB_CADDY || "/usr/bin/caddy";

/**
 * The site the docs give operators, which docker-compose.yml, deploy/compose.https.yml and
 * deploy/install.sh all run (docs/deploy.md).
 */
export const COMMITTED_CADDYFILE = path.resolve(import.meta.dirname, "../../deploy/caddy/Caddyfile");

export interface CaddyProxy {
  /** `https://localhost:<port>` */
  readonly url: string;
  /** The root certificate of Caddy's local authority, which signed the site's certificate. */
  readonly rootCertificate: string;
  /** Caddy's log so far, for a failed assertion's message. */
  logs(): string;
  stop(): Promise<void>;
}

export interface CaddyOptions {
  /** The HTTPS port to listen on (127.0.0.1). */
  readonly port: number;
  /** Feedlab's `http://host:port`. */
  readonly upstream: string;
}

/**
 * Runs Debian's Caddy with the committed Caddyfile, unchanged, in front of a Feedlab server: a
 * Caddyfile of the test's own sets the global options and imports it, and the committed file's
 * variables name the site (`localhost:<port>`) and the upstream, as the compose files and the install
 * script set them. The global options keep everything on this machine: certificates from Caddy's local
 * authority (never an ACME server), its root out of the system's trust stores, no port-80 redirect
 * server, no admin endpoint, and TCP listeners on 127.0.0.1 only. Caddy's state (the authority's keys
 * included) lives in a temporary folder removed by `stop`.
 */
export async function startCaddy(options: CaddyOptions): Promise<CaddyProxy> {
  const dir = mkdtempSync(path.join(tmpdir(), "feedlab-caddy-"));
  const config = path.join(dir, "Caddyfile");
  writeFileSync(
    config,
    [
      "{",
      "\tadmin off",
      "\tlocal_certs",
      "\tskip_install_trust",
      "\tauto_https disable_redirects",
      "\tdefault_bind 127.0.0.1",
      // No HTTP/3: its UDP port, the TCP port's number, was not checked free, and clients here speak h1.
      "\tservers {",
      "\t\tprotocols h1 h2",
      "\t}",
      "}",
      `import ${COMMITTED_CADDYFILE}`,
      "",
    ].join("\n"),
  );
  const child: ChildProcess = spawn(caddyPath, ["run", "--config", config, "--adapter", "caddyfile"], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      // Caddy keeps its data (the local authority's root: caddy/pki/authorities/local/root.crt) and
      // its autosaved configuration under these.
      HOME: dir,
      XDG_DATA_HOME: path.join(dir, "data"),
      XDG_CONFIG_HOME: path.join(dir, "config"),
      FEEDLAB_SITE: `localhost:${options.port}`,
      FEEDLAB_UPSTREAMS: new URL(options.upstream).host,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr?.on("data", (d) => {
    log += d;
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let spawnError: Error | undefined;
  child.once("error", (e) => {
    spawnError = e;
  });
  const url = `https://localhost:${options.port}`;
  const rootFile = path.join(dir, "data", "caddy", "pki", "authorities", "local", "root.crt");
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  // Ready once Caddy answers over HTTPS with a certificate of its authority and passes a request on:
  // its active health check (`health_uri /readyz`) takes an upstream in only after a first check.
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (spawnError || child.exitCode !== null) {
      await stop();
      throw new Error(`caddy (${caddyPath}) did not start: ${spawnError?.message ?? ""}\n${log}`);
    }
    if (existsSync(rootFile) && (await readyzStatus(url, readFileSync(rootFile, "utf8"))) === 200) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`caddy did not pass requests to ${options.upstream} within 30 s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, rootCertificate: readFileSync(rootFile, "utf8"), logs: () => log, stop };
}

async function readyzStatus(url: string, ca: string): Promise<number | null> {
  const dispatcher = new Agent({ connect: { ca } });
  try {
    const r = await request(`${url}/readyz`, { dispatcher });
    await r.body.dump();
    return r.statusCode;
  } catch {
    return null; // not listening yet, or no certificate yet
  } finally {
    await dispatcher.close();
  }
}
