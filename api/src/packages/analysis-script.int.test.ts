import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { ExperimentStats, GroupStats, ParticipantSummary } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";
import { joinParticipant, visit } from "../../../test/harness/surveys.ts";
import { unzipTo } from "./unzip.ts";

const run = promisify(execFile);
/** Debian's interpreter, whose python3-pandas `.ci/run` installs (not a user's pyenv). */
const PYTHON = "/usr/bin/python3";

type Estimate = { value: number | null; low: number | null; high: number | null };
type Figures = {
  groups: (GroupStats & { weighted?: Record<string, Estimate>; unweighted?: Record<string, Estimate> })[];
};

/**
 * A replication package of an adaptive study (api.md "Assignment (wave 4)"): its participants table
 * carries each assignment's method and probability, and its analysis.py weighs by them as `/stats` does.
 */
describe.each(BACKENDS)("a package's analysis of adaptive assignment (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  let work: string;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
    work = await mkdtemp(path.join(tmpdir(), "feedlab-analysis-int-"));
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("gives stats.json's ipw per arm from the participants table's assignment_probability, beside the unweighted share", async () => {
    const { experiment } = await createStudy(admin, { videoCount: 1, name: "Adaptive package" });
    const id = experiment.id;
    for (const body of [
      {
        assignment: { method: "adaptive", metric: "completion_rate", burn_in: 2, seed: 5 },
        completion: { after_sessions: 1, code: "DONE" },
      },
      { status: "running" },
    ]) {
      const r = await admin.patch(`/api/v1/admin/experiments/${id}`, body);
      expect(r.status, r.text).toBe(200);
    }
    // As ipw.int.test.ts: two of every three finish, so Thompson sampling gives unequal probabilities.
    for (let i = 0; i < 12; i++) {
      const p = await joinParticipant(app, id, `pkg-ipw-${i}`);
      if (i % 3 === 0) continue;
      await visit(app, p.client, p.sessionId);
      expect((await p.client.get<{ status: string }>("/api/v1/me")).body.status).toBe("finished");
    }

    const r = await admin.download(`/api/v1/admin/experiments/${id}/package`);
    expect(r.status).toBe(200);
    const zip = path.join(work, "package.zip");
    await writeFile(zip, r.bytes);
    const dir = path.join(work, "files");
    await unzipTo(zip, dir);

    const header = (await readFile(path.join(dir, "participants.csv"), "utf8")).split("\r\n")[0]?.split(",");
    expect(header?.slice(3, 6)).toEqual(["group_name", "assignment_method", "assignment_probability"]);
    const codebook = await readFile(path.join(dir, "codebook.md"), "utf8");
    expect(codebook).toContain("| `assignment_probability` | number |");

    const people = (
      await admin.get<{ items: ParticipantSummary[] }>(
        `/api/v1/admin/experiments/${id}/participants?limit=1000`,
      )
    ).body.items;
    expect(people.some((p) => Math.abs((p.assignment?.probability ?? 1) - 0.5) > 1e-9)).toBe(true);
    const stats = JSON.parse(await readFile(path.join(dir, "stats.json"), "utf8")) as ExperimentStats;
    const { stdout } = await run(PYTHON, [path.join(dir, "analysis.py"), "--json"]);
    const got = JSON.parse(stdout) as Figures;
    expect(got.groups.map((g) => g.group_id)).toEqual(stats.groups.map((g) => g.group_id));
    let differs = false;
    for (const [i, g] of got.groups.entries()) {
      const want = stats.groups[i]?.ipw as Estimate;
      expect(want.value).not.toBeNull();
      expect(g.ipw?.value).toBeCloseTo(want.value as number, 12);
      expect(g.ipw).toEqual(g.weighted?.finished);
      // The same participants in the same (join) order and the same draws: the same interval.
      expect(g.ipw?.low).toBeCloseTo(want.low as number, 12);
      expect(g.ipw?.high).toBeCloseTo(want.high as number, 12);
      // Beside it, the arm's finishers over its participants, from the participants list.
      const mine = people.filter((p) => p.group_id === g.group_id);
      expect(g.unweighted?.finished?.value).toBeCloseTo(
        mine.filter((p) => p.finished_at !== null).length / mine.length,
        12,
      );
      if (
        Math.abs((g.weighted?.finished?.value as number) - (g.unweighted?.finished?.value as number)) > 1e-9
      )
        differs = true;
    }
    // Not a balanced study in disguise: weighting moves some arm's share.
    expect(differs).toBe(true);
  });
});
