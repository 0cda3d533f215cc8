import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../config.ts";
import { createAddressPolicy, parseAllowedNetworks } from "./addresses.ts";

describe("the addresses recommender calls may connect to", () => {
  const policy = createAddressPolicy();

  it.each([
    "169.254.169.254",
    "169.254.0.1",
    "::ffff:169.254.169.254",
    "fe80::1",
    "febf::1",
    "fd00:ec2::254",
  ])("refuses the link-local or cloud metadata address %s", (address) => {
    expect(policy.blocked(address)).toBe(true);
  });

  it.each([
    "127.0.0.1",
    "::1",
    "10.0.0.5",
    "172.16.3.4",
    "192.168.1.20",
    "fd00:ec2::253",
    "fc00::1",
    "93.184.216.34",
  ])("allows loopback, private and public addresses such as %s", (address) => {
    expect(policy.blocked(address)).toBe(false);
  });

  it("reads the host of a URL however the address is written, and leaves names to the resolver", () => {
    expect(policy.blockedHost("http://169.254.169.254/latest/meta-data/")).toBe("169.254.169.254");
    expect(policy.blockedHost("http://2852039166/")).toBe("169.254.169.254");
    expect(policy.blockedHost("http://0xa9.0xfe.0xa9.0xfe/")).toBe("169.254.169.254");
    expect(policy.blockedHost("http://[fe80::1]:8080/")).toBe("fe80::1");
    expect(policy.blockedHost("http://[::ffff:169.254.169.254]/")).toBe("::ffff:a9fe:a9fe");
    expect(policy.blockedHost("http://metadata.google.internal/")).toBeNull();
    expect(policy.blockedHost("http://127.0.0.1:9000/rec")).toBeNull();
    expect(policy.blockedHost("not a url")).toBeNull();
  });

  it("opens the networks FEEDLAB_RECOMMENDER_ALLOW lists, and only those", () => {
    const config = loadConfig({ FEEDLAB_RECOMMENDER_ALLOW: "169.254.10.0/24, fe80::1" });
    expect(config.recommenderAllow).toEqual([
      { address: "169.254.10.0", prefix: 24, family: "ipv4" },
      { address: "fe80::1", prefix: 128, family: "ipv6" },
    ]);
    const opened = createAddressPolicy(config.recommenderAllow);
    expect(opened.blocked("169.254.10.7")).toBe(false);
    expect(opened.blocked("fe80::1")).toBe(false);
    expect(opened.blocked("169.254.169.254")).toBe(true);
    expect(opened.blocked("fe80::2")).toBe(true);
    expect(loadConfig({}).recommenderAllow).toEqual([]);
  });

  it("refuses a FEEDLAB_RECOMMENDER_ALLOW entry that is not a CIDR, naming it", () => {
    expect(parseAllowedNetworks("10.0.0.0/33")).toEqual({
      problem: expect.stringContaining('"10.0.0.0/33"'),
    });
    expect(() => loadConfig({ FEEDLAB_RECOMMENDER_ALLOW: "metadata.internal" })).toThrow(ConfigError);
  });
});
