import { describe, expect, it } from "vitest";
import { checkConfig } from "./config.ts";

describe("external_http config checks", () => {
  it("fills the spec's defaults", () => {
    const r = checkConfig({ url: "http://rec.example/r" });
    expect(r.ok && r.config).toEqual({
      url: "http://rec.example/r",
      method: "POST",
      timeout_seconds: 5,
      headers: {},
      video_id_path: "video_ids",
    });
  });

  it("keeps every given field", () => {
    const config = {
      url: "https://rec.example/r?x=1",
      method: "GET",
      timeout_seconds: 0.5,
      headers: { Authorization: "Bearer s3cret", "X-Study": "a" },
      body_template: { u: "{user_id}", v: "{variant}" },
      video_id_path: "items.*.video_id",
    };
    const r = checkConfig(config);
    expect(r.ok && r.config).toEqual(config);
  });

  it.each([
    ["a missing url", {}, "config.url"],
    ["a relative url", { url: "/recommend" }, "config.url"],
    ["an ftp url", { url: "ftp://rec.example/r" }, "config.url"],
    ["credentials in the url", { url: "http://u:p@rec.example/r" }, "config.url"],
    ["an unknown method", { url: "http://r.example", method: "PUT" }, "config.method"],
    ["a lower-case method", { url: "http://r.example", method: "post" }, "config.method"],
    ["a zero timeout", { url: "http://r.example", timeout_seconds: 0 }, "config.timeout_seconds"],
    ["a timeout as text", { url: "http://r.example", timeout_seconds: "5" }, "config.timeout_seconds"],
    [
      "a header that is not a token",
      { url: "http://r.example", headers: { "Bad Name": "x" } },
      "config.headers.Bad Name",
    ],
    ["a reserved header", { url: "http://r.example", headers: { Host: "x" } }, "config.headers.Host"],
    [
      "a header value with a line break",
      { url: "http://r.example", headers: { "X-A": "a\r\nB: c" } },
      "config.headers.X-A",
    ],
    [
      "a header value that is not text",
      { url: "http://r.example", headers: { "X-A": 5 } },
      "config.headers.X-A",
    ],
    [
      "a body_template that is a list",
      { url: "http://r.example", body_template: [1] },
      "config.body_template",
    ],
    ["an empty path segment", { url: "http://r.example", video_id_path: "a..b" }, "config.video_id_path"],
    ["an unknown field", { url: "http://r.example", retries: 3 }, "config.retries"],
  ])("refuses %s, naming the field", (_name, config, field) => {
    const r = checkConfig(config);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems.map((p) => p.field)).toContain(field);
  });
});
