import type { Interactions } from "./data.ts";
import { mulberry32 } from "./random.ts";

/** Shape of a synthetic data set with planted structure (tests and the benchmark). */
export interface PlantedOptions {
  readonly users: number;
  readonly items: number;
  /** Interactions in total (approximately: about users x perUser). */
  readonly interactions: number;
  /** Clusters: each participant and each video belongs to one. */
  readonly clusters: number;
  /** Share of a participant's interactions drawn from their own cluster (the rest: anywhere, by popularity). */
  readonly inCluster: number;
  readonly seed: number;
}

export interface Planted extends Interactions {
  /** Cluster of each participant and of each video (video i is in cluster i mod clusters). */
  readonly userCluster: Int32Array;
  readonly itemCluster: Int32Array;
}

/**
 * Participants in clusters who mostly watch their cluster's videos. Within a cluster (and overall)
 * video popularity is Zipf-like, so popularity is a fair baseline; the cluster is what a model must
 * discover. Interaction counts per participant vary (1 to 3 times the mean); weights follow the
 * spec's events: watched (1), watched and ended (3), watched, ended and liked (6). Times increase
 * through each participant's history.
 */
export function plantedInteractions(o: PlantedOptions): Planted {
  const rand = mulberry32(o.seed);
  const C = o.clusters;
  const itemCluster = Int32Array.from({ length: o.items }, (_, i) => i % C);
  const userCluster = Int32Array.from({ length: o.users }, () => Math.floor(rand() * C));
  // Zipf-like popularity by rank within each cluster: cumulative weights for sampling.
  const members: number[][] = Array.from({ length: C }, () => []);
  for (let i = 0; i < o.items; i++) members[i % C]?.push(i);
  const cumulative = (list: readonly number[]) => {
    const out = new Float64Array(list.length);
    let s = 0;
    list.forEach((_, r) => {
      s += 1 / (r + 1) ** 0.8;
      out[r] = s;
    });
    return out;
  };
  const clusterCum = members.map(cumulative);
  const globalOrder = Array.from({ length: o.items }, (_, i) => i);
  for (let i = globalOrder.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [globalOrder[i], globalOrder[j]] = [globalOrder[j] as number, globalOrder[i] as number];
  }
  const globalCum = cumulative(globalOrder);
  const draw = (cum: Float64Array) => {
    const x = rand() * (cum[cum.length - 1] as number);
    let lo = 0;
    let hi = cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cum[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const mean = o.interactions / o.users;
  const user: number[] = [];
  const item: number[] = [];
  const weight: number[] = [];
  const time: number[] = [];
  const seen = new Set<number>();
  const t0 = Date.UTC(2026, 0, 1);
  for (let u = 0; u < o.users; u++) {
    const c = userCluster[u] as number;
    const n = Math.max(1, Math.round(mean * (0.34 + rand() * 1.32)));
    seen.clear();
    for (let t = 0, tries = 0; t < n && tries < n * 10; tries++) {
      const i =
        rand() < o.inCluster
          ? (members[c]?.[draw(clusterCum[c] as Float64Array)] as number)
          : (globalOrder[draw(globalCum)] as number);
      if (seen.has(i)) continue;
      seen.add(i);
      const r = rand();
      user.push(u);
      item.push(i);
      weight.push(r < 0.7 ? 1 : r < 0.9 ? 3 : 6);
      time.push(t0 + u * 1000 + t++);
    }
  }
  return {
    users: o.users,
    items: o.items,
    user: Int32Array.from(user),
    item: Int32Array.from(item),
    weight: Float32Array.from(weight),
    time: Float64Array.from(time),
    userCluster,
    itemCluster,
  };
}
