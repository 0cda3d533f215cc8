import { sessionBeginnings } from "@feedlab/projector";
import { Attrition, type Completion, ErrorBody, IdParams, type Schedule } from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import { json } from "../db/present.ts";
import { assertExperiment } from "../experiments/exists.ts";
import { experimentRow } from "../experiments/queries/experiments.queries.ts";
import { armsOf } from "../groups/queries/groups.queries.ts";
import { route } from "../http/route.ts";
import { participantsOf } from "../participants/queries/users.queries.ts";
import { lastSession, participantOnSchedule } from "../study/schedule.ts";
import { exclusionBalance } from "./rule-exclusions.ts";

/** One arm's participants by how far they came: sessions counted, and the session whose window closed unused. */
interface Reach {
  readonly group_id: string;
  readonly counted: number;
  readonly lapsedAt: number | null;
}

/**
 * Participants still in by session and arm, and whether attrition differs between arms (api.md
 * "Longitudinal studies (wave 4)"): `started` began that session (it counted), `lapsed` had its window
 * close unused; the test is Pearson's chi-square (no continuity correction) of arm by
 * reached-the-last-session over the real participants who began session 1, `df` arms - 1. With no
 * variation (everyone, or no one, reached it) the test is 0 with p 1; with fewer than two arms that
 * have participants, null.
 */
function attritionOf(
  arms: readonly { id: string; name: string }[],
  reach: readonly Reach[],
  last: number,
): Attrition {
  const byArm = Map.groupBy(reach, (r) => r.group_id);
  const sessions = Array.from({ length: last }, (_, i) => i + 1);
  const out = arms.map((a) => {
    const rs = byArm.get(a.id) ?? [];
    return {
      group_id: a.id,
      name: a.name,
      sessions: sessions.map((s) => ({
        session: s,
        started: rs.filter((r) => r.counted >= s).length,
        lapsed: rs.filter((r) => r.lapsedAt === s).length,
      })),
    };
  });
  const table = arms
    .map((a) => {
      const rs = byArm.get(a.id) ?? [];
      const reached = rs.filter((r) => r.counted >= last).length;
      return { excluded: rs.length - reached, kept: reached };
    })
    .filter((t) => t.excluded + t.kept > 0);
  if (table.length < 2) return { arms: out, differential: null };
  const test = exclusionBalance(table);
  return {
    arms: out,
    differential: {
      chi_square: test.chi_square ?? 0,
      df: table.length - 1,
      p: test.p_value ?? 1,
    },
  };
}

/** The experiment's attrition, from its real participants' sessions as the schedule counts them. */
async function experimentAttrition(db: Db, experimentId: string): Promise<Attrition> {
  await assertExperiment(db, experimentId);
  const [e, arms, participants, begun] = await Promise.all([
    experimentRow<{ schedule: unknown; completion: unknown }>(db, experimentId, "schedule", "completion"),
    armsOf<{ id: string; name: string }>(db, experimentId, "id", "name"),
    participantsOf<{ id: string; group_id: string | null; simulated: boolean }>(
      db,
      experimentId,
      "id",
      "group_id",
      "simulated",
    ),
    sessionBeginnings(db, experimentId),
  ]);
  const schedule = json<Schedule | null>(e?.schedule, null) ?? [];
  const completion = json<Completion | null>(e?.completion, null);
  const sessionsOf = Map.groupBy(begun, (s) => s.user_id);
  const now = Date.now();
  const reach: Reach[] = [];
  for (const p of participants) {
    const sessions = sessionsOf.get(p.id);
    if (p.simulated || p.group_id === null || !sessions) continue;
    const state = participantOnSchedule(schedule, completion, sessions, { now, simulated: false });
    reach.push({
      group_id: p.group_id,
      counted: state.counted.length,
      lapsedAt: state.lapsed?.session ?? null,
    });
  }
  const last =
    lastSession(schedule, completion?.after_sessions) ?? Math.max(1, ...reach.map((r) => r.counted));
  return attritionOf(arms, reach, last);
}

/** `GET .../attrition`. */
export function attritionRoutes({ db }: { db: Db }) {
  return [
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}/attrition",
      tag: "results",
      summary: "Participants still in by session and arm, and a test of differential attrition",
      description:
        "Per arm, for each session from 1 to the last (completion's after_sessions, else the schedule's last window, else the furthest any participant came): `started`, the real participants who began that session (it counted: in its window, docs/longitudinal.md), and `lapsed`, those whose window for it closed unused. `differential`: Pearson's chi-square (no continuity correction) of arm by reached-the-last-session over the real participants who began session 1, df = arms - 1 (arms with participants); chi_square 0 and p 1 when everyone, or no one, reached it; null with fewer than two arms with participants. Attrition that differs by arm biases every per-arm comparison.",
      access: "admin",
      role: "analyst",
      params: IdParams,
      responses: {
        200: { description: "Attrition per arm", schema: Attrition },
        404: { description: "Unknown experiment", schema: ErrorBody },
      },
      handler: async (ctx, { params }) => {
        ctx.body = await experimentAttrition(db, params.id);
      },
    }),
  ];
}
