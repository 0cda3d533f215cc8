import type { FailureKind } from "./client.ts";

/** api.md's recommender failure kinds. */
export const HEALTH_FAILURES = [
  "refused",
  "timeout",
  "http_5xx",
  "invalid_json",
  "not_a_list",
  "no_valid_ids",
  "outside_pool",
  "blocked_address",
  "other",
] as const;
export type HealthFailure = (typeof HEALTH_FAILURES)[number];

/**
 * The spec's failure table as api.md names it. A DNS error counts with refused connections (the
 * spec's one row); a connection dropped midway too. `other`: a non-2xx answer that is not a 5xx, or
 * a response over the size limit. `blocked_address`: a host that is, or resolves to, a link-local or
 * cloud metadata address (api.md "Trust boundaries"), a kind of its own so that it is never read as
 * the service being down.
 */
export function healthFailureOf(kind: FailureKind): HealthFailure {
  switch (kind) {
    case "connection_refused":
    case "dns":
    case "connection_error":
      return "refused";
    case "all_invalid_ids":
      return "no_valid_ids";
    case "all_outside_pool":
      return "outside_pool";
    case "timeout":
    case "blocked_address":
    case "http_5xx":
    case "invalid_json":
    case "not_a_list":
      return kind;
    default:
      return "other";
  }
}
