import { describe, expect, it } from "vitest";
import { assignmentLink, EXPERIMENT_SECTIONS, fixLinkOf } from "./sections.ts";

describe("where the checklist sends the researcher to fix a problem", () => {
  const page = "/admin/experiments/e1";

  it("links arm, pool and post-survey problems to their section's heading", () => {
    expect(fixLinkOf("e1", { problem: "no_groups" })).toEqual({
      href: `${page}#groups-heading`,
      label: "Go to Arms",
    });
    expect(fixLinkOf("e1", { problem: "unknown_ui" })?.href).toBe(`${page}#groups-heading`);
    expect(fixLinkOf("e1", { problem: "empty_pool" })).toEqual({
      href: `${page}#pool-heading`,
      label: "Go to Video pool",
    });
    expect(fixLinkOf("e1", { problem: "no_post_survey" })?.label).toBe("Go to Surveys");
  });

  it("links a missing translation to its survey, or to the consent form, and nothing for an unknown problem", () => {
    expect(fixLinkOf("e1", { problem: "missing_translation", survey_id: "s1" })?.href).toBe(
      `${page}/surveys/s1`,
    );
    expect(fixLinkOf("e1", { problem: "missing_translation" })?.href).toBe(`${page}#consent-text`);
    expect(fixLinkOf("e1", { problem: "something_new" })).toBeNull();
  });

  it("sends a refused covariate, and a warning about one, to the Assignment section", () => {
    const there = { href: `${page}#assignment-heading`, label: "Go to Assignment" };
    expect(fixLinkOf("e1", { problem: "invalid_assignment" })).toEqual(there);
    expect(assignmentLink("e1")).toEqual(there);
  });

  it("names every section once", () => {
    expect(new Set(EXPERIMENT_SECTIONS.map((s) => s.id)).size).toBe(EXPERIMENT_SECTIONS.length);
  });
});
