import { describe, expect, it } from "vitest";
import { experimentAccess } from "./access.ts";

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
