import type { BonusesBody, BonusPlan, QualityMeasure } from "@feedlab/schemas";
import { QUALITY_MEASURE_NAMES } from "@feedlab/schemas";
import { json } from "../db/present.ts";
import { conflict, HttpError, notFound, unprocessable } from "../http/errors.ts";
import { measureOf } from "../quality/rules.ts";
import { type ProlificCallRecord, ProlificError } from "./client.ts";
import { failureOf, type ProlificContext } from "./context.ts";
import {
  type BonusRow,
  bonusesOf,
  claimBonusForPay,
  insertBonus,
  settleBonus,
} from "./queries/bonuses.queries.ts";

const CENTS = 100;
/** Quality measures that are yes or no: nothing to pay per unit of. */
const YES_NO_MEASURES: ReadonlySet<string> = new Set(["straight_lined", "duplicate_recruiting_id"]);
const cents = (amount: number) => Math.floor(Math.round(amount * 10_000) / 100);
const units = (c: number) => c / CENTS;

/**
 * `POST .../prolific/bonuses`: the plan (a list, or a rule on a quality measure for finished
 * participants the rules do not exclude, rounded down to cents and capped), set up on Prolific (not
 * paid) and kept as `created`.
 */
export async function createBonuses(
  cx: ProlificContext,
  experimentId: string,
  body: BonusesBody,
  admin: string | null,
  dryRun = false,
) {
  const link = await cx.linkOf(experimentId);
  let lines: { participant_id: string; cents: number }[];
  if ("bonuses" in body) {
    lines = body.bonuses.map((b) => ({ participant_id: b.participant_id, cents: cents(b.amount) }));
    if (lines.some((l) => l.cents < 1))
      throw unprocessable("invalid_bonus", "Every bonus is at least 0.01 in the study's currency.");
    if (new Set(lines.map((l) => l.participant_id)).size < lines.length)
      throw unprocessable("invalid_bonus", "A participant is named twice: give each one bonus.");
  } else {
    const measure = body.rule.measure as QualityMeasure;
    if (YES_NO_MEASURES.has(measure))
      throw unprocessable(
        "invalid_bonus",
        `"${measure}" is a yes/no measure: a bonus rule needs a measure that counts (seconds, events, answers).`,
      );
    if (!QUALITY_MEASURE_NAMES.includes(measure))
      throw unprocessable(
        "invalid_bonus",
        `Unknown measure "${body.rule.measure}": one of ${QUALITY_MEASURE_NAMES.join(", ")}.`,
      );
    const byPid = await cx.participantsByPid(experimentId);
    lines = [];
    for (const [pid, p] of byPid) {
      if (!p.finished || p.quality === undefined || p.quality.excluded_by_rules) continue;
      const value = measureOf(p.quality, measure);
      if (typeof value !== "number") continue;
      const amount = Math.min(value * body.rule.per_unit, body.rule.max);
      const c = cents(amount);
      if (c >= 1) lines.push({ participant_id: pid, cents: c });
    }
    if (lines.length === 0)
      throw unprocessable(
        "invalid_bonus",
        "The rule gives no finished participant the rules do not exclude a bonus of 0.01 or more.",
      );
  }
  const call: ProlificCallRecord = {
    method: "POST",
    path: "/api/v1/submissions/bonus-payments/",
    body: {
      study_id: link.study_id,
      csv_bonuses: lines.map((l) => `${l.participant_id},${(l.cents / CENTS).toFixed(2)}`).join("\n"),
    },
  };
  const total = lines.reduce((s, l) => s + l.cents, 0);
  if (dryRun) return { plan: null, calls: [call], count: lines.length, total: units(total) };
  const c = cx.configured();
  let prolificId: string;
  try {
    const answer = await c.send<{ id?: string }>(call);
    prolificId = String(answer.json?.id ?? "");
    await cx.record("prolific.bonus_create", experimentId, admin, {
      study_id: link.study_id,
      ok: true,
      count: lines.length,
      total: units(total),
      attempts: answer.attempts,
    });
  } catch (err) {
    throw await cx.failed("prolific.bonus_create", experimentId, admin, { study_id: link.study_id }, err);
  }
  const row: BonusRow = {
    id: cx.newId(),
    experiment_id: experimentId,
    status: "created",
    prolific_id: prolificId,
    bonuses: lines.map((l) => ({ participant_id: l.participant_id, amount: units(l.cents) })),
    count: lines.length,
    total_cents: total,
    created_by: admin,
    created_at: cx.now(),
    paid_at: null,
  };
  await insertBonus(cx.db, row);
  return { plan: presentBonus(row), calls: undefined, count: row.count, total: units(total) };
}
/** The experiment's bonus plans, newest first. */
export async function bonusPlans(cx: ProlificContext, experimentId: string): Promise<BonusPlan[]> {
  await cx.linkOf(experimentId).catch((err) => {
    if ((err as HttpError).code === "prolific_not_linked") return null;
    throw err;
  });
  return (await bonusesOf(cx.db, experimentId)).map(presentBonus);
}
/**
 * `POST .../prolific/bonuses/{id}/pay`: pays a plan once. The row becomes `paying` (committed)
 * before the request leaves, and `paid` once Prolific accepts it; a plan that is not `created` is
 * never sent again (409 already_paid), so neither a retry nor a restart pays twice. Prolific
 * refusing the call (429 or 503, or no connection at all) puts the plan back to `created`; an
 * answer lost after sending leaves it `unknown` (docs/prolific.md: check on Prolific).
 */
export async function payBonuses(
  cx: ProlificContext,
  experimentId: string,
  bonusId: string,
  admin: string | null,
  dryRun = false,
) {
  const link = await cx.linkOf(experimentId);
  const current = (await bonusesOf(cx.db, experimentId)).find((b) => b.id === bonusId);
  if (!current) throw notFound("bonus plan");
  const call: ProlificCallRecord = {
    method: "POST",
    path: `/api/v1/bulk-bonus-payments/${encodeURIComponent(current.prolific_id ?? "")}/pay/`,
  };
  if (dryRun) return { plan: presentBonus(current), calls: [call] };
  const c = cx.configured();
  const claimed = await claimBonusForPay(cx.db, bonusId);
  if (!claimed)
    throw conflict("already_paid", alreadyPaidMessage(current.status), { status: current.status });
  try {
    const answer = await c.send(call, "once");
    const paid = await settleBonus(cx.db, bonusId, "paid", cx.now());
    await cx.record("prolific.bonus_pay", experimentId, admin, {
      study_id: link.study_id,
      ok: true,
      count: current.count,
      total: units(current.total_cents),
      attempts: answer.attempts,
    });
    return { plan: presentBonus(paid), calls: undefined };
  } catch (err) {
    if (!(err instanceof ProlificError)) throw err;
    const refused =
      !err.sent || err.status === 429 || err.status === 503 || (err.status !== null && err.status < 500);
    const settled = await settleBonus(cx.db, bonusId, refused ? "created" : "unknown", null);
    await cx.record("prolific.bonus_pay", experimentId, admin, {
      study_id: link.study_id,
      ok: false,
      outcome: settled.status,
      error: err.message,
      attempts: err.attempts,
    });
    if (refused) throw failureOf(err);
    throw new HttpError(
      502,
      "payment_unconfirmed",
      "The pay request reached Prolific but its answer was lost: Feedlab will not send it again. Check the study's bonuses on Prolific (docs/prolific.md).",
      { status: "unknown" },
    );
  }
}

function alreadyPaidMessage(status: string): string {
  if (status === "paid") return "These bonuses are paid already: Feedlab never pays a plan twice.";
  return "A pay request for these bonuses was sent already and its answer is not known: Feedlab will not send it again. Check the study's bonuses on Prolific (docs/prolific.md).";
}

function presentBonus(r: BonusRow): BonusPlan {
  return {
    id: r.id,
    count: Number(r.count),
    total: units(Number(r.total_cents)),
    status: r.status,
    bonuses: json<{ participant_id: string; amount: number }[]>(r.bonuses, []),
    prolific_id: r.prolific_id,
    created_at: new Date(r.created_at).toISOString(),
    paid_at: r.paid_at === null ? null : new Date(r.paid_at).toISOString(),
  };
}
