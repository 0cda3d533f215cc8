/** A group as balanced assignment sees it. */
export interface GroupLoad {
  readonly id: string;
  readonly weight: number;
  readonly count: number;
}

/**
 * Balanced assignment by weight: the next participant goes to the group whose share of participants
 * lags its weight the most, i.e. the smallest (count + 1) / weight; ties go to the earlier group.
 * Over n joins each group ends within one participant of n * weight / total weight.
 */
export function pickGroup(groups: readonly GroupLoad[]): string | null {
  let best: GroupLoad | null = null;
  for (const g of groups) {
    if (!(g.weight > 0)) continue;
    if (best === null || (g.count + 1) / g.weight < (best.count + 1) / best.weight) best = g;
  }
  return best?.id ?? null;
}
