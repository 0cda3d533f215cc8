import { latencyByGroup } from "@feedlab/projector";
import type { ArmLatency } from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";

const NOTHING = { p50: null, p95: null, requests: 0, participants: 0 };
const NONE: ArmLatency = { feed: NOTHING, related: NOTHING };

/**
 * Latency parity (api.md, "Data quality and validity"): each arm's p50 and p95 of the latencies its
 * participants' HOME_FEED (`feed`) and RECOMMENDATIONS (`related`) events reported, from the
 * response-latency read model, leaving out the same participants as the rest of `/stats`
 * (`leftOut`). Answers a lookup that gives every group its `latency_ms`, null parts for a group
 * without reported latencies. Never a scan of raw events.
 */
export async function armLatencies(
  db: Db,
  experimentId: string,
  leftOut: ReadonlySet<string>,
): Promise<(groupId: string) => ArmLatency> {
  const byGroup = await latencyByGroup(db, experimentId, leftOut);
  return (groupId) => byGroup.get(groupId) ?? NONE;
}
