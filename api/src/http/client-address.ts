import { BlockList, isIP } from "node:net";
import parseForwarded from "forwarded-parse";

/**
 * Which forwarded headers to believe (`FEEDLAB_TRUST_PROXY`, api.md "Behind a reverse proxy"):
 * none (the default), the `hops` proxies nearest the server, or proxies at these addresses and networks.
 */
export type TrustProxy =
  | { readonly kind: "none" }
  | { readonly kind: "hops"; readonly hops: number }
  | { readonly kind: "networks"; readonly networks: readonly ProxyNetwork[] };

/** An address (`prefix` 32 or 128) or a CIDR network of trusted proxies. */
interface ProxyNetwork {
  readonly address: string;
  readonly prefix: number;
  readonly family: "ipv4" | "ipv6";
}

/** Who a request came from, as far as the trusted proxies vouch for it. */
export interface ClientOrigin {
  /** The client's address (canonical text), or `unknown` when a trusted proxy withheld it. */
  readonly address: string;
  /** The protocol the client used to reach the first trusted proxy (or the server). */
  readonly protocol: "http" | "https";
}

/** What one request says about where it came from. */
export interface RequestOrigin {
  /** The TCP peer's address (the nearest proxy, or the client itself). */
  readonly peer: string | undefined;
  /** The connection to the server was TLS. */
  readonly encrypted: boolean;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/**
 * Parses `FEEDLAB_TRUST_PROXY`: a number of proxies (0 trusts none), or a comma list of addresses and
 * CIDRs. Returns the setting or the problem to report.
 */
export function parseTrustProxy(raw: string | undefined): TrustProxy | { readonly problem: string } {
  if (raw === undefined || raw.trim() === "") return { kind: "none" };
  const text = raw.trim();
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops > 32) return { problem: `FEEDLAB_TRUST_PROXY must be 0-32 proxies (got "${text}")` };
    return hops === 0 ? { kind: "none" } : { kind: "hops", hops };
  }
  const networks: ProxyNetwork[] = [];
  for (const entry of text.split(",").map((e) => e.trim())) {
    const network = parseNetwork(entry);
    if (!network)
      return {
        problem: `FEEDLAB_TRUST_PROXY must be a number of proxies or a comma list of addresses and CIDRs such as 10.0.0.0/8 (got "${entry}")`,
      };
    networks.push(network);
  }
  return { kind: "networks", networks };
}

function parseNetwork(entry: string): ProxyNetwork | null {
  const [address = "", prefixText, extra] = entry.split("/");
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return null;
  const bits = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : -1;
  if (prefix < 0 || prefix > bits) return null;
  return { address, prefix, family: version === 4 ? "ipv4" : "ipv6" };
}

/** Whether the proxy at `address`, `hop` steps from the server (0: the TCP peer), is trusted. */
export type TrustCheck = (address: string, hop: number) => boolean;

/** The check a setting stands for (a BlockList matches IPv4-mapped IPv6 peers against IPv4 networks). */
export function trustCheck(trust: TrustProxy): TrustCheck {
  switch (trust.kind) {
    case "none":
      return () => false;
    case "hops":
      return (_address, hop) => hop < trust.hops;
    case "networks": {
      const list = new BlockList();
      for (const n of trust.networks) list.addSubnet(n.address, n.prefix, n.family);
      return (address) => {
        const version = isIP(address);
        return version !== 0 && list.check(address, version === 4 ? "ipv4" : "ipv6");
      };
    }
    default: {
      const _never: never = trust;
      return _never;
    }
  }
}

/**
 * One hop a proxy reported: the address it heard from and the protocol it was reached over. A hop
 * without `for` reports the protocol only (a proxy that sends `X-Forwarded-Proto` alone, or
 * `Forwarded: proto=https`): the address stays the one the server saw, as Koa's and Express's proxy
 * trust read the two headers apart.
 */
interface Hop {
  readonly for: string | undefined;
  readonly proto: string | undefined;
}

const header = (headers: RequestOrigin["headers"], name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v.join(", ") : v;
};
const list = (value: string | undefined) =>
  value === undefined ? [] : value.split(",").map((v) => v.trim().toLowerCase());

/**
 * The hops the proxies reported, nearest last. `X-Forwarded-For` (with `X-Forwarded-Proto`, its
 * values aligned from the right) wins when present: it is what nginx, Caddy, Traefik and the cloud
 * load balancers set, and a client's own `Forwarded` header passes through them untouched. Otherwise
 * RFC 7239's `Forwarded`; one that does not parse reports nothing.
 */
function reportedHops(headers: RequestOrigin["headers"]): Hop[] {
  const xff = header(headers, "x-forwarded-for");
  if (xff !== undefined) {
    const fors = list(xff);
    const protos = list(header(headers, "x-forwarded-proto"));
    const offset = protos.length - fors.length;
    return fors.map((f, i) => ({ for: f, proto: protos[i + offset] ?? protos[0] }));
  }
  const forwarded = header(headers, "forwarded");
  if (forwarded === undefined) {
    // Only the nearest proxy's value counts: without addresses, the hops further out cannot be checked.
    const proto = list(header(headers, "x-forwarded-proto")).at(-1);
    return proto === undefined ? [] : [{ for: undefined, proto }];
  }
  try {
    return parseForwarded(forwarded).map((e) => ({ for: e.for, proto: e.proto?.toLowerCase() }));
  } catch {
    return [];
  }
}

/** An address as a proxy may write it (`[::1]:443`, `1.2.3.4:80`, `::ffff:1.2.3.4`), canonical; or null. */
export function canonicalAddress(value: string | undefined): string | null {
  if (value === undefined) return null;
  let v = value.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(v);
  if (bracketed?.[1]) v = bracketed[1];
  else if (/^[\d.]+:\d+$/.test(v)) v = v.slice(0, v.lastIndexOf(":"));
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(v);
  if (mapped?.[1]) v = mapped[1];
  return isIP(v) === 0 ? null : v.toLowerCase();
}

/**
 * Where a request came from. Walking from the server outwards, each trusted proxy vouches for the
 * next address; the first untrusted one is the client (a client's own forwarded headers sit further
 * out, so they are never believed). The protocol is the one the outermost trusted proxy was reached over.
 */
export function clientOrigin(request: RequestOrigin, trusted: TrustCheck): ClientOrigin {
  let address = canonicalAddress(request.peer) ?? "unknown";
  let protocol: ClientOrigin["protocol"] = request.encrypted ? "https" : "http";
  if (!trusted(address, 0)) return { address, protocol };
  const hops = reportedHops(request.headers);
  for (let hop = 0; trusted(address, hop); hop++) {
    const next = hops.pop();
    if (!next) break;
    if (next.proto === "https" || next.proto === "http") protocol = next.proto;
    if (next.for === undefined) break;
    const reported = canonicalAddress(next.for);
    if (reported === null) {
      address = "unknown";
      break;
    }
    address = reported;
  }
  return { address, protocol };
}

/**
 * The group a client address is counted in for rate limits: an IPv4 address on its own, an IPv6
 * address by its /64 (`2001:db8:1:2::/64`), since one subscriber commonly holds a whole /64 and picks
 * addresses in it at will. Anything else (`unknown`) is its own group.
 */
export function addressGroup(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head = "", tail] = address.split("%")[0]?.split("::") ?? [];
  const front = head === "" ? [] : head.split(":");
  if (tail !== undefined && front.length < 4) {
    const back = tail === "" ? [] : tail.split(":");
    // An embedded IPv4 address (`::1.2.3.4`) stands for two groups, at the very end.
    const backGroups = back.reduce((n, g) => n + (g.includes(".") ? 2 : 1), 0);
    front.push(...Array<string>(8 - front.length - backGroups).fill("0"), ...back);
  }
  const prefix = front.slice(0, 4).map((g) => (g.includes(".") ? "0" : Number.parseInt(g, 16).toString(16)));
  return `${prefix.join(":")}::/64`;
}
