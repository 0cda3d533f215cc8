// Whether anything on the page is playing, and a way to stop it. Every player reports here (the native
// one and the YouTube and Vimeo adapters, so every `VideoSurface` player, whichever layout renders it),
// and the survey gate reads it: spec, "Surveys never appear during playback". Framework-free, because
// the players are Preact components and the gate is a Svelte one; one instance per document.

/** A player's line to the playback state, from `playbackState.register`. */
export interface PlayerHandle {
  /**
   * The player's state now: playing (buffering counts: the participant is watching) or not (paused,
   * ended, not started). Repeating a state is fine: polled players report on every poll.
   */
  report(playing: boolean): void;
  /** The player is gone (unmounted): it no longer counts. */
  release(): void;
}

interface Entry {
  playing: boolean;
  readonly pause: () => void;
}

export class PlaybackState {
  readonly #entries = new Set<Entry>();
  readonly #listeners = new Set<(playing: boolean) => void>();
  #holds = 0;

  /** True while any registered player plays. */
  get playing(): boolean {
    for (const entry of this.#entries) if (entry.playing) return true;
    return false;
  }

  /**
   * Adds a player. `pause` stops it (asynchronously is fine: the player reports when it has stopped);
   * the player starts as not playing until it reports otherwise.
   */
  register(pause: () => void): PlayerHandle {
    const entry: Entry = { playing: false, pause };
    this.#entries.add(entry);
    return {
      report: (playing) => {
        if (this.#entries.has(entry)) this.#report(entry, playing);
      },
      release: () => {
        const before = this.playing;
        this.#entries.delete(entry);
        this.#changed(before);
      },
    };
  }

  /** Calls `listener` each time `playing` changes; returns the function that stops it. */
  subscribe(listener: (playing: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Holds playback until the returned function is called (the survey gate, while a survey is open):
   * players playing now are paused, and a player that starts meanwhile is paused at once and does not
   * count as playing. Holds nest; releasing one twice releases it once.
   */
  hold(): () => void {
    this.#holds += 1;
    const before = this.playing;
    for (const entry of this.#entries) {
      if (!entry.playing) continue;
      entry.playing = false;
      pauseQuietly(entry);
    }
    this.#changed(before);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#holds -= 1;
    };
  }

  #report(entry: Entry, playing: boolean): void {
    if (playing && this.#holds > 0) {
      // Paused before anything reads it as playing: a gate holding for an open survey stays open.
      pauseQuietly(entry);
      playing = false;
    }
    if (entry.playing === playing) return;
    const before = this.playing;
    entry.playing = playing;
    this.#changed(before);
  }

  #changed(before: boolean): void {
    const now = this.playing;
    if (now === before) return;
    for (const listener of [...this.#listeners]) listener(now);
  }
}

/** A provider's player may already be gone with its iframe: nothing is left to pause then. */
function pauseQuietly(entry: Entry): void {
  try {
    entry.pause();
  } catch (error) {
    console.error("feedlab: pausing a player failed", error);
  }
}

/** The document's playback state: the players report to it, the survey gate reads and holds it. */
export const playbackState = new PlaybackState();
