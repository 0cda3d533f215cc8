import type { ExclusionRule, RuleChange } from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import { iso, json } from "../db/present.ts";
import { exclusionRulesOf } from "../experiments/exclusion-rules.ts";
import { exclusionRuleChangesOf } from "../experiments/queries/experiments.queries.ts";
import { ruleText } from "../quality/rules.ts";
import { chisquareCdf } from "./sample-ratio.ts";

/** The p-value below which arms are flagged as excluded unequally by the rules. */
const UNEQUAL_EXCLUSION_ALPHA = 0.05;

/**
 * Whether the rules excluded a different share of participants in different arms: Pearson's
 * chi-square test of independence on the table arms x (excluded, kept). Exclusion that depends on the
 * arm breaks randomisation (the arms no longer compare like with like), so it is flagged at the
 * usual 5% level. Null parts with fewer than two arms or when no one, or everyone, was excluded.
 */
export function exclusionBalance(arms: readonly { readonly excluded: number; readonly kept: number }[]): {
  chi_square: number | null;
  p_value: number | null;
  unequal: boolean;
} {
  const excluded = arms.reduce((s, a) => s + a.excluded, 0);
  const n = arms.reduce((s, a) => s + a.excluded + a.kept, 0);
  const kept = n - excluded;
  const sized = arms.filter((a) => a.excluded + a.kept > 0);
  if (sized.length < 2 || excluded === 0 || kept === 0)
    return { chi_square: null, p_value: null, unequal: false };
  let chi = 0;
  for (const a of sized) {
    const size = a.excluded + a.kept;
    const e1 = (size * excluded) / n;
    const e0 = (size * kept) / n;
    chi += (a.excluded - e1) ** 2 / e1 + (a.kept - e0) ** 2 / e0;
  }
  const p = 1 - chisquareCdf(chi, sized.length - 1);
  return { chi_square: chi, p_value: p, unequal: p < UNEQUAL_EXCLUSION_ALPHA };
}

/** How many participants of an arm each rule excluded (a participant breaking two rules counts for both). */
export function perRule(
  rules: readonly ExclusionRule[],
  broken: Iterable<readonly ExclusionRule[]>,
): { rule: string; excluded: number }[] {
  const counts = new Map(rules.map((r) => [ruleText(r), 0]));
  for (const list of broken)
    for (const r of list) {
      const key = ruleText(r);
      const n = counts.get(key);
      if (n !== undefined) counts.set(key, n + 1);
    }
  return [...counts].map(([rule, excluded]) => ({ rule, excluded }));
}

/** An experiment's rules, and every change made to them, oldest first. */
export async function rulesOf(
  db: Db,
  experimentId: string,
): Promise<{ rules: ExclusionRule[]; changes: RuleChange[] }> {
  const [rules, changes] = await Promise.all([
    exclusionRulesOf(db, experimentId),
    exclusionRuleChangesOf(db, experimentId),
  ]);
  return {
    rules,
    changes: (
      changes as { at: Date; admin: string | null; status: string; before: unknown; after: unknown }[]
    ).map((c) => ({
      at: iso(c.at),
      admin: c.admin,
      status: c.status,
      before: json<ExclusionRule[]>(c.before, []),
      after: json<ExclusionRule[]>(c.after, []),
    })),
  };
}
