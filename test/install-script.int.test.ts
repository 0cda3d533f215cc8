import { execFileSync, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMITTED_CADDYFILE } from "./harness/caddy.ts";

const repoRoot = path.resolve(import.meta.dirname, "..");
/** Debian's Caddy (package `caddy`); FEEDLAB_CADDY points elsewhere. */
const caddyPath = process.env.FEEDLAB_CADDY || "/usr/bin/caddy";
/** Debian's systemd (package `systemd`), which checks a unit file without running it. */
const systemdAnalyze = "/usr/bin/systemd-analyze";
/** FEEDLAB_MAX_UPLOAD_MB's default, in bytes: what a proxy in front must let through. */
const DEFAULT_UPLOAD_LIMIT = 2048 * 1024 * 1024;

/**
 * deploy/install.sh (issue 60: a public server in one step) in the mode that writes every file under a
 * folder of the test's and starts, installs and builds nothing (`--root DIR --no-build`), from a git
 * repository of the test's that holds the working tree's deploy/ folder: no network, no root, no systemd.
 * The Caddyfile it points Caddy at is run for real in test/caddy.e2e.test.ts.
 */
describe("deploy/install.sh into a folder (--root, --no-build)", () => {
  const work = mkdtempSync(path.join(tmpdir(), "feedlab-install-"));
  const source = path.join(work, "source");
  const root = path.join(work, "root");
  const at = (file: string) => path.join(root, file);
  const read = (file: string) => readFileSync(at(file), "utf8");
  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.org", ...args], {
      cwd,
      encoding: "utf8",
    }).trim();
  /** Runs the source checkout's script, as a lab runs it from its clone. */
  const install = (...args: string[]) => {
    const r = spawnSync("bash", [path.join(source, "deploy/install.sh"), ...args], {
      encoding: "utf8",
      env: { PATH: process.env.PATH, HOME: work },
    });
    return { status: r.status, out: `${r.stdout}`, err: `${r.stderr}` };
  };
  const testMode = ["--root", root, "--no-build"];
  let firstCommit: string;
  /** The settings file as the first run wrote it, and the admin password in it. */
  let envFile: string;
  let password: string;

  beforeAll(() => {
    mkdirSync(path.join(source, "deploy"), { recursive: true });
    mkdirSync(root);
    cpSync(path.join(repoRoot, "deploy"), path.join(source, "deploy"), { recursive: true });
    writeFileSync(path.join(source, "package.json"), '{ "name": "feedlab", "version": "0.1.0" }\n');
    git(source, "init", "--quiet");
    git(source, "add", "-A");
    git(source, "commit", "--quiet", "-m", "first release");
    firstCommit = git(source, "rev-parse", "HEAD");
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("prints its usage for --help and refuses an unknown option", () => {
    const help = install("--help");
    expect(help.status).toBe(0);
    for (const option of ["--domain", "--repo", "--ref", "--dir", "--root", "--no-systemctl"])
      expect(help.out).toContain(option);
    const unknown = install("--frobnicate");
    expect(unknown.status).toBe(1);
    expect(unknown.err).toContain("unknown option: --frobnicate");
  });

  it("refuses a first install without a domain name, writing nothing", () => {
    const r = install(...testMode);
    expect(r.status).toBe(1);
    expect(r.err).toContain("--domain");
    expect(existsSync(at("etc"))).toBe(false);
  });

  it("installs the source's commit with a unit on 127.0.0.1 for the domain and a settings file whose generated password it prints once", () => {
    const r = install(...testMode, "--domain", "study.example.org");
    expect(r.status, r.err).toBe(0);
    expect(git(at("opt/feedlab"), "rev-parse", "HEAD")).toBe(firstCommit);

    envFile = read("etc/feedlab/feedlab.env");
    password = /^FEEDLAB_ADMIN_PASSWORD=(\S+)$/m.exec(envFile)?.[1] ?? "";
    expect(password.length).toBeGreaterThanOrEqual(24);
    expect(r.out).toContain(`admin / ${password}`);
    expect(envFile).toMatch(/^FEEDLAB_DEMO=0$/m);
    // The password is for root and the service only (docs/security.md).
    expect(statSync(at("etc/feedlab/feedlab.env")).mode & 0o777).toBe(0o600);

    const unit = read("etc/systemd/system/feedlab.service");
    for (const line of [
      "User=feedlab",
      "WorkingDirectory=/opt/feedlab",
      "Environment=HOST=127.0.0.1",
      "Environment=PORT=8080",
      "Environment=FEEDLAB_DATA_DIR=/var/lib/feedlab",
      "Environment=FEEDLAB_PUBLIC_URL=https://study.example.org",
      "Environment=FEEDLAB_TRUST_PROXY=1",
      "EnvironmentFile=/etc/feedlab/feedlab.env",
      "ExecStart=/opt/feedlab/node_modules/.bin/node /opt/feedlab/bin/feedlab.mjs start",
      "WantedBy=multi-user.target",
    ])
      expect(unit.split("\n")).toContain(line);
    // Nothing of the folder it was written in: the files name the machine's paths.
    expect(unit).not.toContain(root);
    expect(existsSync(at("var/lib/feedlab"))).toBe(true);
    expect(read("usr/local/bin/feedlab")).toContain("FEEDLAB_PUBLIC_URL=https://study.example.org");
  });

  it("writes a unit that systemd accepts", () => {
    // systemd-analyze checks that ExecStart's program exists: Node is not installed with --no-build.
    const unit = read("etc/systemd/system/feedlab.service").replace(
      "ExecStart=/opt/feedlab/node_modules/.bin/node",
      `ExecStart=${process.execPath}`,
    );
    const copy = path.join(work, "feedlab.service");
    writeFileSync(copy, unit);
    const r = spawnSync(systemdAnalyze, ["verify", copy], { encoding: "utf8" });
    expect({ status: r.status, output: `${r.stdout}${r.stderr}` }).toEqual({ status: 0, output: "" });
  });

  it("points Caddy at the committed Caddyfile, which serves the domain from 127.0.0.1:8080 and takes uploads up to Feedlab's limit", () => {
    const caddyfile = read("etc/caddy/Caddyfile");
    expect(caddyfile).toMatch(/^import \/opt\/feedlab\/deploy\/caddy\/Caddyfile$/m);
    expect(read("opt/feedlab/deploy/caddy/Caddyfile")).toBe(readFileSync(COMMITTED_CADDYFILE, "utf8"));
    const dropIn = read("etc/systemd/system/caddy.service.d/feedlab.conf");
    const env = Object.fromEntries(
      [...dropIn.matchAll(/^Environment=(\w+)=(.*)$/gm)].map((m) => [m[1], m[2]]),
    );
    expect(env).toEqual({ FEEDLAB_SITE: "study.example.org", FEEDLAB_UPSTREAMS: "127.0.0.1:8080" });

    // Caddy's own reading of it, with the variables the service gives it.
    const copy = path.join(work, "Caddyfile");
    writeFileSync(copy, caddyfile.replace("import /opt/feedlab/", `import ${root}/opt/feedlab/`));
    const json = execFileSync(caddyPath, ["adapt", "--config", copy, "--adapter", "caddyfile"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH, HOME: work, ...env },
      stdio: ["ignore", "pipe", "ignore"],
    });
    const server = JSON.parse(json).apps.http.servers.srv0;
    expect(server.listen).toEqual([":443"]);
    expect(server.routes[0].match).toEqual([{ host: ["study.example.org"] }]);
    const handlers = server.routes[0].handle[0].routes[0].handle;
    const body = handlers.find((h: { handler: string }) => h.handler === "request_body");
    const proxy = handlers.find((h: { handler: string }) => h.handler === "reverse_proxy");
    expect(body.max_size).toBeGreaterThanOrEqual(DEFAULT_UPLOAD_LIMIT);
    expect(proxy.upstreams).toEqual([{ dial: "127.0.0.1:8080" }]);
  });

  it("changes nothing on a re-run at the same commit, and prints no password", () => {
    const files = ["etc/feedlab/feedlab.env", "etc/systemd/system/feedlab.service", "etc/caddy/Caddyfile"];
    const before = files.map(read);
    const r = install(...testMode);
    expect(r.status, r.err).toBe(0);
    expect(r.out).toContain("is at");
    expect(r.out).not.toContain("wrote");
    expect(r.out).not.toContain(password);
    expect(files.map(read)).toEqual(before);
  });

  it("upgrades to the source's new commit on a re-run, keeping the domain, the settings file and its password", () => {
    writeFileSync(path.join(source, "package.json"), '{ "name": "feedlab", "version": "0.2.0" }\n');
    git(source, "commit", "--quiet", "-am", "second release");
    const unitBefore = read("etc/systemd/system/feedlab.service");

    const r = install(...testMode);
    expect(r.status, r.err).toBe(0);
    expect(git(at("opt/feedlab"), "rev-parse", "HEAD")).toBe(git(source, "rev-parse", "HEAD"));
    expect(git(at("opt/feedlab.previous"), "rev-parse", "HEAD")).toBe(firstCommit);
    expect(read("opt/feedlab/package.json")).toContain("0.2.0");
    expect(read("etc/feedlab/feedlab.env")).toBe(envFile);
    expect(read("etc/systemd/system/feedlab.service")).toBe(unitBefore);
    expect(r.out).not.toContain(password);
  });

  it("upgrades from the repository it was installed from when the installed copy's script runs", () => {
    writeFileSync(path.join(source, "package.json"), '{ "name": "feedlab", "version": "0.3.0" }\n');
    git(source, "commit", "--quiet", "-am", "third release");
    const r = spawnSync("bash", [at("opt/feedlab/deploy/install.sh"), ...testMode], {
      encoding: "utf8",
      env: { PATH: process.env.PATH, HOME: work },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(git(at("opt/feedlab"), "rev-parse", "HEAD")).toBe(git(source, "rev-parse", "HEAD"));
    expect(read("etc/feedlab/feedlab.env")).toBe(envFile);
  });

  it("moves the unit and Caddy to a new domain given on a re-run, keeping the settings file", () => {
    const r = install(...testMode, "--domain", "https://other.example.org/");
    expect(r.status, r.err).toBe(0);
    expect(read("etc/systemd/system/feedlab.service")).toContain(
      "Environment=FEEDLAB_PUBLIC_URL=https://other.example.org\n",
    );
    expect(read("etc/systemd/system/caddy.service.d/feedlab.conf")).toContain(
      "Environment=FEEDLAB_SITE=other.example.org\n",
    );
    expect(read("etc/feedlab/feedlab.env")).toBe(envFile);
  });
});
