import type { Experiment, Video } from "#lib/types.ts";
import { api } from "../../api/client.ts";
import { videosApi } from "../../api/videos.ts";
import { defaultPreviewExperiment } from "./preview-choice.ts";

/** An experiment the preview can show, with the size of its pool (null until it is known). */
export interface PreviewChoice {
  readonly id: string;
  readonly name: string;
  readonly poolSize: number | null;
}

/**
 * The videos an editor's preview shows: the pool of one experiment, newest first as the recency feed
 * would rank them. It starts on the most recently changed experiment whose pool has videos (a new,
 * empty experiment would preview "no videos"), and the researcher may choose another. Create it while
 * a component initialises.
 */
export class PoolPreview {
  /** The experiment previewed; "" while the pools load, or when there is no experiment. */
  experimentId = $state("");
  /** False until the pools have loaded (or failed to). */
  loaded = $state(false);
  #experiments: readonly Experiment[] = [];
  #pools = $state.raw<ReadonlyMap<string, readonly string[]>>(new Map());
  #videos = $state.raw<ReadonlyMap<string, Video>>(new Map());

  constructor(experiments: readonly Experiment[]) {
    this.#experiments = [...experiments].sort((a, b) => b.updated_at.localeCompare(a.updated_at));
    void this.#load(this.#experiments);
  }

  /** The experiments, most recently changed first. */
  readonly choices: PreviewChoice[] = $derived(
    this.#experiments.map((e) => ({
      id: e.id,
      name: e.name,
      poolSize: this.#pools.get(e.id)?.length ?? null,
    })),
  );

  async #load(experiments: readonly Experiment[]): Promise<void> {
    try {
      const [all, ...pools] = await Promise.all([
        videosApi.list(api),
        ...experiments.map((e) => videosApi.pool(api, e.id).then((p) => [e.id, p.video_ids] as const)),
      ]);
      this.#videos = new Map(all.map((v) => [v.id, v]));
      this.#pools = new Map(pools);
    } catch (error) {
      console.error("the preview's pools could not be loaded", error);
    } finally {
      if (!this.experimentId) {
        const sizes = new Map([...this.#pools].map(([id, ids]) => [id, ids.length]));
        this.experimentId = defaultPreviewExperiment(experiments, sizes)?.id ?? "";
      }
      this.loaded = true;
    }
  }

  /** The chosen experiment's pool, newest first. */
  readonly videos: Video[] = $derived.by(() => {
    const ids = this.#pools.get(this.experimentId) ?? [];
    return ids
      .map((id) => this.#videos.get(id))
      .filter((v): v is Video => v !== undefined)
      .sort((a, b) => (b.published_at ?? "").localeCompare(a.published_at ?? ""));
  });

  /** The chosen experiment's name, for the preview's caption. */
  readonly experimentName: string = $derived(
    this.choices.find((c) => c.id === this.experimentId)?.name ?? "",
  );
}
