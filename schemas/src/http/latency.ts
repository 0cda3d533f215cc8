import { type Static, Type } from "@sinclair/typebox";
import { Nullable } from "./common.ts";

/**
 * The gap in p50 latency between two arms, of either surface, past which the results page warns
 * that latency may confound the comparison (docs/results.md, "Latency parity").
 */
export const LATENCY_WARNING_MS = 100;

const Quantiles = Type.Object({
  p50: Nullable(Type.Number({ description: "Median latency in ms; null when none was reported" })),
  p95: Nullable(Type.Number({ description: "95th percentile latency in ms; null when none was reported" })),
  requests: Type.Integer({
    description:
      "How many page loads (HOME_FEED or RECOMMENDATIONS events reporting a latency) p50 and p95 rest on; 0 when none",
  }),
  participants: Type.Integer({
    description: "How many of the arm's analysed participants made those page loads",
  }),
});

/**
 * An arm's latencies (api.md, `GET .../stats` `groups[].latency_ms`): from the participant runtime
 * asking for a list to its cards shown, as HOME_FEED (`feed`) and RECOMMENDATIONS (`related`) report
 * it, pooled over the arm's analysed participants' events; accurate to 2.5 ms below 1 s. Each surface
 * says how many page loads and participants its quantiles rest on, so a gap from a handful of loads
 * reads as what it is.
 */
export const ArmLatency = Type.Object({ feed: Quantiles, related: Quantiles });
export type ArmLatency = Static<typeof ArmLatency>;
