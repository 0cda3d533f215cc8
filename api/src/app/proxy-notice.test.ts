import { describe, expect, it } from "vitest";
import { loadConfig } from "../config.ts";
import { proxyNotice } from "./proxy-notice.ts";

describe("what the server says at start about the proxy in front", () => {
  it("names FEEDLAB_TRUST_PROXY when the public URL is https and no proxy is trusted", () => {
    const lines = proxyNotice(loadConfig({ FEEDLAB_PUBLIC_URL: "https://study.example.org" }));
    expect(lines.join("\n")).toMatch(/FEEDLAB_TRUST_PROXY is unset[\s\S]*docs\/deploy\.md/);
  });

  it("says nothing on a plain local start", () => {
    expect(proxyNotice(loadConfig({}))).toEqual([]);
  });

  it("names whom it trusts, and warns that a count trusts any peer on a public interface", () => {
    expect(proxyNotice(loadConfig({ FEEDLAB_TRUST_PROXY: "10.0.0.0/8,10.1.2.3" }))).toEqual([
      expect.stringContaining("10.0.0.0/8, 10.1.2.3/32"),
    ]);
    const exposed = proxyNotice(loadConfig({ FEEDLAB_TRUST_PROXY: "1", HOST: "0.0.0.0", PORT: "8080" }));
    expect(exposed).toHaveLength(2);
    expect(exposed[1]).toContain("let only the proxy reach 0.0.0.0:8080");
    expect(proxyNotice(loadConfig({ FEEDLAB_TRUST_PROXY: "1" }))).toHaveLength(1);
  });
});
