import { BlockList, isIP } from "node:net";

/**
 * Where outbound recommender calls may not connect (api.md "Trust boundaries"): link-local addresses,
 * where clouds answer their metadata service (169.254.169.254, AWS's fd00:ec2::254) with the
 * server's own credentials. Loopback and private ranges stay open: labs run recommenders beside
 * Feedlab. IPv4-mapped IPv6 forms (::ffff:169.254.169.254) are matched as their IPv4 address.
 */
const BLOCKED: readonly { address: string; prefix: number; family: "ipv4" | "ipv6" }[] = [
  { address: "169.254.0.0", prefix: 16, family: "ipv4" },
  { address: "fe80::", prefix: 10, family: "ipv6" },
  { address: "fd00:ec2::254", prefix: 128, family: "ipv6" },
];

/** A network of `FEEDLAB_RECOMMENDER_ALLOW`: an address and its prefix length. */
export interface AllowedNetwork {
  readonly address: string;
  readonly prefix: number;
  readonly family: "ipv4" | "ipv6";
}

/**
 * Parses `FEEDLAB_RECOMMENDER_ALLOW`: a comma list of CIDRs (or single addresses). Answers the
 * networks, or the first entry that is not one.
 */
export function parseAllowedNetworks(
  raw: string | undefined,
): { readonly networks: readonly AllowedNetwork[] } | { readonly problem: string } {
  const networks: AllowedNetwork[] = [];
  for (const entry of (raw ?? "").split(",").map((e) => e.trim())) {
    if (entry === "") continue;
    const [address = "", prefixText, extra] = entry.split("/");
    const version = isIP(address);
    const bits = version === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : -1;
    if (version === 0 || extra !== undefined || prefix < 0 || prefix > bits)
      return {
        problem: `FEEDLAB_RECOMMENDER_ALLOW must be a comma list of CIDRs such as 169.254.10.0/24 (got "${entry}")`,
      };
    networks.push({ address, prefix, family: version === 4 ? "ipv4" : "ipv6" });
  }
  return { networks };
}

/** Decides which addresses outbound recommender calls may connect to. */
export interface AddressPolicy {
  /** Whether connecting to this IP address is refused. */
  blocked(address: string): boolean;
  /**
   * The URL's host when it is an IP address the policy refuses (`http://169.254.169.254/`,
   * `http://[fe80::1]/`); null for a name (checked when it is resolved) or an allowed address.
   */
  blockedHost(url: string): string | null;
}

/** The host of a URL as an address: IPv6 without its brackets. */
export const bareHost = (hostname: string): string =>
  hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;

/** The policy: the link-local ranges above, minus the networks the deployment opens. */
export function createAddressPolicy(allowed: readonly AllowedNetwork[] = []): AddressPolicy {
  const blockList = new BlockList();
  for (const n of BLOCKED) blockList.addSubnet(n.address, n.prefix, n.family);
  const allowList = new BlockList();
  for (const n of allowed) allowList.addSubnet(n.address, n.prefix, n.family);
  const blocked = (address: string): boolean => {
    const version = isIP(address);
    if (version === 0) return false;
    const family = version === 4 ? "ipv4" : "ipv6";
    return blockList.check(address, family) && !allowList.check(address, family);
  };
  return {
    blocked,
    blockedHost(url) {
      let host: string;
      try {
        host = bareHost(new URL(url).hostname);
      } catch {
        return null;
      }
      return blocked(host) ? host : null;
    },
  };
}

/** The code of the error a refused connection fails with (classified as `blocked_address`). */
export const BLOCKED_ADDRESS_CODE = "FEEDLAB_BLOCKED_ADDRESS";

/** A connection the policy refused: it names the host and the address, never anything sent. */
export function blockedAddressError(host: string, address: string): Error & { code: string } {
  const where = host === address ? address : `${host} (${address})`;
  return Object.assign(
    new Error(`${where} is a link-local or cloud metadata address: recommender calls never connect there`),
    { code: BLOCKED_ADDRESS_CODE },
  );
}
