import { describe, expect, it } from "vitest";
import { ApiError } from "../../participant-api.ts";
import type { StudyChange } from "../../types.ts";
import {
  appliedMessage,
  formatProblem,
  offsetOf,
  planRows,
  readablePath,
  reasonOf,
  resourceLabel,
  studyFailure,
  studyFileProblem,
  summarizePlan,
} from "./study-files.ts";

const change = (action: StudyChange["action"], name = "x"): StudyChange => ({
  resource: "arm",
  name,
  action,
});

describe("a plan's summary", () => {
  it("counts each action in the order a researcher reads them, leaving out zeros", () => {
    const plan = [
      ...Array.from({ length: 5 }, () => change("unchanged")),
      change("update"),
      ...Array.from({ length: 3 }, () => change("create")),
    ];
    expect(summarizePlan(plan)).toMatchObject({
      create: 3,
      update: 1,
      unchanged: 5,
      refused: 0,
      text: "3 to create, 1 to update, 5 unchanged",
      canApply: true,
    });
  });

  it("counts deletions as changes to apply", () => {
    expect(summarizePlan([change("delete"), change("unchanged")])).toMatchObject({
      text: "1 to delete, 1 unchanged",
      canApply: true,
    });
  });

  it("offers no apply when a change is refused, even beside changes that would go through", () => {
    const summary = summarizePlan([change("create"), change("refused")]);
    expect(summary.text).toBe("1 to create, 1 refused");
    expect(summary.canApply).toBe(false);
  });

  it("offers no apply when nothing would change", () => {
    expect(summarizePlan([change("unchanged"), change("unchanged")])).toMatchObject({
      text: "2 unchanged",
      canApply: false,
    });
    expect(summarizePlan([]).canApply).toBe(false);
  });

  it("lists refusals first and leaves unchanged resources out unless asked", () => {
    const plan = [
      change("unchanged", "v1"),
      change("create", "A"),
      change("refused", "B"),
      change("update", "C"),
    ];
    expect(planRows(plan, false).map((c) => c.name)).toEqual(["B", "A", "C"]);
    expect(planRows(plan, true).map((c) => c.name)).toEqual(["B", "v1", "A", "C"]);
  });

  it("says what an apply did in the past tense", () => {
    expect(appliedMessage([change("create"), change("create"), change("update"), change("unchanged")])).toBe(
      "The study file is applied: 2 created, 1 updated.",
    );
    expect(appliedMessage([change("delete")])).toBe("The study file is applied: 1 deleted.");
    expect(appliedMessage([change("unchanged")])).toBe(
      "The study file is applied: nothing needed to change.",
    );
  });
});

describe("a definition's problems", () => {
  it("reads line, column, path and message as one sentence", () => {
    expect(
      formatProblem({
        path: "arms[1].algorithm.feed",
        line: 12,
        column: 5,
        message: "must be a recommender key",
      }),
    ).toBe("line 12, column 5: arms[1].algorithm.feed: must be a recommender key");
  });

  it("leaves out what the server does not know", () => {
    expect(formatProblem({ path: "name", line: 3, message: "is required" })).toBe(
      "line 3: name: is required",
    );
    expect(formatProblem({ path: "", message: "is not a YAML document" })).toBe("is not a YAML document");
  });

  it("writes a JSON pointer the way the document reads", () => {
    expect(readablePath("/arms/1/algorithm/feed")).toBe("arms[1].algorithm.feed");
    expect(readablePath("/layouts/0/a~1b")).toBe("layouts[0].a/b");
    expect(readablePath("surveys[0].name")).toBe("surveys[0].name");
  });

  it("finds a line and column in the document, clamped to the line and the text", () => {
    const text = "a: 1\nbb: 2\nccc: 3";
    expect(offsetOf(text, 1)).toBe(0);
    expect(offsetOf(text, 2, 2)).toBe(6);
    expect(offsetOf(text, 2, 99)).toBe(10);
    expect(offsetOf(text, 9)).toBe(text.length);
  });
});

describe("why a check or an apply failed", () => {
  it("lists the problems of a 422 invalid_definition", () => {
    const error = new ApiError(422, "invalid_definition", "The study document is not valid.", [
      { path: "arms[0].weight", line: 7, column: 13, message: "must be >= 0" },
    ]);
    expect(studyFailure(error)).toEqual({
      kind: "invalid",
      message: "The study document is not valid.",
      problems: [{ path: "arms[0].weight", line: 7, column: 13, message: "must be >= 0" }],
    });
  });

  it("lists the refused changes of a 409, as a list or under `changes`", () => {
    const refused = { resource: "arm", name: "Control", action: "refused", reason: "group_has_participants" };
    const expected = {
      kind: "refused",
      message: "Some changes are refused.",
      changes: [{ resource: "arm", name: "Control", action: "refused", reason: "group_has_participants" }],
    };
    expect(studyFailure(new ApiError(409, "conflict", "Some changes are refused.", [refused]))).toEqual(
      expected,
    );
    expect(
      studyFailure(
        new ApiError(409, "conflict", "Some changes are refused.", {
          changes: [refused, { ...refused, action: "update" }],
        }),
      ),
    ).toEqual(expected);
  });

  it("leaves sign-in, server and network failures to the app's error handling", () => {
    expect(studyFailure(new ApiError(401, "unauthorized", "Not signed in."))).toBeNull();
    expect(studyFailure(new ApiError(500, "internal", "Oops."))).toBeNull();
    expect(studyFailure(new ApiError(0, "network_error", "Offline."))).toBeNull();
    expect(studyFailure(new Error("boom"))).toBeNull();
  });

  it("shows any other refusal by its message", () => {
    expect(studyFailure(new ApiError(404, "not_found", "Experiment not found."))).toEqual({
      kind: "other",
      message: "Experiment not found.",
    });
  });

  it("keeps the server's own sentence, and puts a bare refusal code api.md names in words", () => {
    expect(
      reasonOf({ reason: "Copied as “Grid (2)”: another experiment uses it.", code: "template_in_use" }),
    ).toBe("Copied as “Grid (2)”: another experiment uses it.");
    expect(reasonOf({ code: "group_has_participants" })).toMatch(/Participants are assigned to this arm/);
    expect(reasonOf({ code: "something_new" })).toBe("something_new");
    expect(reasonOf({})).toBeUndefined();
    expect(resourceLabel("pool")).toBe("Video pool");
    expect(resourceLabel("exclusion_rule")).toBe("Exclusion rule");
  });
});

describe("files and links", () => {
  it("takes YAML and JSON files by their extension", () => {
    expect(studyFileProblem("study.yaml")).toBeNull();
    expect(studyFileProblem("STUDY.YML")).toBeNull();
    expect(studyFileProblem("study.json")).toBeNull();
    expect(studyFileProblem("events.csv")).toMatch(/Choose a \.yaml, \.yml or \.json file/);
  });
});
