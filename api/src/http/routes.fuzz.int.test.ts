import { randomUUID } from "node:crypto";
import { mulberry32 } from "@feedlab/trainer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { joinWithSession } from "../../../test/harness/events.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";
import {
  cookieHeader,
  createSampler,
  encodeComponent as enc,
  loadOpenApi,
  type Operation,
  type Sampler,
} from "../../../test/harness/openapi.ts";

/**
 * Every operation of the served OpenAPI document, sent generated and mutated requests as an admin, a
 * participant and anonymously (issue 16): never a 5xx, every error in api.md's error body, and a
 * refused request stores nothing. `FUZZ_RUNS=N` sends N requests per operation and role (default 6);
 * `FUZZ_SEED` changes the seed (default fixed, so a failure reproduces).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 6);
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);

/** Tables whose rows a refused request must not change (the audit log records refusals on purpose). */
const STATE_TABLES = [
  "experiments",
  "groups",
  "videos",
  "experiment_videos",
  "users",
  "sessions",
  "surveys",
  "survey_responses",
  "survey_dismissals",
  "recommenders",
  "ui_templates",
  "admins",
  "experiment_members",
  "event_log",
];

const WRONG_VALUES: unknown[] = [null, true, 0, -1, 1.5, 1e308, "", "text", [], {}, [1, "a"], { a: 1 }];
const STRANGE_STRINGS = [
  "",
  " ",
  "a\u0000b",
  "\ud83d",
  "../../etc/passwd",
  "%00",
  "' or 1=1 --",
  "<script>alert(1)</script>",
  "x".repeat(70_000),
  "😀".repeat(300),
];

describe("every route under fuzzing", () => {
  let app: TestApp;
  let admin: Client;
  let participantCookie: string;
  let operations: readonly Operation[];
  let sampler: Sampler;
  let ids: string[];
  beforeAll(async () => {
    app = await startTestApp("pglite");
    admin = await app.admin();
    const study = await createStudy(admin, { videoCount: 3, status: "running", weights: [1, 1] });
    const p = await joinWithSession(app.client(), study.experiment.id, "fuzzed");
    participantCookie = cookieHeader(p.client);
    ids = [study.experiment.id, p.userId, p.sessionId, study.videos[0]?.id ?? randomUUID(), randomUUID()];
    const doc = await loadOpenApi(admin);
    operations = doc.operations;
    sampler = createSampler(doc.components, ids);
  });
  afterAll(async () => {
    await app?.stop();
  });

  const pick = <T>(xs: readonly T[], r: () => number): T => xs[Math.floor(r() * xs.length)] as T;

  /** The body to send: valid-ish, then one mutation. Bytes, so that bad UTF-8 can go too. */
  function body(op: Operation, r: () => number): { bytes: Buffer | null; type: string | null } {
    const valid = op.body ? sampler.sample(op.body, r) : undefined;
    const json = (v: unknown) => ({ bytes: Buffer.from(JSON.stringify(v)), type: "application/json" });
    const record =
      valid && typeof valid === "object" && !Array.isArray(valid) ? (valid as Record<string, unknown>) : {};
    const keys = Object.keys(record);
    const mutations: (() => { bytes: Buffer | null; type: string | null })[] = [
      () => json(valid ?? {}),
      () => {
        const copy = { ...record };
        if (keys.length > 0) delete copy[pick(keys, r)];
        return json(copy);
      },
      () =>
        json(keys.length > 0 ? { ...record, [pick(keys, r)]: pick(WRONG_VALUES, r) } : pick(WRONG_VALUES, r)),
      () =>
        json(
          keys.length > 0
            ? { ...record, [pick(keys, r)]: pick(STRANGE_STRINGS, r) }
            : pick(STRANGE_STRINGS, r),
        ),
      () => json({ ...record, unexpected_field: "x" }),
      () => ({ bytes: Buffer.from(`${"[".repeat(5000)}1${"]".repeat(5000)}`), type: "application/json" }),
      () => ({
        bytes: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
        type: "application/json",
      }),
      () => ({ bytes: Buffer.from("{not json"), type: "application/json" }),
      () => ({
        bytes: Buffer.from(JSON.stringify(valid ?? {})),
        type: pick(["text/plain", "text/csv", "application/xml", "multipart/form-data; boundary=x"], r),
      }),
      () => ({ bytes: Buffer.from(JSON.stringify(valid ?? {})), type: null }),
      () => ({ bytes: Buffer.alloc(1024 * 1024 + 1, 0x20), type: "application/json" }),
      () => ({ bytes: null, type: null }),
    ];
    return pick(mutations, r)();
  }

  function url(op: Operation, r: () => number): string {
    const path = op.path.replace(/\{[^}]+\}/g, () =>
      enc(r() < 0.7 ? String(pick(ids, r)) : String(pick(STRANGE_STRINGS.slice(0, 8), r))),
    );
    const query = op.query
      .filter(() => r() < 0.6)
      .map(
        (q) =>
          `${enc(q.name)}=${enc(String(r() < 0.6 ? sampler.sample(q.schema, r) : pick(STRANGE_STRINGS.slice(0, 8), r)))}`,
      );
    return query.length > 0 ? `${path}?${query.join("&")}` : path;
  }

  const counts = async (): Promise<string> => {
    const out: number[] = [];
    for (const t of STATE_TABLES) {
      const row = (await app.runtime.db(t).count<{ n: string | number }[]>({ n: "*" }))[0];
      out.push(Number(row?.n ?? 0));
    }
    return out.join(",");
  };

  it("answers every operation with a 2xx, 3xx or 4xx, errors in the error body, and stores nothing when it refuses", async () => {
    const r = mulberry32(SEED);
    const adminCookie = cookieHeader(admin);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let sent = 0;
    for (const op of operations) {
      for (const role of ["admin", "participant", "anonymous"] as const) {
        // Signing out or withdrawing would end the fuzzing roles themselves; those run anonymously.
        if (role !== "anonymous" && /\/auth\/logout$|\/me\/withdraw$/.test(op.path)) continue;
        for (let i = 0; i < RUNS; i++) {
          const target = url(op, r);
          const { bytes, type } = op.method === "GET" ? { bytes: null, type: null } : body(op, r);
          const headers: Record<string, string> = {};
          if (type) headers["content-type"] = type;
          if (role !== "anonymous") headers.cookie = role === "admin" ? adminCookie : participantCookie;
          const before = await counts();
          const res = await fetch(app.url + target, {
            method: op.method,
            headers,
            body: bytes ? new Uint8Array(bytes) : undefined,
            redirect: "manual",
          });
          const text = await res.text();
          sent++;
          const klass = Math.floor(res.status / 100);
          statuses.set(klass, (statuses.get(klass) ?? 0) + 1);
          const where = `${role} ${op.method} ${target.slice(0, 120)} (${type ?? "no body"}, ${bytes?.length ?? 0} bytes: ${bytes?.subarray(0, 120).toString() ?? ""})`;
          if (res.status >= 500) failures.push(`${res.status} ${where}: ${text.slice(0, 200)}`);
          if (res.status >= 400 && target.startsWith("/api/")) {
            let code: unknown;
            try {
              code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
            } catch {
              code = undefined;
            }
            if (typeof code !== "string") failures.push(`${res.status} without the error body: ${where}`);
            if ((await counts()) !== before) failures.push(`${res.status} but stored something: ${where}`);
          }
        }
      }
    }
    expect(operations.length).toBeGreaterThan(70);
    expect(sent).toBeGreaterThan(operations.length * RUNS);
    // Both kinds of answer came: the generated requests get through, the mutated ones are refused.
    expect(statuses.get(2)).toBeGreaterThan(0);
    expect(statuses.get(4)).toBeGreaterThan(sent / 4);
    expect(failures).toEqual([]);
  }, 600_000);

  it("answers a body far over the limit (50 MB) with its 413, not a reset connection", async () => {
    const huge = Buffer.alloc(50 * 1024 * 1024, 0x20);
    // Fresh ones: the fuzzing may have erased its participant or ended the admin's session.
    const fresh = await app.admin();
    const adminCookie = cookieHeader(fresh);
    const study = await createStudy(fresh, { videoCount: 1, status: "running", weights: [1] });
    const joined = await joinWithSession(app.client(), study.experiment.id, "sends-too-much");
    const participantCookie = cookieHeader(joined.client);
    for (const [path, cookie] of [
      ["/api/v1/events", participantCookie],
      ["/api/v1/admin/experiments", adminCookie],
    ] as const) {
      const res = await fetch(app.url + path, {
        method: "POST",
        headers: { "content-type": "application/json", cookie },
        body: new Uint8Array(huge),
      });
      expect(res.status).toBe(413);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("payload_too_large");
    }
  }, 120_000);
});
