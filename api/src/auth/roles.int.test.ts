import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { LEAST_ROLES, type LeastRole, type MemberRole, memberMay } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { joinWithSession } from "../../../test/harness/events.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";
import { loadOpenApi } from "../../../test/harness/openapi.ts";
import { createSurvey } from "../../../test/harness/surveys.ts";

/**
 * Teams (api.md "Teams (wave 4)", issue 55): every admin operation of the served OpenAPI document,
 * called as each kind of account, answers as its declared least role (`x-feedlab-role`) implies. A
 * route added without a declaration fails here (and in the type check); one whose declaration and
 * check disagree fails for the account that gets through, or is refused, wrongly.
 */

type Who = "account owner" | "study owner" | "editor" | "analyst" | "non-member";
const WHO: readonly Who[] = ["account owner", "study owner", "editor", "analyst", "non-member"];
const MEMBER_ROLE: Partial<Record<Who, MemberRole>> = {
  "study owner": "owner",
  editor: "editor",
  analyst: "analyst",
};
const USERNAME: Record<Who, string> = {
  "account owner": "admin",
  "study owner": "pi",
  editor: "postdoc",
  analyst: "analyst",
  "non-member": "outsider",
};

/** The resource a path under an experiment names, as the role check's 404 names it. */
const SCOPES: readonly [RegExp, string][] = [
  [/^\/api\/v1\/admin\/experiments\/\{id\}/, "experiment"],
  [/^\/api\/v1\/admin\/groups\/\{id\}/, "group"],
  [/^\/api\/v1\/admin\/surveys\/\{id\}/, "survey"],
  [/^\/api\/v1\/admin\/participants\/\{user_id\}/, "participant"],
];
const scopeOf = (path: string) => SCOPES.find(([re]) => re.test(path))?.[1] ?? null;

/** What the declaration implies for one account: through the role check, or refused and how. */
function expected(who: Who, needed: LeastRole, scoped: boolean): "through" | 404 | 403 {
  if (who === "account owner") return "through";
  if (needed === "owner") return 403;
  if (!scoped) return "through";
  const role = MEMBER_ROLE[who];
  if (!role) return 404;
  return memberMay(role, needed) ? "through" : 403;
}

const TEAMS_DOC = path.resolve(import.meta.dirname, "../../../docs/teams.md");
const CELL = { through: "yes", 403: "403", 404: "404" } as const;

/** docs/teams.md's table of operations and roles, as the served document's declarations make it. */
function roleTable(
  ops: readonly { method: string; path: string; summary: string; needed: LeastRole }[],
): string {
  const lines = [
    `| Operation | Least role | ${WHO.map((w) => w[0]?.toUpperCase() + w.slice(1)).join(" | ")} |`,
    `| --- | --- | ${WHO.map(() => "---").join(" | ")} |`,
  ];
  const sorted = [...ops].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  for (const op of sorted) {
    const cells = WHO.map((w) => CELL[expected(w, op.needed, scopeOf(op.path) !== null)]);
    lines.push(`| \`${op.method} ${op.path}\`: ${op.summary} | \`${op.needed}\` | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

/** A Markdown table's cells, row by row, whatever its columns' padding (a formatter aligns them). */
const cells = (table: string): string[][] =>
  table.split("\n").map((row) =>
    row
      .replace(/^\s*\|/, "")
      .replace(/\|\s*$/, "")
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim().replace(/^-+$/, "-")),
  );

interface Fixture {
  experiment: string;
  group: string;
  survey: string;
  participant: string;
  video: string;
}

describe("roles on every admin operation", () => {
  let app: TestApp;
  const as = {} as Record<Who, Client>;

  /** A study the account owner makes, with the three members, an arm, a survey, a participant. */
  async function fixture(): Promise<Fixture> {
    const owner = as["account owner"];
    const study = await createStudy(owner, { videoCount: 1, weights: [1], status: "running" });
    const survey = await createSurvey(owner, study.experiment.id, { kind: "pre" });
    const joined = await joinWithSession(app.client(), study.experiment.id, `p-${randomUUID()}`);
    const members = Object.entries(MEMBER_ROLE).map(([who, role]) => ({
      username: USERNAME[who as Who],
      role,
    }));
    const put = await owner.put(`/api/v1/admin/experiments/${study.experiment.id}/members`, members);
    expect(put.status, put.text).toBe(200);
    return {
      experiment: study.experiment.id,
      group: study.groups[0]?.id as string,
      survey: survey.id,
      participant: joined.userId,
      video: study.videos[0]?.id as string,
    };
  }

  function url(path: string, f: Fixture): string {
    const scope = scopeOf(path);
    return path
      .replace("{id}", () => {
        if (scope === "group") return f.group;
        if (scope === "survey") return f.survey;
        if (path.startsWith("/api/v1/admin/videos/")) return f.video;
        if (scope === "experiment") return f.experiment;
        return randomUUID();
      })
      .replace("{user_id}", f.participant)
      .replace("{run_id}", randomUUID())
      .replace("{bonus_id}", randomUUID())
      .replace("{key}", "recency")
      .replace("{username}", "spare")
      .replace("{sha256}", "0".repeat(64));
  }

  beforeAll(async () => {
    app = await startTestApp("pglite");
    as["account owner"] = await app.admin();
    for (const who of WHO.slice(1)) as[who] = await app.account(USERNAME[who]);
    await app.account("spare");
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
  });

  it("answers every admin operation as its x-feedlab-role says, for each kind of account", async () => {
    const doc = await loadOpenApi(as["account owner"]);
    const raw = (
      await as["account owner"].get<{ paths: Record<string, Record<string, Record<string, unknown>>> }>(
        "/api/v1/openapi.json",
      )
    ).body;
    const admin = doc.operations.filter((op) => op.access === "admin");
    const shared = await fixture();
    const failures: string[] = [];
    let calls = 0;
    for (const op of admin) {
      const needed = raw.paths[op.path]?.[op.method.toLowerCase()]?.["x-feedlab-role"] as LeastRole;
      if (!LEAST_ROLES.includes(needed)) {
        failures.push(`${op.method} ${op.path}: no x-feedlab-role (${String(needed)})`);
        continue;
      }
      const scope = scopeOf(op.path);
      // The refused first, on the shared study; then each that gets through, on a study of its own
      // when the operation deletes (a second delete of one thing would find it gone).
      const order = [...WHO].sort(
        (a, b) =>
          Number(expected(a, needed, scope !== null) === "through") -
          Number(expected(b, needed, scope !== null) === "through"),
      );
      for (const who of order) {
        const outcome = expected(who, needed, scope !== null);
        const f = outcome === "through" && op.method === "DELETE" && scope ? await fixture() : shared;
        const target = url(op.path, f);
        const res = await as[who].request<{ error?: { code?: string; details?: Record<string, unknown> } }>(
          op.method,
          target,
          op.method === "GET" || op.method === "DELETE" ? {} : { json: {} },
        );
        calls++;
        const error = typeof res.body === "object" ? res.body?.error : undefined;
        const where = `${who}: ${op.method} ${op.path} (${needed}) -> ${res.status} ${res.text.slice(0, 160)}`;
        if (outcome === 403) {
          if (res.status !== 403 || error?.code !== "forbidden_role" || error.details?.needed !== needed)
            failures.push(`expected 403 forbidden_role needing ${needed}, ${where}`);
        } else if (outcome === 404) {
          if (res.status !== 404 || error?.details?.resource !== scope)
            failures.push(`expected 404, ${where}`);
        } else {
          const refused =
            res.status === 401 ||
            (res.status === 403 && error?.code === "forbidden_role") ||
            (res.status === 404 && scope !== null && error?.details?.resource === scope);
          if (refused || res.status >= 500) failures.push(`expected to get through, ${where}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(admin.length).toBeGreaterThan(75);
    // docs/teams.md shows the same table (on a difference, the expected table is printed to paste).
    const table = roleTable(
      admin.map((op) => {
        const spec = raw.paths[op.path]?.[op.method.toLowerCase()] ?? {};
        return {
          ...op,
          summary: String(spec.summary).replaceAll("|", "\\|"),
          needed: spec["x-feedlab-role"] as LeastRole,
        };
      }),
    );
    const teams = readFileSync(TEAMS_DOC, "utf8");
    const inDoc = /<!-- roles:start -->\n([\s\S]*?)\n<!-- roles:end -->/.exec(teams)?.[1] ?? "";
    expect(cells(inDoc), `docs/teams.md's table between the roles markers should read:\n${table}`).toEqual(
      cells(table),
    );
    expect(calls).toBe(admin.length * WHO.length);
  }, 300_000);

  it("lists only the experiments and audit entries a researcher may see; account owners see all", async () => {
    const theirs = await fixture();
    const other = await createStudy(as["account owner"], { videoCount: 0, weights: [1], name: "Not theirs" });
    const ids = async (who: Who) =>
      ((await as[who].get<{ id: string }[]>("/api/v1/admin/experiments")).body ?? []).map((e) => e.id);
    expect(await ids("analyst")).toContain(theirs.experiment);
    expect(await ids("analyst")).not.toContain(other.experiment.id);
    expect(await ids("non-member")).not.toContain(theirs.experiment);
    expect(await ids("account owner")).toEqual(
      expect.arrayContaining([theirs.experiment, other.experiment.id]),
    );

    // Where a video is used: a researcher sees their experiments by name, the others only counted.
    type Usage = { experiments: { id: string }[]; others: number; others_running: number };
    const usage = async (who: Who) =>
      (await as[who].get<Usage>(`/api/v1/admin/videos/${theirs.video}/usage`)).body;
    expect(await usage("non-member")).toEqual({ experiments: [], others: 1, others_running: 1 });
    expect(await usage("analyst")).toMatchObject({ experiments: [{ id: theirs.experiment }], others: 0 });
    expect(await usage("account owner")).toMatchObject({
      experiments: [{ id: theirs.experiment }],
      others: 0,
    });

    // An experiment a researcher creates is theirs, as its owner.
    const made = await as["non-member"].post<{ id: string }>("/api/v1/admin/experiments", { name: "Mine" });
    expect(made.status).toBe(201);
    expect((await as["non-member"].get(`/api/v1/admin/experiments/${made.body.id}/members`)).body).toEqual([
      { username: "outsider", role: "owner", pseudonymized_only: false },
    ]);

    type Entry = {
      admin: string | null;
      action: string;
      details: { about?: { kind: string; id: string }[] };
    };
    const audit = async (who: Who) => (await as[who].get<Entry[]>("/api/v1/admin/audit?limit=500")).body;
    const about = (e: Entry, id: string) =>
      e.details.about?.some((s) => s.kind === "experiment" && s.id === id);
    const analystSees = await audit("analyst");
    expect(analystSees.some((e) => about(e, theirs.experiment))).toBe(true);
    expect(analystSees.some((e) => about(e, other.experiment.id))).toBe(false);
    const analystsExperiments = await ids("analyst");
    const visible = (e: Entry) => e.admin === "analyst" || analystsExperiments.some((id) => about(e, id));
    expect(analystSees.filter((e) => !visible(e))).toEqual([]);
    const outsiderSees = await audit("non-member");
    expect(outsiderSees.some((e) => about(e, theirs.experiment))).toBe(false);
    expect(outsiderSees.some((e) => e.action === "experiment.create" && e.admin === "outsider")).toBe(true);
    const ownerSees = await audit("account owner");
    expect(ownerSees.some((e) => about(e, other.experiment.id))).toBe(true);
    // The members' change names the account that made it and who the members are now.
    const change = ownerSees.find((e) => e.action === "experiment.members" && about(e, theirs.experiment));
    expect(change?.admin).toBe("admin");
    expect((change?.details as { members?: unknown } | undefined)?.members).toEqual(
      expect.arrayContaining([{ username: "analyst", role: "analyst" }]),
    );
  });

  it("names a shared layout's, recommender's and video's uses only in experiments the account may see", async () => {
    const owner = as["account owner"];
    const study = await createStudy(owner, { videoCount: 1, weights: [1], name: "Private study" });
    const arm = study.groups[0] as (typeof study.groups)[number];
    const members = await owner.put(`/api/v1/admin/experiments/${study.experiment.id}/members`, [
      { username: "admin", role: "owner" },
      { username: "analyst", role: "analyst" },
    ]);
    expect(members.status, members.text).toBe(200);
    const layout = await owner.post<{ id: string }>("/api/v1/admin/ui-templates", {
      name: "Shared layout",
      page: "feed",
      template_type: "code",
      source: `import { FeedSurface } from "@feedlab/surfaces";\nexport default function Page() {\n  return <FeedSurface><p>Shared</p></FeedSurface>;\n}\n`,
    });
    expect(layout.status, layout.text).toBe(201);
    const patched = await owner.patch(`/api/v1/admin/groups/${arm.id}`, {
      algorithm_config: { feed: "popularity", watch: arm.algorithm_config.watch },
      ui_config: { feed: layout.body.id, watch: arm.ui_config.watch },
    });
    expect(patched.status, patched.text).toBe(200);

    type Uses = { used_by: { experiment_id: string; experiment_name: string }[]; used_elsewhere: number };
    const template = async (who: Who) =>
      (await as[who].get<Uses>(`/api/v1/admin/ui-templates/${layout.body.id}`)).body;
    expect(await template("analyst")).toMatchObject({
      used_by: [{ experiment_id: study.experiment.id, experiment_name: "Private study" }],
      used_elsewhere: 0,
    });
    expect(await template("non-member")).toMatchObject({ used_by: [], used_elsewhere: 1 });
    const listed = await as["non-member"].get<(Uses & { id: string })[]>("/api/v1/admin/ui-templates");
    expect(listed.body.find((t) => t.id === layout.body.id)).toMatchObject({
      used_by: [],
      used_elsewhere: 1,
    });
    const popularity = await as["non-member"].get<Uses>("/api/v1/admin/recommenders/popularity");
    expect(popularity.body.used_by.filter((u) => u.experiment_id === study.experiment.id)).toEqual([]);
    expect(popularity.body.used_elsewhere).toBeGreaterThanOrEqual(1);
    const ownersView = await owner.get<Uses>("/api/v1/admin/recommenders/popularity");
    expect(ownersView.body.used_by.map((u) => u.experiment_id)).toContain(study.experiment.id);

    // Refusals count what they cannot name.
    const refused = await as["non-member"].del(`/api/v1/admin/ui-templates/${layout.body.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      error: { code: "template_in_use", details: { used_by: [], used_elsewhere: 1 } },
    });
    expect(refused.text).not.toContain("Private study");
    const theirs = await fixture();
    const video = await as["non-member"].del(`/api/v1/admin/videos/${theirs.video}`);
    expect(video.status).toBe(409);
    expect(video.body).toMatchObject({
      error: { code: "video_in_running_study", details: { experiments: [], others: 1 } },
    });
    const named = await as["study owner"].del(`/api/v1/admin/videos/${theirs.video}`);
    expect(named.body).toMatchObject({
      error: {
        code: "video_in_running_study",
        details: { experiments: [{ id: theirs.experiment }], others: 0 },
      },
    });
  });

  it("keeps an owner, names each account once, and applies a change at once to signed-in sessions", async () => {
    const f = await fixture();
    const members = `/api/v1/admin/experiments/${f.experiment}/members`;
    const pi = as["study owner"];
    const noOwner = await pi.put(members, [{ username: "postdoc", role: "editor" }]);
    expect(noOwner.status).toBe(409);
    expect((noOwner.body as { error: { code: string } }).error.code).toBe("last_owner");
    const unknown = await pi.put(members, [
      { username: "pi", role: "owner" },
      { username: "nobody-here", role: "analyst" },
    ]);
    expect(unknown.status).toBe(422);
    expect((unknown.body as { error: { details: { field: string } } }).error.details.field).toBe(
      "/1/username",
    );
    const twice = await pi.put(members, [
      { username: "pi", role: "owner" },
      { username: "pi", role: "analyst" },
    ]);
    expect(twice.status).toBe(422);
    // Nothing changed by the refusals.
    expect((await pi.get<{ username: string }[]>(members)).body.map((m) => m.username).sort()).toEqual([
      "analyst",
      "pi",
      "postdoc",
    ]);

    // The analyst becomes an editor: their session, signed in before, may now change the design.
    const patch = () => as.analyst.patch(`/api/v1/admin/experiments/${f.experiment}`, { description: "x" });
    expect((await patch()).status).toBe(403);
    const now = await pi.put(members, [
      { username: "pi", role: "owner" },
      { username: "analyst", role: "editor" },
    ]);
    expect(now.status).toBe(200);
    expect(now.body).toEqual([
      { username: "pi", role: "owner", pseudonymized_only: false },
      { username: "analyst", role: "editor", pseudonymized_only: false },
    ]);
    expect((await patch()).status).toBe(200);
    // The editor left: at once, the experiment is gone for them.
    expect((await as.editor.get(`/api/v1/admin/experiments/${f.experiment}`)).status).toBe(404);
  });

  it("gives a pseudonymized-only analyst pseudonymized packages and no raw export", async () => {
    const f = await fixture();
    const put = await as["study owner"].put(`/api/v1/admin/experiments/${f.experiment}/members`, [
      { username: "pi", role: "owner" },
      { username: "analyst", role: "analyst", pseudonymized_only: true },
    ]);
    expect(put.status).toBe(200);
    for (const path of [
      `/api/v1/admin/experiments/${f.experiment}/events?format=csv`,
      `/api/v1/admin/experiments/${f.experiment}/participants?format=csv`,
      `/api/v1/admin/surveys/${f.survey}/responses/csv`,
    ]) {
      const refused = await as.analyst.get<{ error: { code: string } }>(path);
      expect(refused.status, path).toBe(403);
      expect(refused.body.error.code).toBe("pseudonymized_only");
      expect((await as["study owner"].get(path)).status, path).toBe(200);
    }
    const pkg = await as.analyst.download(`/api/v1/admin/experiments/${f.experiment}/package`);
    expect(pkg.status).toBe(200);
    expect(pkg.headers.get("content-disposition")).toContain("-pseudonymized.zip");
    const own = await as["study owner"].download(`/api/v1/admin/experiments/${f.experiment}/package`);
    expect(own.headers.get("content-disposition")).not.toContain("-pseudonymized");
    // The list still shows them in the console, as an analyst's.
    expect((await as.analyst.get(`/api/v1/admin/experiments/${f.experiment}/participants`)).status).toBe(200);
  });

  it("applies a study document onto an experiment for its editors only, and as a new one for anyone", async () => {
    const f = await fixture();
    const definition = (await as["study owner"].get(`/api/v1/admin/experiments/${f.experiment}/definition`))
      .text;
    const body = { definition, experiment_id: f.experiment };
    for (const path of ["/api/v1/admin/study-definitions/plan", "/api/v1/admin/study-definitions/apply"]) {
      const outsider = await as["non-member"].post<{ error: { details: { resource: string } } }>(path, body);
      expect(outsider.status, path).toBe(404);
      expect(outsider.body.error.details.resource).toBe("experiment");
      const analyst = await as.analyst.post<{ error: { code: string; details: { needed: string } } }>(
        path,
        body,
      );
      expect(analyst.status, path).toBe(403);
      expect(analyst.body.error.details.needed).toBe("editor");
      expect((await as.editor.post(path, body)).status, path).toBe(200);
    }
    const fresh = await as["non-member"].post<{ experiment_id: string }>(
      "/api/v1/admin/study-definitions/apply",
      {
        definition: definition.replace(/^name: .*$/m, "name: A copy of my own"),
      },
    );
    expect(fresh.status, fresh.text).toBe(200);
    expect((await as["non-member"].get(`/api/v1/admin/experiments/${fresh.body.experiment_id}`)).status).toBe(
      200,
    );
  });
});
