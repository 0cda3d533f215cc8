import type { Group } from "../../types.ts";

/**
 * The confirmation step before changing what a running arm's participants see (its algorithm or UI):
 * the first save explains, the second goes ahead. The server records the change either way.
 */
export class RunningChange {
  /** The researcher was told and may now save again to go ahead. */
  asked = $state(false);

  reset(): void {
    this.asked = false;
  }

  /**
   * True when the save must stop to ask first: the experiment is running, the group has participants,
   * and the change alters what they see. (An arm nobody uses yet changes without asking; the server
   * records a change of a running arm either way.)
   */
  mustAsk(
    running: boolean,
    group: Pick<Group, "participant_count" | "algorithm_config" | "ui_config"> | null,
    next: Partial<Pick<Group, "algorithm_config" | "ui_config">>,
  ): boolean {
    if (!running || !group || group.participant_count === 0 || this.asked) return false;
    const differs = (a: { feed: string; watch: string } | undefined, b: { feed: string; watch: string }) =>
      a !== undefined && (a.feed !== b.feed || a.watch !== b.watch);
    if (!differs(next.algorithm_config, group.algorithm_config) && !differs(next.ui_config, group.ui_config))
      return false;
    this.asked = true;
    return true;
  }
}
