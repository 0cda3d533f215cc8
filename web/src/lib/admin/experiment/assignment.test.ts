import { describe, expect, it } from "vitest";
import { type AssignmentForm, assignmentOf } from "./assignment.ts";

const form = (over: Partial<AssignmentForm>): AssignmentForm => ({
  method: "balanced",
  counts: "joined",
  staleMinutes: null,
  blockSize: null,
  covariates: "",
  surveyCovariates: [],
  randomElement: 0.8,
  metric: "ctr",
  burnIn: 20,
  floor: 0.05,
  seed: null,
  ...over,
});

describe("the Assignment section's form", () => {
  it("sends only the settings of the chosen method", () => {
    expect(assignmentOf(form({ blockSize: 8, seed: 3 }))).toEqual({ method: "balanced", counts: "joined" });
    expect(assignmentOf(form({ method: "blocked", blockSize: 8, seed: 3 }))).toEqual({
      method: "blocked",
      counts: "joined",
      block_size: 8,
      seed: 3,
    });
    expect(
      assignmentOf(form({ method: "minimisation", covariates: " age_band, country ,", counts: "consented" })),
    ).toEqual({
      method: "minimisation",
      counts: "consented",
      covariates: [
        { source: "recruiting", key: "age_band" },
        { source: "recruiting", key: "country" },
      ],
      random_element: 0.8,
    });
    expect(assignmentOf(form({ method: "adaptive", metric: "like_rate", staleMinutes: 30 }))).toEqual({
      method: "adaptive",
      counts: "joined",
      stale_minutes: 30,
      metric: "like_rate",
      burn_in: 20,
      floor: 0.05,
    });
  });

  it("says what is wrong in the form's words before anything is sent", () => {
    expect(assignmentOf(form({ method: "minimisation" }))).toBe(
      "Choose a pre-survey question or name a link parameter to balance on.",
    );
    expect(
      assignmentOf(
        form({
          method: "minimisation",
          covariates: "a, b, c, d, e, f",
          surveyCovariates: ["q1", "q2", "q3", "q4", "q5"],
        }),
      ),
    ).toBe("Balance on at most 10 questions and parameters together.");
    expect(assignmentOf(form({ method: "minimisation", covariates: "age band" }))).toContain(
      "cannot be a link parameter",
    );
    expect(assignmentOf(form({ method: "blocked", blockSize: 1 }))).toContain("from 2 to 100");
    expect(assignmentOf(form({ staleMinutes: 0 }))).toContain("from 1 to 1440");
    expect(assignmentOf(form({ method: "adaptive", floor: 0.7 }))).toContain("from 0 to 0.5");
  });

  it("saves ticked pre-survey questions as survey covariates, alone or beside link parameters", () => {
    expect(assignmentOf(form({ method: "minimisation", surveyCovariates: ["age"] }))).toEqual({
      method: "minimisation",
      counts: "joined",
      covariates: [{ source: "survey", key: "age" }],
      random_element: 0.8,
    });
    const both = assignmentOf(
      form({ method: "minimisation", surveyCovariates: ["age", "age", "gender"], covariates: "country" }),
    );
    expect(typeof both === "string" ? both : both.covariates).toEqual([
      { source: "survey", key: "age" },
      { source: "survey", key: "gender" },
      { source: "recruiting", key: "country" },
    ]);
  });

  it("sends no survey covariate for a method other than minimisation", () => {
    expect(assignmentOf(form({ method: "blocked", surveyCovariates: ["age"] }))).toEqual({
      method: "blocked",
      counts: "joined",
    });
  });
});
