import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { ExperimentStats, GroupStats, RecommenderStats } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { duckdb, duckdbTypes } from "../../../test/harness/analysis.ts";
import { ADMIN, BACKENDS, type Client, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { checkDataPackage } from "../../../test/harness/datapackage.ts";
import { type Joined, sendEvents, wireEvent } from "../../../test/harness/events.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";
import { createSurvey, sampleAnswers } from "../../../test/harness/surveys.ts";
import { packageCommand } from "../cli/commands/package.ts";
import { loadConfig } from "../config.ts";
import { joinSimulated } from "../participants/simulated.fixture.ts";
import { joinWith } from "../quality/quality.fixture.ts";
import { unzipTo } from "./unzip.ts";

const run = promisify(execFile);
/** Debian's interpreter, whose python3-pandas `.ci/run` installs (not a user's pyenv). */
const PYTHON = "/usr/bin/python3";

/** The participants: login id, Prolific id, arm (index), feed impressions and clicks, related impressions, plays, completions, likes. */
const PEOPLE = [
  {
    login: "pkg-alice-7f3e",
    pid: "5f0c2e7a51a51c1e9a510f01",
    feed: [6, 2],
    related: 2,
    plays: 3,
    ended: 2,
    likes: 1,
  },
  {
    login: "pkg-bob-91c2",
    pid: "5f0c2e7a51a51c1e9a510f02",
    feed: [4, 1],
    related: 0,
    plays: 1,
    ended: 0,
    likes: 0,
  },
  {
    login: "pkg-carol-3b8d",
    pid: "5f0c2e7a51a51c1e9a510f03",
    feed: [9, 4],
    related: 3,
    plays: 4,
    ended: 3,
    likes: 2,
  },
  {
    login: "pkg-dave-c4a0",
    pid: "5f0c2e7a51a51c1e9a510f04",
    feed: [5, 0],
    related: 1,
    plays: 2,
    ended: 1,
    likes: 1,
  },
  {
    login: "pkg-erin-0d5b",
    pid: "5f0c2e7a51a51c1e9a510f05",
    feed: [8, 3],
    related: 1,
    plays: 2,
    ended: 2,
    likes: 0,
  },
] as const;
/** Excluded by the researcher: in the tables, out of stats.json and analysis.py's figures. */
const EXCLUDED = "pkg-dave-c4a0";

/** DuckDB's type of each Table Schema type in the Parquet copies. */
const DUCKDB_TYPES: Record<string, readonly string[]> = {
  string: ["VARCHAR"],
  integer: ["INTEGER", "BIGINT"],
  number: ["DOUBLE"],
  boolean: ["BOOLEAN"],
  datetime: ["TIMESTAMP WITH TIME ZONE"],
  object: ["JSON"],
};

interface Descriptor {
  profile: string;
  resources: {
    name: string;
    path: string;
    format: string;
    schema: { fields: { name: string; type: string }[] };
  }[];
}

describe.each(BACKENDS)("replication package (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  let experimentId: string;
  let work: string;
  const users = new Map<string, Joined>();

  /** Downloads the package and unzips it into a folder of its own. */
  async function download(query = "", id = experimentId) {
    const r = await admin.download(`/api/v1/admin/experiments/${id}/package${query}`);
    expect(r.status).toBe(200);
    const dir = await mkdtemp(path.join(work, "package-"));
    const zip = path.join(dir, "package.zip");
    await writeFile(zip, r.bytes);
    const files = await unzipTo(zip, path.join(dir, "files"));
    return { ...r, dir: path.join(dir, "files"), files };
  }
  let plain: Awaited<ReturnType<typeof download>>;

  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
    work = await mkdtemp(path.join(tmpdir(), "feedlab-package-test-"));
    const study = await createStudy(admin, {
      status: "running",
      videoCount: 3,
      name: "Package study: feeds & layouts",
    });
    experimentId = study.experiment.id;
    const second = study.groups[1]?.id as string;
    const changed = await admin.patch(`/api/v1/admin/groups/${second}`, {
      algorithm_config: { feed: "random", watch: "random" },
      ui_config: { feed: "list-desktop", watch: "list-desktop" },
    });
    expect(changed.status).toBe(200);
    const survey = await createSurvey(admin, experimentId, { kind: "pre", is_active: true });
    for (const p of PEOPLE) {
      const joined = await joinWith(app, experimentId, p.login, { PROLIFIC_PID: p.pid });
      users.set(p.login, joined);
      const link = `https://study.example.org/join/${experimentId}?login_id=${p.login}&PROLIFIC_PID=${p.pid}&lang=en`;
      const events = [
        wireEvent("SESSION_START", {
          payload: { ...wireEvent("SESSION_START").payload, initialUrl: link, referrer: link },
        }),
        wireEvent("PAGE_LOAD", { payload: { url: link, pageType: "feed", PROLIFIC_PID: p.pid } }),
        ...Array.from({ length: p.feed[0] }, () => wireEvent("IMPRESSION", { payload: { context: "feed" } })),
        ...Array.from({ length: p.feed[1] }, () => wireEvent("FEED_CLICK")),
        ...Array.from({ length: p.related }, () =>
          wireEvent("IMPRESSION", { payload: { context: "related" } }),
        ),
        ...Array.from({ length: p.plays }, () => wireEvent("VIDEO_PLAY")),
        ...Array.from({ length: p.ended }, () => wireEvent("VIDEO_ENDED")),
        ...Array.from({ length: p.likes }, () => wireEvent("LIKE")),
        wireEvent("VIDEO_PAUSE"),
      ];
      expect((await sendEvents(joined, events)).body.rejected).toEqual([]);
      const answered = await joined.client.post(`/api/v1/surveys/${survey.id}/responses`, {
        session_id: joined.sessionId,
        answers: sampleAnswers(`I am ${p.login}, Prolific ${p.pid}.`),
      });
      expect(answered.status).toBe(201);
    }
    const dave = users.get(EXCLUDED)?.userId as string;
    expect(
      (await admin.patch(`/api/v1/admin/participants/${dave}`, { excluded: true, reason: "Test exclusion" }))
        .status,
    ).toBe(204);
    const sim = await joinSimulated(app, experimentId, "sim-1");
    expect((await sendEvents(sim, [wireEvent("IMPRESSION"), wireEvent("FEED_CLICK")])).body.rejected).toEqual(
      [],
    );
    expect(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 10_000)).toBe(true);
    plain = await download();
  });
  afterAll(async () => {
    await app?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("answers a zip named after the study with the descriptor, tables, copies, study, results, codebook and script", async () => {
    expect(plain.headers.get("content-type")).toBe("application/zip");
    expect(plain.headers.get("content-disposition")).toContain(
      'attachment; filename="feedlab-package-study-feeds-layouts-package.zip"',
    );
    expect(plain.files.sort()).toEqual(
      [
        "datapackage.json",
        "codebook.md",
        "study.yaml",
        "stats.json",
        "analysis.py",
        ...["arms", "participants", "events", "survey_responses"].flatMap((t) => [
          `${t}.csv`,
          `${t}.parquet`,
        ]),
      ].sort(),
    );
    const study = await readFile(path.join(plain.dir, "study.yaml"), "utf8");
    expect(study).toContain("feedlab_study: 1");
    expect(study).toContain("Package study: feeds & layouts");
    const codebook = await readFile(path.join(plain.dir, "codebook.md"), "utf8");
    expect(codebook).toContain("### VIDEO_META_CAPTURED");
    expect(codebook).toContain("| `environment.viewport.width` |");
    expect(codebook).toContain("algorithm (feed): `recency` -> `random`");
    expect(codebook).toContain("| `excluded` | boolean |");
  });

  it("holds a Data Package the Frictionless library validates, every CSV row casting to its schema and every key resolving", async () => {
    const checked = await checkDataPackage(plain.dir);
    expect(checked.errors).toEqual([]);
    expect(checked.valid).toBe(true);
    const rows = (name: string) => checked.resources.find((r) => r.name === name)?.rows ?? [];
    expect(rows("arms")).toHaveLength(2);
    // Simulated participants are left out, excluded ones flagged.
    expect(rows("participants").map((p) => p.login_id)).toEqual(PEOPLE.map((p) => p.login));
    expect(rows("participants").find((p) => p.login_id === EXCLUDED)).toMatchObject({
      excluded: true,
      simulated: false,
    });
    const events = rows("events");
    expect(events).toHaveLength(
      PEOPLE.reduce((s, p) => s + 3 + p.feed[0] + p.feed[1] + p.related + p.plays + p.ended + p.likes, 0),
    );
    expect(events[0]?.timestamp).toBeInstanceOf(Date);
    expect(typeof events[0]?.payload).toBe("object");
    const responses = rows("survey_responses");
    expect(responses).toHaveLength(PEOPLE.length);
    expect(responses[0]).toMatchObject({ mood: 1, topics: "1|3", survey_kind: "pre" });
  });

  it("has Parquet copies DuckDB reads with the declared types and the CSVs' rows", async () => {
    const descriptor = JSON.parse(
      await readFile(path.join(plain.dir, "datapackage.json"), "utf8"),
    ) as Descriptor;
    expect(descriptor.profile).toBe("tabular-data-package");
    const parquet = descriptor.resources.filter((r) => r.format === "parquet");
    expect(parquet.map((r) => r.path).sort()).toEqual(
      ["arms", "events", "participants", "survey_responses"].map((t) => `${t}.parquet`),
    );
    for (const r of parquet) {
      const from = `read_parquet('${path.join(plain.dir, r.path)}')`;
      const types = await duckdbTypes(from);
      expect(Object.keys(types)).toEqual(r.schema.fields.map((f) => f.name));
      for (const f of r.schema.fields)
        expect(DUCKDB_TYPES[f.type], `${r.path} ${f.name}`).toContain(types[f.name]);
      const csv = path.join(plain.dir, r.path.replace(".parquet", ".csv"));
      const [counts] = await duckdb(
        `SELECT (SELECT count(*) FROM ${from}) AS parquet, (SELECT count(*) FROM read_csv('${csv}', all_varchar = true)) AS csv`,
      );
      expect(counts?.parquet).toEqual(counts?.csv);
    }
  });

  it("ships an analysis script whose figures per arm and recommender equal stats.json's", async () => {
    const stats = JSON.parse(await readFile(path.join(plain.dir, "stats.json"), "utf8")) as ExperimentStats;
    // The researcher's exclusion and the simulated participant are left out of both.
    expect(stats.groups.reduce((n, g) => n + g.excluded_participants, 0)).toBe(1);
    const { stdout } = await run(PYTHON, [path.join(plain.dir, "analysis.py"), "--json"]);
    const got = JSON.parse(stdout) as { groups: GroupStats[]; recommenders: RecommenderStats[] };
    type Rate = { value: number | null; low: number | null; high: number | null };
    /** The counts exactly and the rates to 10 decimals (the sums run in another order). */
    const expectSame = (mine: GroupStats | RecommenderStats, want: GroupStats | RecommenderStats) => {
      const { ctr, completion_rate, like_rate, latency_ms: _l, ...counts } = want as GroupStats;
      const { ctr: c, completion_rate: cr, like_rate: lr, ...myCounts } = mine as GroupStats;
      expect(myCounts).toEqual(counts);
      for (const [x, y] of [
        [ctr, c],
        [completion_rate, cr],
        [like_rate, lr],
      ] as [Rate, Rate][])
        for (const k of ["value", "low", "high"] as const) {
          if (x[k] === null) expect(y[k]).toBeNull();
          else expect(y[k]).toBeCloseTo(x[k] as number, 10);
        }
    };
    expect(got.groups).toHaveLength(stats.groups.length);
    for (const [i, g] of stats.groups.entries()) expectSame(got.groups[i] as GroupStats, g);
    const key = (r: RecommenderStats) => `${r.surface}/${r.key}`;
    expect(got.recommenders.map(key).sort()).toEqual(stats.recommenders.map(key).sort());
    for (const r of stats.recommenders)
      expectSame(got.recommenders.find((m) => key(m) === key(r)) as RecommenderStats, r);
    // The plain report names every arm.
    const report = (await run(PYTHON, [path.join(plain.dir, "analysis.py")])).stdout;
    for (const g of stats.groups) expect(report).toContain(g.name);
  });

  it("ships an analysis script that runs on a study nobody has joined yet, with no participant and no count per arm", async () => {
    const empty = await createStudy(admin, { videoCount: 1, name: "Nobody yet" });
    const pkg = await download("", empty.experiment.id);
    const { stdout } = await run(PYTHON, [path.join(pkg.dir, "analysis.py"), "--json"]);
    const got = JSON.parse(stdout) as { groups: GroupStats[] };
    expect(got.groups.map((g) => [g.participants, g.impressions, g.ctr.value])).toEqual([
      [0, 0, null],
      [0, 0, null],
    ]);
  });

  it("pseudonymizes: no login id or Prolific id anywhere, the same pseudonym in every table and download", async () => {
    const first = await download("?pseudonymize=true");
    const again = await download("?pseudonymize=true");
    expect(first.headers.get("content-disposition")).toContain("-pseudonymized.zip");
    const secrets = PEOPLE.flatMap((p) => [p.login, p.pid]);
    let everything = first.bytes.toString("latin1");
    for (const name of first.files) {
      const file = path.join(first.dir, name);
      if (name.endsWith(".parquet"))
        everything += JSON.stringify(await duckdb(`SELECT * FROM read_parquet('${file}')`));
      else everything += await readFile(file, "utf8");
    }
    for (const secret of secrets) expect(everything).not.toContain(secret);
    // Recruiting ids go as URL parameters, payload fields and columns (the docs still name them).
    expect(everything).not.toMatch(/PROLIFIC_PID=|"PROLIFIC_PID"/);
    expect((await readFile(path.join(first.dir, "participants.csv"), "utf8")).split("\r\n")[0]).not.toContain(
      "PROLIFIC_PID",
    );

    const checked = await checkDataPackage(first.dir);
    expect(checked.valid).toBe(true);
    const rows = (name: string) => checked.resources.find((r) => r.name === name)?.rows ?? [];
    const pseudonyms = new Map(rows("participants").map((p) => [p.user_id, p.login_id]));
    for (const v of pseudonyms.values()) expect(v).toMatch(/^p-[0-9a-f]{16}$/);
    expect(new Set(pseudonyms.values()).size).toBe(PEOPLE.length);
    for (const e of rows("events")) expect(e.login_id).toBe(pseudonyms.get(e.user_id));
    for (const r of rows("survey_responses")) expect(r.user_login_id).toBe(pseudonyms.get(r.user_id));
    const start = rows("events").find((e) => e.event_type === "SESSION_START");
    expect(start?.payload).toHaveProperty(
      "initialUrl",
      `https://study.example.org/join/${experimentId}?lang=en`,
    );
    const later = await readFile(path.join(again.dir, "participants.csv"), "utf8");
    for (const pseudonym of pseudonyms.values()) expect(later).toContain(String(pseudonym));
  });

  it("writes the same files with `feedlab package` from the server over HTTP", async () => {
    const dir = path.join(work, "cli");
    const config = loadConfig({
      PORT: new URL(app.url).port,
      FEEDLAB_ADMIN_USERNAME: ADMIN.username,
      FEEDLAB_ADMIN_PASSWORD: ADMIN.password,
      FEEDLAB_DATA_DIR: work,
    });
    await packageCommand.run([experimentId, dir], config);
    expect(process.exitCode ?? 0).toBe(0);
    expect((await readdir(dir)).sort()).toEqual([...plain.files].sort());
    // An unknown experiment: the server's message, exit code 1 and no files.
    const none = path.join(work, "cli-unknown");
    await packageCommand.run(["00000000-0000-4000-8000-000000000000", none], config);
    expect(process.exitCode).toBe(1);
    process.exitCode = 0;
    await expect(readdir(none)).rejects.toThrow();
    const undated = async (dir: string) =>
      (await readFile(path.join(dir, "codebook.md"), "utf8")).replace(/Made by Feedlab on \S+/, "");
    expect(await undated(dir)).toEqual(await undated(plain.dir));
  });

  it("answers 401 without the admin cookie, 403 to a participant and 404 for an unknown experiment", async () => {
    const url = `/api/v1/admin/experiments/${experimentId}/package`;
    expect((await app.client().get(url)).status).toBe(401);
    expect((await (users.get(PEOPLE[0].login) as Joined).client.get(url)).status).toBe(403);
    const unknown = await admin.get("/api/v1/admin/experiments/00000000-0000-4000-8000-000000000000/package");
    expect(unknown.status).toBe(404);
  });
});
