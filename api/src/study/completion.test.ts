import { describe, expect, it } from "vitest";
import { completionProblems, conditionsReached, consentVersion, fillRedirect } from "./completion.ts";

describe("completion rule", () => {
  it("fills every placeholder URL-encoded and leaves a parameter that was not captured empty", () => {
    expect(
      fillRedirect("https://x.org/done?cc={code}&pid={PROLIFIC_PID}&w={workerId}&who={login_id}", {
        code: "A B",
        PROLIFIC_PID: "5f&1",
        login_id: "ü",
      }),
    ).toBe("https://x.org/done?cc=A%20B&pid=5f%261&w=&who=%C3%BC");
  });

  it("refuses a redirect that is not http(s) or holds a placeholder it cannot fill, naming it", () => {
    expect(completionProblems({ redirect_url: "https://app.prolific.com/x?cc={code}" })).toEqual([]);
    expect(completionProblems({ redirect_url: "javascript:alert(1)" }).map((p) => p.field)).toEqual([
      "completion.redirect_url",
    ]);
    const [unknown] = completionProblems({ redirect_url: "https://x.org/?a={pid}" });
    expect(unknown?.message).toContain("{pid}");
  });

  it("needs every condition set; with none, only a completed experiment ends the study", () => {
    const both = { after_sessions: 2, after_feed_minutes: 10 };
    expect(conditionsReached(both, { sessions: 2, feed_minutes: 9.5 }, "running")).toBe(false);
    expect(conditionsReached(both, { sessions: 1, feed_minutes: 30 }, "running")).toBe(false);
    expect(conditionsReached(both, { sessions: 2, feed_minutes: 10 }, "running")).toBe(true);
    expect(conditionsReached({ code: "X" }, { sessions: 9, feed_minutes: 99 }, "running")).toBe(false);
    expect(conditionsReached({ code: "X" }, { sessions: 0, feed_minutes: 0 }, "completed")).toBe(true);
  });

  it("gives an edited consent text a new version and the same text the same one", () => {
    expect(consentVersion("I agree.")).toBe(consentVersion("I agree."));
    expect(consentVersion("I agree.")).not.toBe(consentVersion("I agree!"));
    expect(consentVersion("x")).toMatch(/^[0-9a-f]{16}$/);
  });
});
