import { BlockList, isIP } from "node:net";
import type { Config } from "../config.ts";

/**
 * The public URL the server really answers on: FEEDLAB_PUBLIC_URL when set; otherwise the default
 * http://HOST:PORT with the port the server listens on (PORT=0 picks a free one after `listen`).
 */
export function effectivePublicUrl(
  config: Pick<Config, "publicUrl" | "publicUrlSet" | "port">,
  listeningPort: number,
): string {
  if (config.publicUrlSet || listeningPort === config.port) return config.publicUrl;
  return config.publicUrl.replace(new RegExp(`:${config.port}$`), `:${listeningPort}`);
}

/** Why a host cannot be opened from elsewhere on the internet. */
type Unreachable = "loopback" | "private" | "link_local" | "unspecified" | "single_label" | "invalid";

/** Address ranges that other networks cannot reach, by why. IPv4-mapped IPv6 addresses match too. */
const RANGES: readonly [Unreachable, string, number, "ipv4" | "ipv6"][] = [
  ["loopback", "127.0.0.0", 8, "ipv4"],
  ["loopback", "::1", 128, "ipv6"],
  ["private", "10.0.0.0", 8, "ipv4"],
  ["private", "172.16.0.0", 12, "ipv4"],
  ["private", "192.168.0.0", 16, "ipv4"],
  ["private", "fc00::", 7, "ipv6"],
  ["link_local", "169.254.0.0", 16, "ipv4"],
  ["link_local", "fe80::", 10, "ipv6"],
  ["unspecified", "0.0.0.0", 8, "ipv4"],
  ["unspecified", "::", 128, "ipv6"],
];

const BLOCKS: readonly [Unreachable, BlockList][] = RANGES.map(([why, network, prefix, family]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return [why, list];
});

/** Why the host of a URL cannot be reached from other networks; null when it can (as far as its name tells). */
function unreachableHost(url: string): { host: string; why: Unreachable } | null {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return { host: url, why: "invalid" };
  }
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  const family = isIP(bare);
  if (family !== 0) {
    const type = family === 4 ? "ipv4" : "ipv6";
    const match = BLOCKS.find(([, list]) => list.check(bare, type));
    return match ? { host: bare, why: match[0] } : null;
  }
  const name = bare.replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) return { host: name, why: "loopback" };
  if (!name.includes(".")) return { host: name, why: "single_label" };
  return null;
}

const WHY: Record<Unreachable, (host: string) => string> = {
  loopback: (host) => `${host} is a loopback address: only this computer can open it.`,
  private: (host) => `${host} is a private network address: only computers on the same network can open it.`,
  link_local: (host) =>
    `${host} is a link-local address: only computers on the same network link can open it.`,
  unspecified: (host) => `${host} is not an address a browser can open.`,
  single_label: (host) =>
    `“${host}” is a name without a domain: only computers on the same network can look it up.`,
  invalid: (host) => `“${host}” is not a web address.`,
};

/** What the researcher must do about an unreachable public URL (README "Configuration", docs/deploy.md). */
const REMEDY =
  "Set FEEDLAB_PUBLIC_URL to the address participants open: behind an HTTPS proxy with FEEDLAB_TRUST_PROXY, or with HOST=0.0.0.0 on a network without one (docs/deploy.md).";

/** Whether participants elsewhere can open links built on the public URL, and if not, why and what to do. */
export function publicUrlReachability(url: string): { reachable: boolean; problem: string | null } {
  const unreachable = unreachableHost(url);
  if (!unreachable) return { reachable: true, problem: null };
  return { reachable: false, problem: `${WHY[unreachable.why](unreachable.host)} ${REMEDY}` };
}

/** The start-up banner's lines about a public URL that other networks cannot open (none when they can). */
export function publicUrlNotice(url: string): string[] {
  const unreachable = unreachableHost(url);
  const lines = unreachable
    ? [
        `Public URL:     ${WHY[unreachable.why](unreachable.host)}`,
        "                Recruiting platforms and participants elsewhere cannot open its study links:",
        "                set FEEDLAB_PUBLIC_URL to the address participants open: behind an HTTPS proxy",
        "                with FEEDLAB_TRUST_PROXY, or with HOST=0.0.0.0 on a network without one (docs/deploy.md)",
      ]
    : [];
  // Browsers send Fetch Metadata only to HTTPS and loopback: elsewhere over HTTP the console cannot tell
  // its own requests from a layout's in an admin's browser (docs/security.md "Researcher code").
  if (url.startsWith("http://") && unreachable?.why !== "loopback")
    lines.push(
      "Console:        served over plain HTTP: a layout on a participant page opened in a signed-in admin's",
      "                browser could use the admin's session there. Serve Feedlab over HTTPS (docs/security.md)",
    );
  return lines;
}
