import { describe, expect, it } from "vitest";
import { joinErrorMessage, loginIdFromQuery, recruitingFromQuery } from "./join.ts";
import { ApiError } from "./participant-api.ts";

describe("the participant id of a study link", () => {
  it.each([
    ["login_id=p-1", "p-1"],
    ["PROLIFIC_PID=5f1a2b&STUDY_ID=s&SESSION_ID=x", "5f1a2b"],
    ["participant_id=abc", "abc"],
    ["participantId=abc", "abc"],
    ["workerId=A1B2C3&assignmentId=x&hitId=y", "A1B2C3"],
    ["worker_id=w9", "w9"],
    ["PSID=ps-1", "ps-1"],
    ["RID=r-1", "r-1"],
  ])("reads it from %s", (query, expected) => {
    expect(loginIdFromQuery(new URLSearchParams(query))).toBe(expected);
  });

  it("prefers our own login_id, then Prolific's, over the other names", () => {
    expect(loginIdFromQuery(new URLSearchParams("workerId=w&PROLIFIC_PID=p&login_id=l"))).toBe("l");
    expect(loginIdFromQuery(new URLSearchParams("workerId=w&PROLIFIC_PID=p"))).toBe("p");
  });

  it("ignores blank values and a bare id parameter", () => {
    expect(loginIdFromQuery(new URLSearchParams("login_id=%20&id=123"))).toBeNull();
  });
});

describe("what a participant reads when joining fails", () => {
  it("tells a newcomer the study is not open, and a returning participant that it is paused", () => {
    expect(joinErrorMessage(new ApiError(403, "experiment_not_open", "x"))).toBe(
      "This study is not open right now.",
    );
    expect(joinErrorMessage(new ApiError(403, "experiment_paused", "x"))).toBe(
      "This study is paused. Please come back later.",
    );
    expect(joinErrorMessage(new ApiError(403, "experiment_full", "x"))).toBe(
      "This study has all the participants it needs. Thank you for your interest.",
    );
  });

  it("asks the participant to tell the researchers when the site's HTTPS set-up refuses the join", () => {
    const message = joinErrorMessage(new ApiError(400, "insecure_request", "Set FEEDLAB_TRUST_PROXY"));
    expect(message).toContain("Please let the researchers know.");
    expect(message).not.toContain("participant ID");
  });
});

describe("the recruiting parameters of a study link", () => {
  it("keeps every parameter but the participant's id, the signature and the language, and no empty one", () => {
    expect(
      recruitingFromQuery(
        new URLSearchParams(
          "PROLIFIC_PID=p1&STUDY_ID=s&SESSION_ID=x&age_band=18-24&login_id=l&sig=abc&lang=de",
        ),
      ),
    ).toEqual({ PROLIFIC_PID: "p1", STUDY_ID: "s", SESSION_ID: "x", age_band: "18-24" });
    expect(
      recruitingFromQuery(new URLSearchParams("workerId=w&assignmentId=a&hitId=h&PROLIFIC_PID=")),
    ).toEqual({
      workerId: "w",
      assignmentId: "a",
      hitId: "h",
    });
  });

  it("keeps at most 20, of names the server takes, with values of at most 200 characters", () => {
    const many = new URLSearchParams(Array.from({ length: 25 }, (_, i) => [`p${i}`, "v"]));
    many.append("bad name", "x");
    expect(Object.keys(recruitingFromQuery(many))).toHaveLength(20);
    expect(recruitingFromQuery(new URLSearchParams("bad%20name=x"))).toEqual({});
    expect(recruitingFromQuery(new URLSearchParams(`long=${"x".repeat(300)}`)).long).toHaveLength(200);
  });
});
