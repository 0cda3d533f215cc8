// The time accounting of participant quality (docs/quality.md, "Time"): pure, no imports, so that
// the fold is tested on hand-checkable events and reads the same live and in a replay.

/**
 * The longest interval between two consecutive events of a session that counts in full towards
 * active and watch time: a tab left open without any event (an abandoned page, a participant who
 * walked away) counts this long at most. The player reports VIDEO_PROGRESS every 5 s and the pages
 * report mouse, scroll and viewport telemetry, so a participant at work leaves no longer gaps.
 * Hidden time is not capped: a hidden tab sends next to nothing, and that silence is what it measures.
 */
export const IDLE_CAP_MS = 30_000;

/** What the accounting reads of an event. */
export interface TimedEvent {
  readonly event_id: string;
  readonly event_type: string;
  /** Client time, ms since the epoch. */
  readonly at: number;
  readonly seq: number | null;
  /** VISIBILITY_CHANGE's `visible` (other types: null). */
  readonly visible: boolean | null;
}

/** The order of a session's events: by `seq` (events without one first), then client time, then id. */
export function compareEvents(
  a: Pick<TimedEvent, "seq" | "at" | "event_id">,
  b: Pick<TimedEvent, "seq" | "at" | "event_id">,
): number {
  const sa = a.seq ?? -1;
  const sb = b.seq ?? -1;
  if (sa !== sb) return sa - sb;
  if (a.at !== b.at) return a.at - b.at;
  return a.event_id < b.event_id ? -1 : a.event_id > b.event_id ? 1 : 0;
}

/** A session's accounting after the events folded so far. */
export interface Fold {
  /** The last event folded (in `compareEvents` order), null before any. */
  readonly last: Pick<TimedEvent, "seq" | "at" | "event_id"> | null;
  /** A page of the session is open (between a page load and its exit). */
  readonly open: boolean;
  readonly visible: boolean;
  readonly focused: boolean;
  /** A video is playing (between VIDEO_PLAY or VIDEO_PROGRESS and a pause, an end or a page exit). */
  readonly playing: boolean;
  readonly active_ms: number;
  readonly hidden_ms: number;
  readonly watch_ms: number;
  readonly visible_watch_ms: number;
}

/**
 * Before its first event a session is taken as an open page, visible and focused: the runtime
 * reports changes of the tab's state, never its state at load.
 */
export const EMPTY_FOLD: Fold = {
  last: null,
  open: true,
  visible: true,
  focused: true,
  playing: false,
  active_ms: 0,
  hidden_ms: 0,
  watch_ms: 0,
  visible_watch_ms: 0,
};

/** The state after an event, from the state before it. */
function after(s: Fold, e: TimedEvent): Pick<Fold, "open" | "visible" | "focused" | "playing"> {
  const { open, visible, focused, playing } = s;
  switch (e.event_type) {
    case "SESSION_START":
    case "PAGE_LOAD":
      return { open: true, visible: true, focused: true, playing: false };
    case "PAGE_EXIT":
    case "SESSION_END":
      return { open: false, visible, focused, playing: false };
    case "VISIBILITY_CHANGE":
      return { open, visible: e.visible ?? visible, focused, playing };
    case "WINDOW_FOCUS":
      return { open, visible, focused: true, playing };
    case "WINDOW_BLUR":
      return { open, visible, focused: false, playing };
    case "VIDEO_PLAY":
    case "VIDEO_PROGRESS":
      return { open, visible, focused, playing: true };
    case "VIDEO_PAUSE":
    case "VIDEO_ENDED":
      return { open, visible, focused, playing: false };
    default:
      return { open, visible, focused, playing };
  }
}

/** One event folded into the state before it (see foldEvents). */
function step(f: Fold, e: TimedEvent): Fold {
  let { active_ms, hidden_ms, watch_ms, visible_watch_ms } = f;
  if (f.last !== null && f.open) {
    const dt = Math.max(0, e.at - f.last.at);
    const capped = Math.min(dt, IDLE_CAP_MS);
    if (!f.visible) hidden_ms += dt;
    if (f.visible && f.focused) active_ms += capped;
    if (f.playing) {
      watch_ms += capped;
      if (f.visible) visible_watch_ms += capped;
    }
  }
  return {
    ...after(f, e),
    last: { seq: e.seq, at: e.at, event_id: e.event_id },
    active_ms,
    hidden_ms,
    watch_ms,
    visible_watch_ms,
  };
}

/**
 * Folds events, in `compareEvents` order and all after `s.last`, into a session's accounting. The
 * interval from one event to the next counts by the state after the earlier one:
 * 1. open and hidden: hidden time, in full;
 * 2. open, visible and focused: active time, up to IDLE_CAP_MS;
 * 3. open and playing: watch time, up to IDLE_CAP_MS, and visible watch time when visible too.
 * A negative interval (a client clock set back) counts 0.
 */
export function foldEvents(s: Fold, events: readonly TimedEvent[]): Fold {
  let f = s;
  for (const e of events) f = step(f, e);
  return f;
}

/**
 * How often a session's state is kept: a batch whose events come before the last event folded (the
 * tracker's buffers flush on their own clocks, so a normal batch often holds events older than the
 * high-frequency batch before it) is folded again from the last kept state before it, reading the
 * events after that state, not the whole session.
 */
export const CHECKPOINT_EVERY = 100;

/**
 * How many states a timeline keeps: the tracker's normal buffer flushes at 20 events or 5 s after its
 * first, and the telemetry sends batches of 50 meanwhile, so a late batch starts some hundreds of
 * events back (the catch-up benchmark's tracker order: 500); one from further back folds from the start.
 */
export const CHECKPOINTS_KEPT = 10;

/** The state after the first `n` events of a session, in `compareEvents` order. */
export interface Checkpoint {
  readonly n: number;
  readonly fold: Fold;
}

/** The state before any event: always known. */
const START: Checkpoint = { n: 0, fold: EMPTY_FOLD };

/**
 * Folds like `foldEvents`, from the state after `from.n` events, and answers the states passed at
 * multiples of CHECKPOINT_EVERY.
 */
export function foldKeeping(
  from: Checkpoint,
  events: readonly TimedEvent[],
): { fold: Fold; kept: Checkpoint[] } {
  let f = from.fold;
  const kept: Checkpoint[] = [];
  events.forEach((e, i) => {
    f = step(f, e);
    const n = from.n + i + 1;
    if (n % CHECKPOINT_EVERY === 0) kept.push({ n, fold: f });
  });
  return { fold: f, kept };
}

/**
 * The states a timeline keeps once `folded` events are folded: those after the CHECKPOINTS_KEPT largest
 * multiples of CHECKPOINT_EVERY up to `folded` (the start is always known and not kept), from `known`
 * (later entries of the same `n` win). Which states are kept depends only on the events folded, so a replay
 * keeps the same ones as the live run.
 */
export function checkpointsAt(folded: number, known: readonly Checkpoint[]): Checkpoint[] {
  const byN = new Map(known.map((c) => [c.n, c]));
  const newest = Math.floor(folded / CHECKPOINT_EVERY) * CHECKPOINT_EVERY;
  return Array.from(
    { length: CHECKPOINTS_KEPT },
    (_, i) => newest - (CHECKPOINTS_KEPT - 1 - i) * CHECKPOINT_EVERY,
  )
    .filter((n) => n > 0)
    .map((n) => byN.get(n))
    .filter((c): c is Checkpoint => c !== undefined);
}

/** The latest state, of `kept` or the start, that comes before `e`: where a fold including `e` begins. */
export function checkpointBefore(
  kept: readonly Checkpoint[],
  e: Pick<TimedEvent, "seq" | "at" | "event_id">,
): Checkpoint {
  let best = START;
  for (const c of kept)
    if (c.n > best.n && c.fold.last !== null && compareEvents(c.fold.last, e) < 0) best = c;
  return best;
}
