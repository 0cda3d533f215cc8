/** What the preview's choice of experiment needs to know of one. */
export interface PreviewCandidate {
  readonly id: string;
  readonly updated_at: string;
}

/**
 * The experiment an editor's preview starts on: the most recently changed one whose pool has videos
 * (a new, empty experiment would preview "no videos"), else the most recently changed one; null when
 * there is none. `poolSizes` holds the pools known (a pool not known counts as empty).
 */
export function defaultPreviewExperiment<T extends PreviewCandidate>(
  experiments: readonly T[],
  poolSizes: ReadonlyMap<string, number>,
): T | null {
  const recent = [...experiments].sort((a, b) => b.updated_at.localeCompare(a.updated_at));
  return recent.find((e) => (poolSizes.get(e.id) ?? 0) > 0) ?? recent[0] ?? null;
}
