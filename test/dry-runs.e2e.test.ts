import type { DryRun, Experiment, UiTemplate, Video } from "@feedlab/schemas";
import { beforeAll, describe, expect, it } from "vitest";
import { saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";
import { addDemoVideos } from "./harness/fixtures.ts";
import { closedPortUrl } from "./harness/recommender-server.ts";
import { createSurvey } from "./harness/surveys.ts";

/**
 * Issue 36's acceptance: a study with three arms, two broken on purpose (an external recommender
 * that refuses connections; a code layout that throws on the watch page), dry-run in Chromium through
 * the real participant pages, started from the console. The report names exactly the broken arms and why; the healthy arm is
 * green with every event type its journey should produce; the run leaves /stats as it was, and erasing
 * it leaves no simulated row.
 */
describe("a browser dry run of a study with two broken arms", () => {
  const suite = e2eSuite();
  let experiment: Experiment;
  let run: DryRun;
  let statsBefore: { groups: unknown[] };

  beforeAll(async () => {
    const videos: Video[] = [
      ...(await addDemoVideos(suite.api, "dr-a", "Baking")),
      ...(await addDemoVideos(suite.api, "dr-b", "Travel")),
    ];
    experiment = (await suite.api.post<Experiment>("/api/v1/admin/experiments", { name: "Dry run" })).body;
    const id = experiment.id;
    await suite.api.put(`/api/v1/admin/experiments/${id}/videos`, { video_ids: videos.map((v) => v.id) });
    const throws = await suite.api.post<UiTemplate>("/api/v1/admin/ui-templates", {
      name: "Watch page that throws",
      page: "watch",
      template_type: "code",
      source:
        'import { useVideo } from "@feedlab/data";\nexport default function Page({ videoId }) {\n  const { video } = useVideo(videoId);\n  if (video) throw new Error("the watch layout broke");\n  return <p>Loading</p>;\n}\n',
    });
    expect(throws.status, JSON.stringify(throws.body)).toBe(201);
    await suite.api.post("/api/v1/admin/recommenders", {
      key: "ext-down",
      kind: "external_http",
      label: "Down",
      supports_feed: true,
      supports_watch: true,
      config: { url: await closedPortUrl() },
    });
    const arms = [
      { name: "Healthy", algorithm_config: { feed: "random", watch: "similarity" }, watch: "grid-desktop" },
      {
        name: "Unreachable",
        algorithm_config: { feed: "ext-down", watch: "similarity" },
        watch: "grid-desktop",
      },
      { name: "Throwing", algorithm_config: { feed: "random", watch: "similarity" }, watch: throws.body.id },
    ];
    for (const a of arms) {
      const r = await suite.api.post(`/api/v1/admin/experiments/${id}/groups`, {
        name: a.name,
        algorithm_config: a.algorithm_config,
        ui_config: { feed: "grid-desktop", watch: a.watch },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    await createSurvey(suite.api, id, { kind: "pre", name: "Before", is_active: true });
    await suite.api.patch(`/api/v1/admin/experiments/${id}`, {
      consent_text: "You agree to take part.",
      completion: {
        after_sessions: 2,
        code: "DONE1",
        redirect_url: "https://panel.example/end?c={code}&p={login_id}",
      },
    });
    statsBefore = (await suite.api.get<{ groups: unknown[] }>(`/api/v1/admin/experiments/${id}/stats`)).body;

    // The researcher starts it from the console: three simulated participants per arm, in Chromium.
    const page = await suite.browser.newPage({ viewport: { width: 1366, height: 900 } });
    await signInToConsole(page, suite.app.url);
    await page.goto(`${suite.app.url}/admin/experiments/${id}/dry-runs`);
    await page.getByLabel("Participants per arm").fill("3");
    expect(await page.getByLabel("In a browser (Chromium)").isChecked()).toBe(true);
    await page.getByRole("button", { name: "Start dry run" }).click();
    const verdict = page.getByRole("status").filter({ hasText: "arms" });
    await verdict.waitFor({ timeout: 540_000 });
    const runs = await suite.api.get<DryRun[]>(`/api/v1/admin/experiments/${id}/dry-runs`);
    run = runs.body[0] as DryRun;
    const report = JSON.stringify(
      run.arms.map((a) => ({ arm: a.name, problems: a.problems })),
      null,
      1,
    );
    expect(await verdict.textContent(), report).toContain("2 of 3 arms have problems.");
    // The report in the researcher's words: the healthy arm green, each broken one with why.
    const card = (name: string) => page.getByRole("article", { name });
    expect(await card("Healthy").getByText("Green", { exact: true }).isVisible()).toBe(true);
    expect(await card("Unreachable").getByText("The feed was empty").first().isVisible()).toBe(true);
    expect(
      await card("Throwing").getByText("The layout failed and the plain one was shown").first().isVisible(),
    ).toBe(true);
    await saveScreenshot(page, "dry-run-broken-arms");
  }, 600_000);

  const arm = (name: string) => run.arms.find((a) => a.name === name);

  it("names exactly the broken arms and why", () => {
    expect(run.status, run.error ?? "").toBe("done");
    expect(run.ok).toBe(false);
    expect(arm("Healthy")?.problems, JSON.stringify(run.arms, null, 1)).toEqual([]);
    expect(arm("Unreachable")?.problems.map((p) => p.kind)).toContain("empty_feed");
    expect(arm("Throwing")?.problems.map((p) => p.kind)).toContain("layout_fallback");
    expect(arm("Throwing")?.problems.find((p) => p.kind === "layout_fallback")?.message).toContain(
      "the watch layout broke",
    );
  });

  it("finds the healthy arm green with every event type its journey should produce", () => {
    const healthy = arm("Healthy");
    expect(healthy?.missing_event_types).toEqual([]);
    for (const t of ["SESSION_START", "PAGE_LOAD", "HOME_FEED", "IMPRESSION", "MOUSE_MOVEMENT", "VIDEO_PLAY"])
      expect(healthy?.event_types).toContain(t);
    expect(healthy?.surveys).toEqual([{ name: "Before", kind: "pre" }]);
  });

  it("leaves /stats as it was, and erasing the dry run leaves no simulated row", async () => {
    const id = experiment.id;
    expect(
      (await suite.api.get<{ groups: unknown[] }>(`/api/v1/admin/experiments/${id}/stats`)).body.groups,
    ).toEqual(statsBefore.groups);
    expect((await suite.api.del(`/api/v1/admin/experiments/${id}/dry-runs`)).status).toBe(204);
    // No row of a simulated participant is left in any table that names participants, but the ids of
    // erased participants that erasure keeps by design (so nothing of theirs is stored again).
    const db = suite.app.runtime.db;
    expect(
      Number((await db("users").where({ simulated: true }).count<{ n: string }[]>("* as n"))[0]?.n),
    ).toBe(0);
    const tables = (await db("information_schema.columns")
      .where({ column_name: "user_id" })
      .whereRaw("table_schema = current_schema()")
      .select("table_name")) as { table_name: string }[];
    expect(tables.length).toBeGreaterThan(5);
    for (const { table_name } of tables) {
      if (table_name === "event_log_erasures") continue;
      const n = Number((await db(table_name).whereNotNull("user_id").count<{ n: string }[]>("* as n"))[0]?.n);
      expect(n, `${table_name} still holds ${n} rows`).toBe(0);
    }
  });
});
