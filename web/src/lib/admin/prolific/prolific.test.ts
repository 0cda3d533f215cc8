import { REJECTION_CATEGORIES } from "@feedlab/schemas/http/prolific.ts";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../participant-api.ts";
import {
  approvalWords,
  BONUS_MEASURES,
  decisionsFor,
  flagLabel,
  messageCount,
  messageLength,
  PLAN_STATUS,
  parseBonusLines,
  problemOf,
  REJECTION_CHOICES,
  returnReasonsOf,
  ruleWords,
} from "./prolific.ts";

const submission = (id: string, rules: string[] = []) => ({
  submission_id: id,
  participant_id: `p-${id}`,
  status: "AWAITING REVIEW",
  user_id: null,
  login_id: null,
  finished: true,
  excluded_by_rules: rules.length > 0,
  excluded_by_hand: false,
  rules,
  flags: [],
  auto_approval: null,
});

describe("the bonus list a researcher pastes", () => {
  it("reads one participant id and amount a line, with commas, semicolons or a spreadsheet's tab", () => {
    expect(parseBonusLines("abc123,1.50\n\n  def456 ; 2\r\nghi789\t0.05\n")).toEqual({
      bonuses: [
        { participant_id: "abc123", amount: 1.5 },
        { participant_id: "def456", amount: 2 },
        { participant_id: "ghi789", amount: 0.05 },
      ],
    });
  });

  it("names each wrong line by its number: a missing amount, a bad id, a fraction of a penny, a participant twice", () => {
    const parsed = parseBonusLines("abc123\nnot an id,1\nabc123,1.005\nabc123,0\nxyz,1\nxyz,2");
    expect(parsed).toEqual({
      problems: [
        expect.stringMatching(/^Line 1: write a participant id, a comma and an amount/),
        expect.stringMatching(/^Line 2: “not an id” is not a Prolific participant id/),
        expect.stringMatching(
          /^Line 3: the amount “1.005” must be from 0.01 to 1000, with at most two decimals/,
        ),
        expect.stringMatching(/^Line 4: the amount “0”/),
        expect.stringMatching(/^Line 6: xyz is named twice/),
      ],
    });
  });

  it("takes an amount written with its currency sign, and asks for lines when there are none", () => {
    expect(parseBonusLines("abc,£1.25")).toEqual({ bonuses: [{ participant_id: "abc", amount: 1.25 }] });
    expect(parseBonusLines("  \n")).toEqual({
      problems: [expect.stringContaining("one line per participant")],
    });
  });
});

describe("the rejection message's count", () => {
  it("counts characters as Prolific does: code points, without the spaces around the message", () => {
    expect(messageLength("  hello  ")).toBe(5);
    expect(messageLength("😀".repeat(60))).toBe(60);
  });

  it("says how many more characters Prolific needs, and when the message is long enough", () => {
    expect(messageCount("Too fast.")).toBe("9 characters: 91 more needed (Prolific asks for at least 100).");
    expect(messageCount("x".repeat(100))).toBe("100 characters: long enough for Prolific.");
  });
});

describe("labels", () => {
  it("words every rejection category of Prolific's, in its order", () => {
    expect(REJECTION_CHOICES.map((c) => c.value)).toEqual([...REJECTION_CATEGORIES]);
    expect(REJECTION_CHOICES.every((c) => c.label !== "" && c.label !== c.value)).toBe(true);
  });

  it("offers only numeric quality measures for a bonus rule", () => {
    const values = BONUS_MEASURES.map((m) => m.value);
    expect(values).toContain("pointer_events");
    expect(values).not.toContain("straight_lined");
    expect(values).not.toContain("duplicate_recruiting_id");
  });

  it("words an exclusion rule as the server writes it, and leaves one it cannot read as it is", () => {
    expect(ruleWords("pointer_events < 1")).toBe("Pointer movements: less than 1");
    expect(ruleWords("hidden_share >= 0.5")).toBe(
      "Share of the visit the tab was hidden (0 to 1): at least 0.5",
    );
    expect(ruleWords("straight_lined == true")).toBe("Answered every item of a scale alike: yes");
    expect(ruleWords("new_measure > 3")).toBe("new_measure > 3");
  });

  it("names quality flags, and keeps one it does not know", () => {
    expect(flagLabel("no_pointer")).toBe("No pointer on desktop");
    expect(flagLabel("brand_new")).toBe("brand_new");
  });

  it("explains an unknown bonus plan: check on Prolific, never sent again", () => {
    expect(PLAN_STATUS.unknown.explain).toContain("check the study's bonuses on Prolific");
    expect(PLAN_STATUS.unknown.explain).toContain("will not send it again");
  });

  it("says where approval on finish stands", () => {
    expect(approvalWords(null)).toBeNull();
    expect(approvalWords({ state: "done", attempts: 2, last_error: null })).toBe("Approved on finish");
    expect(approvalWords({ state: "failed", attempts: 1, last_error: "excluded: left for review" })).toBe(
      "Left for your review: excluded: left for review",
    );
    expect(approvalWords({ state: "waiting", attempts: 3, last_error: "still ACTIVE" })).toContain(
      "(3 tries; still ACTIVE)",
    );
  });
});

describe("the decisions sent for the selected submissions", () => {
  it("rejects each with the same category and the message without its outer spaces", () => {
    const choice = { action: "reject", rejection_category: "NO_DATA", message: "  Sorry.  " } as const;
    expect(decisionsFor(choice, [submission("a"), submission("b")])).toEqual([
      { submission_id: "a", action: "reject", rejection_category: "NO_DATA", message: "Sorry." },
      { submission_id: "b", action: "reject", rejection_category: "NO_DATA", message: "Sorry." },
    ]);
  });

  it("asks a return with the researcher's reasons, else the rules in words, else the server's default", () => {
    const subs = [submission("a", ["pointer_events < 1"]), submission("b")];
    expect(decisionsFor({ action: "return", reasons: null }, subs)).toEqual([
      { submission_id: "a", action: "return", reasons: ["Pointer movements: less than 1"] },
      { submission_id: "b", action: "return" },
    ]);
    expect(decisionsFor({ action: "return", reasons: ["Didn't finish"] }, subs)[1]).toEqual({
      submission_id: "b",
      action: "return",
      reasons: ["Didn't finish"],
    });
    expect(returnReasonsOf(submission("c"))).toBeNull();
  });
});

describe("what a failure means for the researcher", () => {
  const error = (status: number, code: string, message = "m") => new ApiError(status, code, message);

  it("asks for the token when the server has none", () => {
    const p = problemOf(error(409, "prolific_not_configured"), "Could not read");
    expect(p.title).toBe("Prolific is not set up on this server.");
    expect(p.todo).toContain("Ask whoever runs the server to set FEEDLAB_PROLIFIC_TOKEN");
  });

  it("says to wait and try again when Prolific is down, and that nothing was done", () => {
    const p = problemOf(error(503, "prolific_unavailable"), "Could not send the decisions");
    expect(p.title).toBe(
      "Could not send the decisions: Prolific could not be reached, even after several tries.",
    );
    expect(p.todo).toMatch(/^Nothing was marked done\. Wait a few minutes and try again/);
  });

  it("gives Prolific's refusal in its words, and a lost pay answer as never resent", () => {
    expect(
      problemOf(error(502, "prolific_refused", "Prolific refused: 404 Not found"), "Could not pay").title,
    ).toBe("Could not pay: Prolific refused: 404 Not found");
    expect(problemOf(error(502, "payment_unconfirmed"), "Could not pay").todo).toMatch(
      /^Feedlab will not send it again\. Check the study's bonuses on Prolific/,
    );
  });

  it("names a role that does not allow the action", () => {
    expect(problemOf(error(403, "forbidden"), "Could not pay").title).toBe(
      "Could not pay: your role in this experiment does not allow it.",
    );
  });
});
