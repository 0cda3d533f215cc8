import { describe, expect, it } from "vitest";
import { isConcurrencyError, isDataError } from "../apply/errors.ts";
import { errorFields, errorOf } from "./batch-messages.ts";

describe("errors from the projector's thread", () => {
  it("keep the database's fields, so the main thread tells a data error from a deadlock", () => {
    const refused = Object.assign(new Error('null value in column "x"'), { code: "23502", table: "events" });
    const back = errorOf(structuredClone(errorFields(refused)));
    expect(back).toBeInstanceOf(Error);
    expect(back).toMatchObject({ message: 'null value in column "x"', code: "23502", table: "events" });
    expect(isDataError(back)).toBe(true);
    expect(
      isConcurrencyError(
        errorOf(
          structuredClone(errorFields(Object.assign(new Error("deadlock detected"), { code: "40P01" }))),
        ),
      ),
    ).toBe(true);
  });

  it("describe a thrown value that is not an error by its text", () => {
    expect(errorOf(errorFields("the database closed")).message).toBe("the database closed");
  });
});
