import { describe, expect, it } from "vitest";
import {
  addressGroup,
  canonicalAddress,
  clientOrigin,
  parseTrustProxy,
  type TrustProxy,
  trustCheck,
} from "./client-address.ts";

const trust = (raw: string) => trustCheck(parseTrustProxy(raw) as TrustProxy);
const origin = (peer: string, headers: Record<string, string>, setting: string) =>
  clientOrigin({ peer, encrypted: false, headers }, trust(setting));

/** api.md "Behind a reverse proxy": FEEDLAB_TRUST_PROXY decides whose forwarded headers count. */
describe("clientOrigin", () => {
  const viaNginx = { "x-forwarded-for": "203.0.113.7", "x-forwarded-proto": "https" };

  it("ignores every forwarded header when no proxy is trusted", () => {
    expect(origin("127.0.0.1", viaNginx, "")).toEqual({ address: "127.0.0.1", protocol: "http" });
    expect(origin("127.0.0.1", { forwarded: "for=203.0.113.7;proto=https" }, "0")).toEqual({
      address: "127.0.0.1",
      protocol: "http",
    });
  });

  it("takes the client's address and protocol from the one trusted proxy in front", () => {
    expect(origin("127.0.0.1", viaNginx, "1")).toEqual({ address: "203.0.113.7", protocol: "https" });
    expect(origin("10.1.2.3", viaNginx, "10.0.0.0/8")).toEqual({ address: "203.0.113.7", protocol: "https" });
  });

  it("believes nothing from a peer outside the trusted addresses", () => {
    expect(origin("192.0.2.1", viaNginx, "10.0.0.0/8")).toEqual({ address: "192.0.2.1", protocol: "http" });
  });

  it("never believes an address the client wrote itself in front of the proxy's", () => {
    const spoofed = { "x-forwarded-for": "198.51.100.1, 203.0.113.7", "x-forwarded-proto": "https" };
    expect(origin("127.0.0.1", spoofed, "1").address).toBe("203.0.113.7");
    expect(origin("127.0.0.1", spoofed, "127.0.0.1").address).toBe("203.0.113.7");
  });

  it("walks as many hops as are trusted, by count or by network", () => {
    // client -> load balancer (10.0.0.5, reached over https) -> nginx (10.0.0.9) -> Feedlab
    const twoHops = { "x-forwarded-for": "203.0.113.7, 10.0.0.5", "x-forwarded-proto": "https" };
    expect(origin("10.0.0.9", twoHops, "2")).toEqual({ address: "203.0.113.7", protocol: "https" });
    expect(origin("10.0.0.9", twoHops, "10.0.0.0/24")).toEqual({ address: "203.0.113.7", protocol: "https" });
    expect(origin("10.0.0.9", twoHops, "1").address).toBe("10.0.0.5");
  });

  it("reads RFC 7239 Forwarded when no X-Forwarded-For is sent, quoted IPv6 with ports included", () => {
    const headers = { forwarded: 'for="[2001:DB8::17]:4711";proto=https;by=10.0.0.9' };
    expect(origin("::ffff:10.0.0.9", headers, "10.0.0.0/8")).toEqual({
      address: "2001:db8::17",
      protocol: "https",
    });
  });

  it("prefers X-Forwarded-For over a Forwarded header a proxy may pass through untouched", () => {
    const headers = { ...viaNginx, forwarded: "for=198.51.100.1;proto=http" };
    expect(origin("127.0.0.1", headers, "1")).toEqual({ address: "203.0.113.7", protocol: "https" });
  });

  it("takes the protocol from a trusted proxy that sends X-Forwarded-Proto without X-Forwarded-For", () => {
    expect(origin("127.0.0.1", { "x-forwarded-proto": "https" }, "1")).toEqual({
      address: "127.0.0.1",
      protocol: "https",
    });
    expect(origin("10.0.0.9", { "x-forwarded-proto": "http, https" }, "10.0.0.0/8")).toEqual({
      address: "10.0.0.9",
      protocol: "https",
    });
    expect(origin("127.0.0.1", { forwarded: "proto=https" }, "1")).toEqual({
      address: "127.0.0.1",
      protocol: "https",
    });
    expect(origin("192.0.2.1", { "x-forwarded-proto": "https" }, "10.0.0.0/8").protocol).toBe("http");
  });

  it("names the client unknown when the trusted proxy hides it, and ignores a Forwarded header that does not parse", () => {
    expect(origin("127.0.0.1", { forwarded: "for=_hidden;proto=https" }, "1")).toEqual({
      address: "unknown",
      protocol: "https",
    });
    expect(origin("127.0.0.1", { forwarded: "for=;;;" }, "1")).toEqual({
      address: "127.0.0.1",
      protocol: "http",
    });
  });
});

describe("canonicalAddress", () => {
  it("strips ports, brackets and the IPv4-mapped prefix, and refuses what is not an address", () => {
    expect(canonicalAddress("203.0.113.7:5678")).toBe("203.0.113.7");
    expect(canonicalAddress("[::1]:443")).toBe("::1");
    expect(canonicalAddress("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(canonicalAddress("unknown")).toBeNull();
    expect(canonicalAddress(undefined)).toBeNull();
  });
});

describe("addressGroup", () => {
  it("counts an IPv6 address by its /64, however it is written", () => {
    const group = "2001:db8:1:2::/64";
    for (const a of ["2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:0db8:0001:0002:0:0:0:9"])
      expect(addressGroup(a), a).toBe(group);
    expect(addressGroup("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(addressGroup("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressGroup("::1")).toBe("0:0:0:0::/64");
    expect(addressGroup("::ffff:0:1.2.3.4")).toBe("0:0:0:0::/64");
    expect(addressGroup("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(addressGroup("1:2:3:4:5:6:1.2.3.4")).toBe("1:2:3:4::/64");
  });

  it("counts an IPv4 address, and an unknown one, on its own", () => {
    expect(addressGroup("203.0.113.7")).toBe("203.0.113.7");
    expect(addressGroup("unknown")).toBe("unknown");
  });
});
