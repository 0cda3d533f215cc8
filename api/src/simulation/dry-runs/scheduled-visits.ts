import type { Journey } from "../drive/journey.ts";

/**
 * At most `limit` holders at once; a waiter with a lower priority goes first (ties in order of asking).
 * Waiting for a schedule's window holds no place: only the visits themselves do.
 */
export class Slots {
  private free: number;
  private asked = 0;
  private readonly waiting: { priority: number; order: number; go: () => void }[] = [];

  constructor(limit: number) {
    this.free = Math.max(1, limit);
  }

  async take(priority: number): Promise<void> {
    if (this.free > 0) {
      this.free -= 1;
      return;
    }
    await new Promise<void>((go) => {
      this.waiting.push({ priority, order: this.asked++, go });
      this.waiting.sort((a, b) => a.priority - b.priority || a.order - b.order);
    });
  }

  give(): void {
    const next = this.waiting.shift();
    if (next) next.go();
    else this.free += 1;
  }

  async with<T>(priority: number, work: () => Promise<T>): Promise<T> {
    await this.take(priority);
    try {
      return await work();
    } finally {
      this.give();
    }
  }
}

export interface ScheduledHooks {
  /** Makes visit `n` of a journey (and counts it). */
  visit(journey: Journey, n: number): Promise<void>;
  /**
   * Called once every journey has made its visit `n` or stopped, for `n` below the last visit (a
   * learned arm trains then); calls never overlap, and visits go on meanwhile.
   */
  between?(n: number): Promise<void>;
}

/**
 * The journeys of a study with a schedule (api.md "Longitudinal studies (wave 4)"): each participant
 * goes at their own pace, waiting for each window (`awaitWindow`) without holding a place, then
 * making the visit in one of `concurrency` places; the visit whose window closes first goes first, so
 * a crowded run lets as few windows close as it can. Visits in lockstep (every participant's visit n
 * before anyone's n + 1) would make a participant wait for the slowest of the run, which a window of
 * seconds cannot.
 */
export async function runScheduled(
  journeys: readonly Journey[],
  concurrency: number,
  hooks: ScheduledHooks,
): Promise<void> {
  const slots = new Slots(concurrency);
  const most = Math.max(0, ...journeys.map((j) => j.sessions));
  /** Visits made per journey; one that stopped or made its last counts as past every visit. */
  const made = new Map<Journey, number>(journeys.map((j) => [j, 0]));
  const past = (j: Journey) => {
    const m = made.get(j) ?? 0;
    return !j.going || m >= j.sessions ? Number.POSITIVE_INFINITY : m;
  };
  let trained = 0;
  let training = Promise.resolve();
  const progressed = () => {
    const everyone = Math.min(most, ...journeys.map(past));
    if (hooks.between === undefined || everyone <= trained || everyone >= most) return;
    trained = everyone;
    const between = hooks.between;
    training = training.then(() => between(everyone));
  };

  await Promise.all(
    journeys.map(async (j) => {
      await slots.with(Number.POSITIVE_INFINITY, () => j.begin());
      for (let n = 1; n <= j.sessions && j.going; n++) {
        const closesAt = n === 1 ? null : await j.awaitWindow(n);
        if (!j.going) break;
        await slots.with(closesAt ?? Number.POSITIVE_INFINITY, () => hooks.visit(j, n));
        made.set(j, n);
        progressed();
      }
      progressed();
    }),
  );
  await training;
  await Promise.all(journeys.map((j) => slots.with(Number.POSITIVE_INFINITY, () => j.end())));
}
