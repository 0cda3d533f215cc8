import type { RecommenderTestResult } from "../../types.ts";

/** What a researcher reads of each failure kind of a test call (the spec's failure table). */
export const FAILURE_TEXT: Record<string, string> = {
  refused: "The service could not be reached (connection refused, unknown host, or the connection dropped).",
  timeout: "The service did not answer within the timeout.",
  http_5xx: "The service answered with a server error (5xx).",
  invalid_json: "The answer is not valid JSON.",
  not_a_list: "The video id path does not lead to a list in the answer.",
  no_valid_ids: "None of the values at the video id path is a video UUID.",
  outside_pool: "None of the ids is a video of this experiment's pool.",
  blocked_address:
    "The address is a link-local or cloud metadata address (169.254.x.x and the like): Feedlab never calls those.",
  other: "The service answered with an unexpected status, or an answer too large.",
};

/** One line that sums a test call up: status, time, and what was kept and dropped. */
export function testSummary(r: RecommenderTestResult): string {
  const parts = [
    r.status === null ? "no answer" : `HTTP ${r.status}`,
    `${Math.round(r.latency_ms)} ms`,
    `${r.returned} ${r.returned === 1 ? "id" : "ids"} returned`,
    `${r.kept} kept`,
  ];
  const dropped: string[] = [];
  if (r.dropped.invalid > 0) dropped.push(`${r.dropped.invalid} not a video UUID`);
  if (r.dropped.outside_pool > 0) dropped.push(`${r.dropped.outside_pool} not in the pool`);
  if (dropped.length > 0) parts.push(`dropped: ${dropped.join(", ")}`);
  return parts.join(" · ");
}
