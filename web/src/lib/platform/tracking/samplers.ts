import type { Payloads } from "@feedlab/schemas";

/** Spec, Limits: mouse positions are sampled every 100 ms and sent in 2 s windows. */
const MOUSE_SAMPLE_MS = 100;
const MOUSE_WINDOW_MS = 2000;
/** Spec, Limits: scroll reports are throttled to one per 500 ms. */
const SCROLL_THROTTLE_MS = 500;
/** Spec, Limits: the visible items are reported every 3 s. */
const VIEWPORT_INTERVAL_MS = 3000;
/** Spec, Limits: a card counts as an impression once at least half of it is visible, once per mount. */
const IMPRESSION_RATIO = 0.5;

/** One mouse sample: viewport coordinates (CSS px) and ms since the window started. */
export interface MouseSample {
  readonly x: number;
  readonly y: number;
  readonly t: number;
}

/**
 * MOUSE_MOVEMENT: while the mouse moves, its latest position is sampled every 100 ms (a sample only
 * when it moved since the previous one; samples are never closer than 100 ms), and each 2 s window
 * with samples becomes one event. The timers run only while the mouse moves: an idle window stops them
 * until the next move.
 */
export class MouseSampler {
  readonly #emit: (payload: Payloads["MOUSE_MOVEMENT"]) => void;
  readonly #context: string;
  readonly #now: () => number;
  #latest: { x: number; y: number } | null = null;
  #moved = false;
  #samples: MouseSample[] = [];
  #windowStart = 0;
  #lastSampleAt = Number.NEGATIVE_INFINITY;
  #sampleTimer: ReturnType<typeof setTimeout> | null = null;
  #windowTimer: ReturnType<typeof setInterval> | null = null;

  constructor(options: {
    emit: (payload: Payloads["MOUSE_MOVEMENT"]) => void;
    context: string;
    now?: () => number;
  }) {
    this.#emit = options.emit;
    this.#context = options.context;
    this.#now = options.now ?? Date.now;
  }

  /** A `mousemove` at viewport coordinates. */
  move(x: number, y: number): void {
    this.#latest = { x: Math.round(x), y: Math.round(y) };
    this.#moved = true;
    if (this.#windowTimer === null) {
      this.#windowStart = this.#now();
      this.#windowTimer = setInterval(() => this.#closeWindow(), MOUSE_WINDOW_MS);
      this.#scheduleSample();
    }
  }

  /** Sends the current window now (page exit). */
  flush(): void {
    if (this.#now() - this.#lastSampleAt >= MOUSE_SAMPLE_MS) this.#sample();
    this.#closeWindow(true);
  }

  stop(): void {
    if (this.#sampleTimer !== null) clearTimeout(this.#sampleTimer);
    if (this.#windowTimer !== null) clearInterval(this.#windowTimer);
    this.#sampleTimer = null;
    this.#windowTimer = null;
  }

  /** The next sample comes 100 ms after this one was taken, however late the timer fired. */
  #scheduleSample(): void {
    this.#sampleTimer = setTimeout(() => {
      this.#sample();
      if (this.#windowTimer !== null) this.#scheduleSample();
    }, MOUSE_SAMPLE_MS);
  }

  #sample(): void {
    if (!this.#moved || !this.#latest) return;
    this.#moved = false;
    const now = this.#now();
    this.#lastSampleAt = now;
    this.#samples.push({ ...this.#latest, t: now - this.#windowStart });
  }

  #closeWindow(final = false): void {
    const now = this.#now();
    // A sample due at the window's end belongs to this window.
    if (!final && now - this.#lastSampleAt >= MOUSE_SAMPLE_MS) this.#sample();
    if (this.#samples.length > 0) {
      this.#emit({
        positions: this.#samples,
        samplingIntervalMs: MOUSE_SAMPLE_MS,
        context: this.#context,
        duration: now - this.#windowStart,
      });
      this.#samples = [];
      this.#windowStart = now;
      if (!final) return;
    }
    // A window without movement (or the page is going): stop until the mouse moves again.
    this.stop();
  }
}

/** What the scroll tracker reads from the page. */
export interface ScrollMetrics {
  readonly scrollY: number;
  /** The document's full height (scrollHeight). */
  readonly pageHeight: number;
  /** The viewport's height (innerHeight). */
  readonly viewportHeight: number;
}

/**
 * SCROLL, throttled to 500 ms: the first scroll of a quiet period is reported at once, later ones at
 * most every 500 ms, and the position where scrolling stopped is always reported (trailing edge).
 * `scrollPercent` is how far down the scrollable range the viewport is (0 to 100), and
 * `maxScrollPercent` the deepest point reached on this page.
 */
export class ScrollTracker {
  readonly #emit: (payload: Payloads["SCROLL"]) => void;
  readonly #read: () => ScrollMetrics;
  readonly #now: () => number;
  #last = Number.NEGATIVE_INFINITY;
  #trailing: ReturnType<typeof setTimeout> | null = null;
  #max = 0;

  constructor(options: {
    emit: (payload: Payloads["SCROLL"]) => void;
    read: () => ScrollMetrics;
    now?: () => number;
  }) {
    this.#emit = options.emit;
    this.#read = options.read;
    this.#now = options.now ?? Date.now;
  }

  /** A `scroll` event. */
  scrolled(): void {
    const since = this.#now() - this.#last;
    if (since >= SCROLL_THROTTLE_MS && this.#trailing === null) {
      this.#report();
      return;
    }
    this.#trailing ??= setTimeout(
      () => {
        this.#trailing = null;
        this.#report();
      },
      Math.max(0, SCROLL_THROTTLE_MS - since),
    );
  }

  stop(): void {
    if (this.#trailing !== null) clearTimeout(this.#trailing);
    this.#trailing = null;
  }

  #report(): void {
    this.#last = this.#now();
    const m = this.#read();
    const range = m.pageHeight - m.viewportHeight;
    const percent = range > 0 ? Math.min(100, Math.max(0, (m.scrollY / range) * 100)) : 100;
    const rounded = Math.round(percent * 10) / 10;
    this.#max = Math.max(this.#max, rounded);
    this.#emit({
      scrollY: Math.round(m.scrollY),
      scrollPercent: rounded,
      maxScrollPercent: this.#max,
      pageHeight: Math.round(m.pageHeight),
    });
  }
}

/** A card the viewport tracker follows. */
export interface TrackedItem {
  /** External video id. */
  readonly videoId: string;
  readonly position: number;
}

interface ItemState extends TrackedItem {
  ratio: number;
  /** The largest ratio of the current visit (what an exited card reports). */
  maxRatio: number;
  enterTime: number | null;
  impressed: boolean;
  onImpression: () => void;
}

type VisibleItem = Payloads["VIEWPORT_VISIBILITY"]["visibleItems"][number];

/**
 * VIEWPORT_VISIBILITY and the impression threshold, fed by an IntersectionObserver: `update()` gets
 * each card's visible ratio. Every 3 s (while the page is visible) it reports the cards on screen with
 * their ratio and when they came into view, plus the cards that left since the last report (with
 * `exitTime`); times are client epoch ms. A report with nothing to say is skipped. A card reaching
 * 50 % visible calls its `onImpression` once for as long as it stays registered (once per mount).
 */
export class ViewportTracker {
  readonly #emit: (payload: Payloads["VIEWPORT_VISIBILITY"]) => void;
  readonly #context: string;
  readonly #now: () => number;
  readonly #active: () => boolean;
  readonly #items = new Map<object, ItemState>();
  #exited: VisibleItem[] = [];
  #timer: ReturnType<typeof setInterval> | null = null;

  constructor(options: {
    emit: (payload: Payloads["VIEWPORT_VISIBILITY"]) => void;
    context: string;
    now?: () => number;
    /** False while the page is hidden: nothing is on screen then. */
    isActive?: () => boolean;
  }) {
    this.#emit = options.emit;
    this.#context = options.context;
    this.#now = options.now ?? Date.now;
    this.#active = options.isActive ?? (() => true);
  }

  start(): void {
    this.#timer ??= setInterval(() => this.report(), VIEWPORT_INTERVAL_MS);
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Follows a card (keyed by its element); `onImpression` fires at most once while it is followed. */
  add(key: object, item: TrackedItem, onImpression: () => void): void {
    this.#items.set(key, {
      ...item,
      ratio: 0,
      maxRatio: 0,
      enterTime: null,
      impressed: false,
      onImpression,
    });
  }

  /** Stops following a card (unmounted); if it was on screen it is reported as having left. */
  remove(key: object): void {
    const state = this.#items.get(key);
    if (!state) return;
    if (state.enterTime !== null) this.#exited.push(this.#snapshot(state, this.#now(), state.maxRatio));
    this.#items.delete(key);
  }

  /** The card's visible ratio changed (0 to 1). */
  update(key: object, ratio: number): void {
    const state = this.#items.get(key);
    if (!state) return;
    const now = this.#now();
    if (ratio > 0 && state.enterTime === null) {
      state.enterTime = now;
      state.maxRatio = 0;
    }
    if (ratio <= 0 && state.enterTime !== null) {
      this.#exited.push(this.#snapshot(state, now, state.maxRatio));
      state.enterTime = null;
    }
    state.ratio = ratio;
    state.maxRatio = Math.max(state.maxRatio, ratio);
    if (ratio >= IMPRESSION_RATIO && !state.impressed) {
      state.impressed = true;
      state.onImpression();
    }
  }

  /** Emits one report now if there is anything to report. */
  report(): void {
    if (!this.#active()) return;
    const visible = [...this.#items.values()]
      .filter((s) => s.enterTime !== null && s.ratio > 0)
      .sort((a, b) => a.position - b.position)
      .map((s) => this.#snapshot(s, null, s.ratio));
    const items = [...this.#exited, ...visible];
    this.#exited = [];
    if (items.length === 0) return;
    this.#emit({ visibleItems: items, context: this.#context });
  }

  #snapshot(s: ItemState, exitTime: number | null, ratio: number): VisibleItem {
    return {
      videoId: s.videoId,
      position: s.position,
      visibilityRatio: Math.round(ratio * 100) / 100,
      enterTime: s.enterTime ?? this.#now(),
      ...(exitTime === null ? {} : { exitTime }),
    };
  }
}
