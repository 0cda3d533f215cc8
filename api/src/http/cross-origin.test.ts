import { describe, expect, it } from "vitest";
import { allowedOrigins } from "./cross-origin.ts";

const sorted = (set: ReadonlySet<string>) => [...set].sort();

/** api.md "Trust boundaries": the origins whose pages may change state. */
describe("allowedOrigins", () => {
  it("allows the public URL's origin and the server's own address behind a proxy, nothing else", () => {
    expect(
      sorted(allowedOrigins("https://study.example.org/feedlab", { address: "10.0.0.5", port: 8080 })),
    ).toEqual(["http://10.0.0.5:8080", "https://study.example.org"]);
  });

  it("allows every loopback name of the port when the request reached a loopback address", () => {
    expect(
      sorted(allowedOrigins("http://127.0.0.1:8080", { address: "::ffff:127.0.0.1", port: 8080 })),
    ).toEqual(["http://127.0.0.1:8080", "http://[::1]:8080", "http://localhost:8080"]);
    expect(sorted(allowedOrigins("https://study.example.org", { address: "::1", port: 8080 }))).toEqual([
      "http://127.0.0.1:8080",
      "http://[::1]:8080",
      "http://localhost:8080",
      "https://study.example.org",
    ]);
  });

  it("allows every loopback name of a loopback public URL's port, with its scheme", () => {
    expect(sorted(allowedOrigins("https://localhost:8443", { address: "127.0.0.1", port: 8080 }))).toEqual([
      "http://127.0.0.1:8080",
      "http://[::1]:8080",
      "http://localhost:8080",
      "https://127.0.0.1:8443",
      "https://[::1]:8443",
      "https://localhost:8443",
    ]);
  });
});
