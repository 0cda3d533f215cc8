import type { Config } from "../config.ts";

/**
 * What the server expects of the proxy in front, said at start (api.md "Behind a reverse proxy"): an
 * https public URL with no trusted proxy refuses sign-ins and joins that arrive over plain HTTP.
 */
export function proxyNotice(config: Config): string[] {
  const trust = config.trustProxy;
  if (trust.kind === "none") {
    return config.secureCookies === "always"
      ? [
          "Proxy:          FEEDLAB_TRUST_PROXY is unset, so sign-ins and joins must reach this server over HTTPS",
          "                (behind a TLS proxy, set FEEDLAB_TRUST_PROXY=1 or the proxy's address: docs/deploy.md)",
        ]
      : [];
  }
  const whom =
    trust.kind === "hops"
      ? `the ${trust.hops === 1 ? "nearest proxy" : `${trust.hops} nearest proxies`}`
      : trust.networks.map((n) => `${n.address}/${n.prefix}`).join(", ");
  const lines = [`Proxy:          client addresses and HTTPS as the trusted proxy tells: ${whom}`];
  if (trust.kind === "hops" && !/^(127\.|::1$|localhost$)/.test(config.host))
    lines.push(
      `                (let only the proxy reach ${config.host}:${config.port}: a count trusts any peer)`,
    );
  return lines;
}
