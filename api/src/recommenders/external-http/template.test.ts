import { describe, expect, it } from "vitest";
import { DEFAULT_BODY_TEMPLATE, placeholdersOf, substitute, templateValues } from "./template.ts";

const USER = "7f1c2a9e-4b1d-4a8e-9f3c-2d5e6a7b8c9d";
const EXP = "0b3a1c2d-5e6f-4a7b-8c9d-0e1f2a3b4c5d";
const W1 = "11111111-1111-4111-8111-111111111111";
const W2 = "22222222-2222-4222-8222-222222222222";

const values = templateValues(
  {
    user_id: USER,
    experiment_id: EXP,
    limit: 21,
    offset: 40,
    current_video_id: null,
    exclude_video_ids: [W1, W2],
  },
  { variant: "B", alpha: 0.25, boost: [1, 2], flags: { fresh: true }, limit: 999 },
);

describe("body_template substitution", () => {
  it.each([
    ["a string that is one placeholder keeps a number's type", { n: "{limit}" }, { n: 21 }],
    ["a list placeholder stays a list", { ids: "{exclude_video_ids}" }, { ids: [W1, W2] }],
    ["null stays null", { current: "{current_video_id}" }, { current: null }],
    ["a group parameter keeps its number type", { a: "{alpha}" }, { a: 0.25 }],
    ["a group parameter that is an object stays an object", { f: "{flags}" }, { f: { fresh: true } }],
    ["a group parameter string", { v: "{variant}" }, { v: "B" }],
    [
      "embedded placeholders become text",
      { q: "user {user_id} page {offset}" },
      { q: `user ${USER} page 40` },
    ],
    ["an embedded list becomes its JSON text", { q: "x={exclude_video_ids}" }, { q: `x=["${W1}","${W2}"]` }],
    ["an embedded null becomes null text", { q: "c={current_video_id}" }, { q: "c=null" }],
    [
      "an unknown placeholder is left as written",
      { x: "{nope}", y: "a {nope} b" },
      { x: "{nope}", y: "a {nope} b" },
    ],
    [
      "nested objects and arrays are walked",
      { a: [{ b: "{limit}" }, "{offset}", 3] },
      { a: [{ b: 21 }, 40, 3] },
    ],
    ["object keys are not substituted", { "{limit}": 1 }, { "{limit}": 1 }],
    [
      "numbers, booleans and null in the template are kept",
      { a: 1, b: true, c: null },
      { a: 1, b: true, c: null },
    ],
    ["the request context wins over a parameter of the same name", { n: "{limit}" }, { n: 21 }],
    ["spaces inside braces are not a placeholder", { x: "{ limit }" }, { x: "{ limit }" }],
    ["doubled braces keep the outer ones", { x: "{{limit}}" }, { x: "{21}" }],
  ])("%s", (_name, template, expected) => {
    expect(substitute(template, values)).toEqual(expected);
  });

  it("gives the spec's default body from the default template", () => {
    expect(substitute(DEFAULT_BODY_TEMPLATE, values)).toEqual({
      user_id: USER,
      experiment_id: EXP,
      limit: 21,
      offset: 40,
      current_video_id: null,
      exclude_video_ids: [W1, W2],
    });
  });

  it("does not change the template", () => {
    const template = { a: ["{limit}"] };
    substitute(template, values);
    expect(template).toEqual({ a: ["{limit}"] });
  });

  it("lists the placeholders a template uses", () => {
    expect([...placeholdersOf({ a: "{x}", b: ["y {z}"], c: 1 })]).toEqual(["x", "z"]);
  });
});
