import { describe, expect, it } from "vitest";
import { returnLinkProblem } from "./study-flow.ts";

describe("what is wrong with a return link, in Feedlab's words", () => {
  it("asks for https:// and the whole completion URL when the link was pasted without it", () => {
    expect(returnLinkProblem("app.prolific.com/submissions/complete?cc={code}")).toMatch(
      /^The return link must be a full web address starting with https:\/\/ .*for Prolific, paste the whole completion URL/,
    );
  });

  it("names placeholders Feedlab cannot fill, and accepts a full link with known ones", () => {
    expect(returnLinkProblem("https://example.org/done?who={participant}")).toMatch(
      /cannot fill: \{participant\}/,
    );
    expect(returnLinkProblem("https://app.prolific.com/submissions/complete?cc={code}")).toBeNull();
  });
});
