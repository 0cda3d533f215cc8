import { describe, expect, it } from "vitest";
import { sqlStatements } from "./sql-script.ts";

describe("sqlStatements", () => {
  it("splits at semicolons outside strings, identifiers, dollar-quoted bodies and comments", () => {
    const script = `-- a comment; not a statement
CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $fn$ BEGIN RETURN 1; END $fn$;
INSERT INTO t VALUES ('it''s; fine', 'x');
CREATE TABLE "odd;name" (a int);
SELECT $$;$$`;
    expect(sqlStatements(script)).toEqual([
      "-- a comment; not a statement\nCREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $fn$ BEGIN RETURN 1; END $fn$",
      "INSERT INTO t VALUES ('it''s; fine', 'x')",
      'CREATE TABLE "odd;name" (a int)',
      "SELECT $$;$$",
    ]);
  });

  it("answers nothing for a script of comments and blank lines", () => {
    expect(sqlStatements("-- only a comment;\n\n;\n")).toEqual([]);
  });
});
