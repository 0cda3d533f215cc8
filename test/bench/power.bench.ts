// `npm run bench -- power`: GET .../power by resampling, on a pilot of 1,000 real participants per arm
// (ctr 10%, icc 0.05, 50 impressions each) and an effect of 1 point, which needs about 1,000 per arm:
// the search simulates 1,000 studies at each size it tries. Figures: the service as the route calls it
// (the read model read on PGlite, the estimators, the search), median of 5, against its floor: the
// same resampling over plain arrays with the ratio computed inline, at the same sizes, in one loop
// without the search or the database (the cheapest way to do the same simulations here).
// Goal (issue 37): under 2 s.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Db, openDb } from "@feedlab/sql";
import { mulberry32 } from "@feedlab/trainer";
import { migrate } from "../../api/src/db/db.ts";
import { createPowerService, RESAMPLES } from "../../api/src/results/power.service.ts";
import { createRandom } from "../../api/src/system/random.ts";

export const name = "power";
export const description =
  "Power by resampling a pilot of 1,000 participants per arm (answer about 1,000 per arm), against the same simulations inline over plain arrays";

const PER_ARM = Number(process.env.BENCH_PER_ARM ?? 1000);
const EFFECT = Number(process.env.BENCH_EFFECT ?? 0.01);
/** BENCH_REPEATS: timed runs of each side, after a warm-up (their median is the figure). */
const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);
const IMPRESSIONS = 50;

/** Two arms of PER_ARM participants with planted clicks (Beta-binomial: rate 0.1, icc 0.05). */
async function seed(db: Db): Promise<string> {
  await migrate(db);
  const experiment = crypto.randomUUID();
  await db("experiments").insert({ id: experiment, name: "Power bench", status: "running" });
  const groups = [1, 2].map((i) => ({
    id: crypto.randomUUID(),
    experiment_id: experiment,
    name: `Arm ${i}`,
    algorithm_feed: "recency",
    algorithm_watch: "recency",
    ui_feed: "grid-desktop",
    ui_watch: "grid-desktop",
  }));
  await db("groups").insert(groups);
  const random = createRandom(42);
  const users = [];
  const counts = [];
  for (const g of groups) {
    for (let i = 0; i < PER_ARM; i++) {
      const id = crypto.randomUUID();
      const own = random.beta(0.1, 19);
      let clicks = 0;
      for (let t = 0; t < IMPRESSIONS; t++) if (random.bernoulli(own)) clicks++;
      users.push({ id, experiment_id: experiment, login_id: `p-${g.name}-${i}`, group_id: g.id });
      counts.push({
        experiment_id: experiment,
        group_id: g.id,
        user_id: id,
        surface: "feed",
        recommender: "recency",
        impressions: IMPRESSIONS,
        feed_clicks: clicks,
        plays: 0,
        completions: 0,
        likes: 0,
        last_at: new Date(),
      });
    }
  }
  await db.batchInsert("users", users, 500);
  await db.batchInsert("evaluation_counts", counts, 500);
  return experiment;
}

/**
 * The floor: for each size, RESAMPLES studies of two arms drawn from plain arrays, the treatment arm
 * augmented by inverted binomials, the clustered z computed inline; one PRNG, no search, no cache.
 */
function floor(xs: Float64Array, ys: Float64Array, sizes: readonly number[], effect: number): number {
  const size = xs.length;
  let rate = 0;
  let total = 0;
  for (let j = 0; j < size; j++) {
    rate += ys[j] as number;
    total += xs[j] as number;
  }
  rate /= total;
  const q = effect / (1 - rate);
  const none = xs.map((x, j) => (1 - q) ** (x - (ys[j] as number)));
  const next = mulberry32(9);
  const odds = q / (1 - q);
  let rejections = 0;
  for (const n of sizes) {
    for (let r = 0; r < RESAMPLES; r++) {
      let ax = 0;
      let ay = 0;
      let axx = 0;
      let ayy = 0;
      let axy = 0;
      for (let i = 0; i < n; i++) {
        const j = Math.floor(next() * size);
        const x = xs[j] as number;
        const y = ys[j] as number;
        ax += x;
        ay += y;
        axx += x * x;
        ayy += y * y;
        axy += x * y;
      }
      let bx = 0;
      let by = 0;
      let bxx = 0;
      let byy = 0;
      let bxy = 0;
      for (let i = 0; i < n; i++) {
        const j = Math.floor(next() * size);
        const x = xs[j] as number;
        let y = ys[j] as number;
        const u = next();
        let prob = none[j] as number;
        let cdf = prob;
        const trials = x - y;
        let k = 0;
        while (u > cdf && k < trials) {
          prob *= ((trials - k) / (k + 1)) * odds;
          k++;
          cdf += prob;
        }
        y += k;
        bx += x;
        by += y;
        bxx += x * x;
        byy += y * y;
        bxy += x * y;
      }
      const ra = ay / ax;
      const rb = by / bx;
      const va = (ayy - 2 * ra * axy + ra * ra * axx) / (ax * ax);
      const vb = (byy - 2 * rb * bxy + rb * rb * bxx) / (bx * bx);
      if (Math.abs(rb - ra) / Math.sqrt((n / (n - 1)) * (va + vb)) > 1.959963984540054) rejections++;
    }
  }
  return rejections;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

export async function run(): Promise<Record<string, number | string>> {
  const dir = mkdtempSync(path.join(tmpdir(), "feedlab-bench-power-"));
  const { db, close } = openDb({ databaseUrl: null, dataDir: dir });
  try {
    const experiment = await seed(db);
    const power = createPowerService({ db });
    const ask = () => power.forExperiment(experiment, { metric: "ctr", effect: EFFECT, seed: 1 });
    const answer = await ask(); // warm
    const ms: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      const t = performance.now();
      await ask();
      ms.push(performance.now() - t);
    }
    const sizes = answer.simulated.map((s) => s.participants_per_arm);
    const rows = (await db("evaluation_counts")
      .where({ experiment_id: experiment })
      .select("impressions", "feed_clicks")) as { impressions: number; feed_clicks: number }[];
    const xs = Float64Array.from(rows, (r) => Number(r.impressions));
    const ys = Float64Array.from(rows, (r) => Number(r.feed_clicks));
    floor(xs, ys, sizes, EFFECT); // warm
    const floorMs: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      const t = performance.now();
      floor(xs, ys, sizes, EFFECT);
      floorMs.push(performance.now() - t);
    }
    const service = median(ms);
    const inline = median(floorMs);
    return {
      pilot: `${PER_ARM} participants per arm, effect ${EFFECT}`,
      answer: `per_arm_needed ${answer.per_arm_needed}, baseline ${answer.baseline.toFixed(4)}, icc ${answer.icc.toFixed(4)}, power_now ${answer.power_now}`,
      "sizes simulated (1,000 studies each)": sizes.join(", "),
      [`power service, resampling (median of ${REPEATS})`]: `${service.toFixed(0)} ms`,
      [`floor: the same simulations inline (median of ${REPEATS})`]: `${inline.toFixed(0)} ms`,
      "service / floor": (service / inline).toFixed(2),
      "goal: under 2 s": service < 2000 ? "met" : "NOT met",
    };
  } finally {
    await close();
    rmSync(dir, { recursive: true, force: true });
  }
}
