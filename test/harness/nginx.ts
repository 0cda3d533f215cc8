import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/** Debian's nginx (package `nginx`); FEEDLAB_NGINX points elsewhere. */
const nginxPath = process.env.FEEDLAB_NGINX || "/usr/sbin/nginx";

/** The example server blocks the docs give operators (docs/deploy.md). */
const EXAMPLE = path.resolve(import.meta.dirname, "../../deploy/nginx/feedlab.conf");

export interface TlsProxy {
  /** `https://localhost:<port>` */
  readonly url: string;
  /** The certificate it presents (self-signed, for localhost and 127.0.0.1). */
  readonly certificate: string;
  /** nginx's own log so far, for a failed assertion's message. */
  errors(): string;
  stop(): Promise<void>;
}

export interface TlsProxyOptions {
  /** The HTTPS port to listen on (127.0.0.1). */
  readonly port: number;
  /** Feedlab's `http://host:port`. */
  readonly upstream: string;
  /** The address nginx connects to Feedlab from, so the two ends can be told apart on loopback. */
  readonly bindAddress: string;
}

/**
 * Runs nginx with the committed example configuration in front of a Feedlab server: the test's port,
 * upstream and a self-signed certificate replace the example's, the port-80 redirect is left out, and
 * nginx connects to Feedlab from `bindAddress`; every other line is the example's.
 */
export async function startTlsProxy(options: TlsProxyOptions): Promise<TlsProxy> {
  const dir = mkdtempSync(path.join(tmpdir(), "feedlab-nginx-"));
  for (const temp of ["body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirSync(path.join(dir, temp));
  const key = path.join(dir, "key.pem");
  const cert = path.join(dir, "cert.pem");
  execFileSync(
    "openssl",
    [
      ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2"],
      ...["-keyout", key, "-out", cert, "-subj", "/CN=localhost"],
      ...["-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
    ],
    { stdio: "ignore" },
  );
  const upstream = new URL(options.upstream).host;
  // The redirect server (port 80) is left out; IPv6 may be missing here.
  const site = readFileSync(EXAMPLE, "utf8")
    .replace(/server \{\s*listen 80;[\s\S]*?\n\}\n/, "")
    .replace(/^\s*listen \[::\].*$/gm, "")
    .replace("listen 443 ssl http2;", `listen 127.0.0.1:${options.port} ssl http2;`)
    .replace("server 127.0.0.1:8080;", `server ${upstream};`)
    .replace(/ssl_certificate .*;/, `ssl_certificate ${cert};`)
    .replace(/ssl_certificate_key .*;/, `ssl_certificate_key ${key};`)
    .replace(
      "proxy_pass http://feedlab;",
      `proxy_pass http://feedlab;\n        proxy_bind ${options.bindAddress};`,
    );
  if (!site.includes(`127.0.0.1:${options.port}`) || !site.includes(key) || !site.includes("proxy_bind"))
    throw new Error(`deploy/nginx/feedlab.conf no longer has the lines the test replaces:\n${site}`);
  writeFileSync(path.join(dir, "feedlab.conf"), site);
  const errorLog = path.join(dir, "error.log");
  writeFileSync(
    path.join(dir, "nginx.conf"),
    [
      "daemon off;",
      "worker_processes 1;",
      `pid ${path.join(dir, "nginx.pid")};`,
      `error_log ${errorLog} warn;`,
      ...(process.getuid?.() === 0 ? ["user root;"] : []),
      "events { worker_connections 1024; }",
      "http {",
      `  access_log ${path.join(dir, "access.log")};`,
      ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map(
        (t) => `  ${t}_temp_path ${path.join(dir, t === "client_body" ? "body" : t)};`,
      ),
      `  include ${path.join(dir, "feedlab.conf")};`,
      "}",
    ].join("\n"),
  );
  const child: ChildProcess = spawn(
    nginxPath,
    ["-p", dir, "-e", errorLog, "-c", path.join(dir, "nginx.conf")],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  child.stderr?.on("data", (d) => {
    stderr += d;
  });
  const errors = () => `${stderr}${existsSync(errorLog) ? readFileSync(errorLog, "utf8") : ""}`;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const deadline = Date.now() + 15_000;
  while (!(await accepts(options.port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`nginx did not start:\n${errors()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `https://localhost:${options.port}`,
    certificate: readFileSync(cert, "utf8"),
    errors,
    stop: async () => {
      child.kill("SIGQUIT"); // graceful: workers finish their requests
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
