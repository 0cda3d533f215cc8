import { describe, expect, it } from "vitest";
import { armsUsing, experimentAccess, usedElsewhereText } from "./access.ts";

describe("what the console offers an account on an experiment", () => {
  const members = [
    { username: "pi", role: "owner" as const },
    { username: "eddie", role: "editor" as const },
    { username: "ana", role: "analyst" as const, pseudonymized_only: true },
  ];

  it("offers an account owner everything, member or not", () => {
    expect(experimentAccess({ username: "lab", role: "owner" }, [])).toEqual({
      role: "owner",
      edit: true,
      own: true,
      pseudonymizedOnly: false,
    });
  });

  it("offers a member what their role allows: owners own, editors edit, analysts read", () => {
    const of = (username: string) => experimentAccess({ username, role: "researcher" }, members);
    expect(of("pi")).toMatchObject({ role: "owner", edit: true, own: true });
    expect(of("eddie")).toMatchObject({ role: "editor", edit: true, own: false });
    expect(of("ana")).toEqual({ role: "analyst", edit: false, own: false, pseudonymizedOnly: true });
  });
});

describe("a library item's uses in experiments the account cannot see", () => {
  it("counts them with the arms it names, and says so only when there are some", () => {
    expect(armsUsing({ used_by: [{}, {}], used_elsewhere: 3 })).toBe(5);
    expect(armsUsing({ used_by: [{}] })).toBe(1);
    expect(usedElsewhereText(0)).toBe("");
    expect(usedElsewhereText(1)).toBe("1 arm in experiments you are not a member of");
    expect(usedElsewhereText(2)).toBe("2 arms in experiments you are not a member of");
  });
});
