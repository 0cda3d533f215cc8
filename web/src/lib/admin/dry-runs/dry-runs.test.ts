import { describe, expect, it } from "vitest";
import type { DryRun, DryRunArm, DryRunProblem } from "../../types.ts";
import {
  armChecklist,
  checkOf,
  firstCardText,
  PROBLEM_HEADINGS,
  participantsLine,
  problemHeading,
  progressLabel,
  rateText,
  runOutcome,
  surveysText,
  trajectoryHref,
  verdict,
} from "./dry-runs.ts";

const problem = (
  kind: DryRunProblem["kind"],
  page: string,
  over: Partial<DryRunProblem> = {},
): DryRunProblem => ({
  participant: "sim-1",
  user_id: "u1",
  page,
  kind,
  message: `${kind} happened`,
  ...over,
});

const arm = (name: string, problems: DryRunProblem[] = []): DryRunArm => ({
  group_id: `g-${name}`,
  name,
  participants: 3,
  finished: 2,
  declined: 1,
  ctr: { value: 0.125, low: 0.08, high: 0.17 },
  served_by_model: null,
  first_card_ms: { p50: 850, max: 1240 },
  surveys: [],
  completion_redirect: null,
  completion_not_tested: null,
  event_types: [],
  missing_event_types: [],
  problems,
});

const run = (over: Partial<DryRun>): DryRun => ({
  id: "r1",
  experiment_id: "e1",
  status: "done",
  browser: false,
  participants_per_arm: 3,
  seed: 1,
  progress: { done: 6, total: 6 },
  created_at: "2026-11-27T10:00:00.000Z",
  started_at: "2026-11-27T10:00:01.000Z",
  finished_at: "2026-11-27T10:00:09.000Z",
  ok: true,
  error: null,
  warnings: [],
  arms: [arm("A"), arm("B")],
  ...over,
});

describe("the dry run's problems in words", () => {
  it("gives every kind the server reports a heading of its own", () => {
    const headings = Object.values(PROBLEM_HEADINGS);
    expect(new Set(headings).size).toBe(headings.length);
    expect(problemHeading("empty_feed")).toBe("The feed was empty");
    expect(problemHeading("layout_fallback")).toBe("The layout failed and the plain one was shown");
    expect(problemHeading("missing_event_types")).toBe("Events the pages should send never arrived");
  });

  it("shows a kind this console does not know by its code", () => {
    expect(problemHeading("new_kind")).toBe("new_kind");
  });
});

describe("an arm's checklist", () => {
  it("is green on every line when the arm has no problem, without the other-pages line", () => {
    const lines = armChecklist(arm("A"));
    expect(lines.map((l) => l.label)).toEqual([
      "Joining and consent",
      "Feed",
      "Watch page",
      "Surveys",
      "Completion",
      "Events",
    ]);
    expect(lines.every((l) => l.ok && l.untested === null && l.groups.length === 0)).toBe(true);
  });

  it("shows the completion as not tested, with why, when no simulated participant reached it", () => {
    const why = "The completion rule asks for 1 minute on the pages, which a dry run does not wait for.";
    const untested: DryRunArm = { ...arm("A"), finished: 0, completion_not_tested: why };
    const lines = armChecklist(untested);
    expect(lines.filter((l) => l.untested !== null).map((l) => [l.id, l.untested])).toEqual([
      ["completion", why],
    ]);
    const red = armChecklist({
      ...arm("A", [problem("empty_feed", "feed")]),
      completion_not_tested: why,
    });
    expect(red.find((l) => l.id === "completion")?.untested).toBe(why);
    expect(red.find((l) => l.id === "feed")?.untested).toBeNull();
  });

  it("turns the line of a problem's kind red wherever it happened, else the line of its page", () => {
    expect(checkOf(problem("empty_feed", "/somewhere"))).toBe("feed");
    expect(checkOf(problem("missing_event_types", "events"))).toBe("events");
    expect(checkOf(problem("layout_fallback", "watch"))).toBe("watch");
    expect(checkOf(problem("request_failed", "consent"))).toBe("joining");
    expect(checkOf(problem("page_error", "/admin/unknown"))).toBe("other");
  });

  it("groups a line's problems by kind, in the headings' order, and adds the other-pages line when needed", () => {
    const lines = armChecklist(
      arm("A", [
        problem("empty_feed", "feed", { participant: "sim-2" }),
        problem("request_failed", "feed"),
        problem("empty_feed", "feed", { participant: "sim-3" }),
        problem("page_error", "/odd"),
      ]),
    );
    const feed = lines.find((l) => l.id === "feed");
    expect(feed?.ok).toBe(false);
    expect(
      feed?.groups.map((g) => [g.heading, g.items.flatMap((i) => i.who.map((w) => w.participant))]),
    ).toEqual([
      ["A request to the server failed", ["sim-1"]],
      ["The feed was empty", ["sim-2", "sim-3"]],
    ]);
    expect(lines.at(-1)?.label).toBe("Other pages");
    expect(lines.filter((l) => !l.ok).map((l) => l.id)).toEqual(["feed", "other"]);
  });
  it("says a message many participants met once, naming them all, and keeps different messages apart", () => {
    const [events] = armChecklist(
      arm("A", [
        problem("events_not_stored", "events", { participant: "sim-1", message: "2 of 9 events were lost." }),
        problem("events_not_stored", "events", { participant: "sim-2", message: "2 of 9 events were lost." }),
        problem("events_not_stored", "events", { participant: "sim-3", message: "1 of 8 events was lost." }),
      ]),
    )
      .filter((l) => l.id === "events")
      .flatMap((l) => l.groups);
    expect(events?.items.map((i) => [i.message, i.who.map((w) => w.participant)])).toEqual([
      ["2 of 9 events were lost.", ["sim-1", "sim-2"]],
      ["1 of 8 events was lost.", ["sim-3"]],
    ]);
  });
});

describe("the run's verdict", () => {
  it("says every arm is green when no arm has a problem", () => {
    expect(verdict(run({}))).toEqual({ tone: "ok", text: "All 2 arms are green." });
  });

  it("says the arms are green for what ran, not green, when no simulated participant reached the completion", () => {
    const untested = { ...arm("A"), finished: 0, completion_not_tested: "Not reachable in a dry run." };
    expect(verdict(run({ arms: [untested, { ...untested, name: "B" }] }))).toEqual({
      tone: "untested",
      text: "All 2 arms are green for what ran; the completion was not tested: no simulated participant reached it.",
    });
    expect(verdict(run({ arms: [untested, arm("B")] })).text).toBe(
      "All 2 arms are green for what ran; the completion was not tested in 1 of 2 arms: no simulated participant reached it.",
    );
    expect(verdict(run({ arms: [untested] })).text).toMatch(/^The arm is green for what ran;/);
    expect(runOutcome(run({ arms: [untested] }))).toBe("Green for what ran; completion not tested");
    expect(runOutcome(run({}))).toBe("All arms green");
  });

  it("counts the arms with problems, in the right number", () => {
    const one = run({ arms: [arm("A", [problem("empty_feed", "feed")]), arm("B"), arm("C")] });
    expect(verdict(one)).toEqual({ tone: "problems", text: "1 of 3 arms has problems." });
    const two = run({
      arms: [arm("A", [problem("empty_feed", "feed")]), arm("B", [problem("page_error", "watch")])],
    });
    expect(verdict(two).text).toBe("2 of 2 arms have problems.");
    expect(runOutcome(two)).toBe("2 arms with problems");
  });

  it("gives a failed run's reason, and no verdict while the run is going", () => {
    expect(verdict(run({ status: "failed", error: "out of time", arms: [] }))).toEqual({
      tone: "failed",
      text: "The dry run stopped before its report: out of time",
    });
    expect(verdict(run({ status: "running" })).tone).toBe("running");
  });
});

describe("the progress and the facts of an arm", () => {
  it("labels the progress with participants done of all, or as waiting while queued", () => {
    expect(progressLabel(run({ status: "running", progress: { done: 4, total: 9 } }))).toBe(
      "4 of 9 participants",
    );
    expect(progressLabel(run({ status: "queued", progress: { done: 0, total: 0 } }))).toBe(
      "Waiting to start…",
    );
    expect(runOutcome(run({ status: "running", progress: { done: 1, total: 1 } }))).toBe(
      "1 of 1 participant",
    );
  });

  it("writes participants, the click rate with its interval and the time to the first card", () => {
    const a = arm("A");
    expect(participantsLine(a)).toBe("3 joined · 2 finished · 1 declined the consent");
    expect(participantsLine({ ...a, declined: 0 })).toBe("3 joined · 2 finished");
    expect(rateText(a.ctr)).toBe("12.5% (8.0%–17.0%)");
    expect(rateText({ value: 0.5, low: null, high: null })).toBe("50.0% (one participant)");
    expect(firstCardText(a.first_card_ms)).toBe("median 850 ms, slowest 1.2 s");
    expect(firstCardText(null)).toBe("—");
  });

  it("lists the surveys in the order they came, with their kinds", () => {
    expect(
      surveysText([
        { name: "Background", kind: "pre" },
        { name: "Exit", kind: "post" },
      ]),
    ).toBe("Background (pre-study) → Exit (post-study)");
    expect(surveysText([])).toBe("None shown");
  });
});

describe("links to a simulated participant's trajectory", () => {
  it("links a participant the experiment still has", () => {
    expect(trajectoryHref("e1", problem("empty_feed", "feed"), new Set(["u1"]))).toBe(
      "/admin/participants/u1?experiment=e1&login=sim-1",
    );
  });

  it("gives no link once the participant is erased, or when they never got an id", () => {
    expect(trajectoryHref("e1", problem("empty_feed", "feed"), new Set())).toBeNull();
    expect(
      trajectoryHref("e1", problem("empty_feed", "feed", { user_id: null }), new Set(["u1"])),
    ).toBeNull();
  });
});
