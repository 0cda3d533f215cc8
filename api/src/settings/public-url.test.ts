import { describe, expect, it } from "vitest";
import { loadConfig } from "../config.ts";
import { effectivePublicUrl, publicUrlNotice, publicUrlReachability } from "./public-url.ts";

const reachable = (url: string) => publicUrlReachability(url).reachable;

describe("whether participants elsewhere can open links built on the public URL", () => {
  it.each([
    ["http://localhost:8080", "loopback"],
    ["http://app.localhost", "loopback"],
    ["http://127.0.0.1:8080", "loopback"],
    ["http://127.45.6.7", "loopback"],
    ["http://[::1]:8080", "loopback"],
    ["http://[::ffff:127.0.0.1]", "loopback"],
    ["http://10.1.2.3", "private network"],
    ["http://172.16.0.1", "private network"],
    ["http://172.31.255.254", "private network"],
    ["http://192.168.1.20:8080", "private network"],
    ["http://[fd12:3456::1]", "private network"],
    ["http://[fc00::1]", "private network"],
    ["http://169.254.10.1", "link-local"],
    ["http://[fe80::1]", "link-local"],
    ["http://0.0.0.0:8080", "not an address a browser can open"],
    ["http://feedlab:8080", "name without a domain"],
    ["http://LAB-SERVER", "name without a domain"],
  ])("is unreachable for %s (%s), naming why and FEEDLAB_PUBLIC_URL", (url, why) => {
    const { reachable, problem } = publicUrlReachability(url);
    expect(reachable).toBe(false);
    expect(problem).toContain(why);
    expect(problem).toMatch(
      /Set FEEDLAB_PUBLIC_URL .*FEEDLAB_TRUST_PROXY.*HOST=0\.0\.0\.0.*docs\/deploy\.md/,
    );
  });

  it.each([
    "https://study.example.org",
    "https://feedlab.uni-example.de:8443/",
    "http://203.0.113.7:8080",
    "http://172.32.0.1",
    "http://172.15.255.255",
    "http://11.0.0.1",
    "http://[2001:db8::1]",
    "https://localhost.example.org",
  ])("is reachable for the public %s, with no problem", (url) => {
    expect(publicUrlReachability(url)).toEqual({ reachable: true, problem: null });
  });

  it("is unreachable for text that is no web address", () => {
    expect(reachable("not a url")).toBe(false);
  });
});

describe("the public URL the server answers on", () => {
  it("follows the port the server listens on when FEEDLAB_PUBLIC_URL is unset", () => {
    expect(effectivePublicUrl(loadConfig({ PORT: "0" }), 41234)).toBe("http://127.0.0.1:41234");
    expect(effectivePublicUrl(loadConfig({ PORT: "8080", HOST: "0.0.0.0" }), 8080)).toBe(
      "http://localhost:8080",
    );
  });

  it("is FEEDLAB_PUBLIC_URL as given, whatever port the server listens on", () => {
    const config = loadConfig({ PORT: "0", FEEDLAB_PUBLIC_URL: "https://study.example.org/" });
    expect(effectivePublicUrl(config, 41234)).toBe("https://study.example.org");
  });
});

describe("what the server says at start about its public URL", () => {
  it("names why and what to set when the public URL is a loopback address", () => {
    const lines = publicUrlNotice("http://127.0.0.1:8080");
    expect(lines[0]).toMatch(/^Public URL: +127\.0\.0\.1 is a loopback address/);
    expect(lines.join("\n")).toMatch(
      /FEEDLAB_PUBLIC_URL[\s\S]*FEEDLAB_TRUST_PROXY[\s\S]*HOST=0\.0\.0\.0[\s\S]*docs\/deploy\.md/,
    );
  });

  it("says nothing when the public URL is a public name over HTTPS", () => {
    expect(publicUrlNotice("https://study.example.org")).toEqual([]);
  });

  it("warns that a console over plain HTTP away from loopback cannot keep layouts from an admin's session", () => {
    for (const url of ["http://study.example.org", "http://10.1.2.3:8080"])
      expect(publicUrlNotice(url).join("\n"), url).toMatch(/^Console: +served over plain HTTP[\s\S]*HTTPS/m);
    expect(publicUrlNotice("http://127.0.0.1:8080").join("\n")).not.toContain("Console:");
  });
});
