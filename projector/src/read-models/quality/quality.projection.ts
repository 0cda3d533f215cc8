import type { LoggedEvent } from "@feedlab/schemas";
import type { Knex } from "knex";
import type { RowOp } from "../../ops.ts";
import type { Projection } from "../../read-model.ts";
import { sessionEventsForFold } from "../events/events.queries.ts";
import { eraseQuality } from "./quality.erase.ts";
import {
  type Checkpoint,
  checkpointBefore,
  checkpointsAt,
  compareEvents,
  EMPTY_FOLD,
  type Fold,
  foldKeeping,
  type TimedEvent,
} from "./quality.fold.ts";
import { qualityMigrations } from "./quality.migration.ts";

/** SESSION_START's `environment.viewport.width`, when it is a number. */
function viewportWidth(e: LoggedEvent): number | null {
  if (e.event_type !== "SESSION_START") return null;
  const env = e.payload.environment as { viewport?: { width?: unknown } } | undefined;
  const w = env?.viewport?.width;
  return typeof w === "number" && Number.isFinite(w) && w >= 0 ? Math.min(Math.round(w), 1e6) : null;
}

const timed = (e: LoggedEvent): TimedEvent => ({
  event_id: e.event_id,
  event_type: e.event_type,
  at: Date.parse(e.timestamp),
  seq: e.seq,
  visible: e.event_type === "VISIBILITY_CHANGE" ? visibleOf(e.payload) : null,
});

function visibleOf(payload: Readonly<Record<string, unknown>>): boolean | null {
  if (typeof payload.visible === "boolean") return payload.visible;
  if (typeof payload.visibilityState === "string") return payload.visibilityState === "visible";
  return null;
}

/** A stored timeline row, as the database answers it. */
interface TimelineRow {
  session_id: string;
  folded: number | string;
  last_seq: number | string | null;
  last_at_ms: number | string;
  last_event_id: string;
  open: boolean;
  visible: boolean;
  focused: boolean;
  playing: boolean;
  active_ms: number | string;
  hidden_ms: number | string;
  watch_ms: number | string;
  visible_watch_ms: number | string;
  first_ms: number | string | null;
  end_ms: number | string | null;
  /** The kept states (quality.fold.ts `checkpointsAt`), as jsonb gives them (null before migration 003). */
  checkpoints: StoredCheckpoint[] | string | null;
}

/** The client times a timeline has folded, earliest and latest (null before its first event). */
interface Span {
  readonly first: number;
  readonly end: number;
}

const spanOf = (r: TimelineRow | undefined): Span | null =>
  r === undefined || r.first_ms === null || r.end_ms === null
    ? null
    : { first: Number(r.first_ms), end: Number(r.end_ms) };

/** A span widened to the events' times. */
function widen(span: Span | null, events: readonly TimedEvent[]): Span | null {
  let out = span;
  for (const { at } of events) {
    if (!Number.isFinite(at)) continue;
    out =
      out === null ? { first: at, end: at } : { first: Math.min(out.first, at), end: Math.max(out.end, at) };
  }
  return out;
}

const visitMs = (span: Span | null) => (span === null ? 0 : span.end - span.first);

const foldOf = (r: TimelineRow): Fold => ({
  last: {
    seq: r.last_seq === null ? null : Number(r.last_seq),
    at: Number(r.last_at_ms),
    event_id: r.last_event_id,
  },
  open: r.open,
  visible: r.visible,
  focused: r.focused,
  playing: r.playing,
  active_ms: Number(r.active_ms),
  hidden_ms: Number(r.hidden_ms),
  watch_ms: Number(r.watch_ms),
  visible_watch_ms: Number(r.visible_watch_ms),
});

/** A kept state's flags and sums, in the order a stored checkpoint lists them. */
const STATE = [
  "open",
  "visible",
  "focused",
  "playing",
  "active_ms",
  "hidden_ms",
  "watch_ms",
  "visible_watch_ms",
] as const;

/**
 * A kept state as stored: `[n, seq, at, event_id, ...STATE]`, a tenth the size of the object (the row
 * is written each batch).
 */
type StoredCheckpoint = [number, number | null, number, string, ...(boolean | number)[]];

const storedCheckpoint = ({ n, fold: f }: Checkpoint): StoredCheckpoint => [
  n,
  f.last?.seq ?? null,
  f.last?.at ?? 0,
  f.last?.event_id ?? "",
  ...STATE.map((k) => f[k]),
];

const checkpointsOf = (r: TimelineRow | undefined): Checkpoint[] => {
  const c = r?.checkpoints ?? null;
  if (c === null) return [];
  return ((typeof c === "string" ? JSON.parse(c) : c) as StoredCheckpoint[]).map(
    ([n, seq, at, event_id, ...state]) => ({
      n,
      fold: {
        last: { seq, at, event_id },
        ...Object.fromEntries(STATE.map((k, i) => [k, state[i]])),
      } as Fold,
    }),
  );
};

/**
 * Of each session, the events the events store holds after a kept state, in `compareEvents` order (all
 * of them after the start): what a fold from that state reads. One statement for all the sessions.
 */
async function sessionEventsAfter(
  sql: Knex.Transaction,
  from: ReadonlyMap<string, { userId: string; checkpoint: Checkpoint }>,
): Promise<Map<string, TimedEvent[]>> {
  const placeOf = ({ fold: { last } }: Checkpoint) =>
    last === null || !Number.isFinite(last.at) ? null : { seq: last.seq ?? -1, at: new Date(last.at) };
  const rows = await sessionEventsForFold(
    sql,
    [...from].map(([sessionId, { userId, checkpoint }]) => ({
      sessionId,
      userId,
      after: placeOf(checkpoint),
    })),
  );
  const out = new Map<string, TimedEvent[]>([...from.keys()].map((id) => [id, []]));
  for (const r of rows) {
    const visible = r.visible === null ? null : r.visible === true || r.visible === "true";
    out.get(r.session_id)?.push({
      event_id: r.event_id,
      event_type: r.event_type,
      at: new Date(r.timestamp).getTime(),
      seq: r.seq === null ? null : Number(r.seq),
      visible:
        r.event_type !== "VISIBILITY_CHANGE"
          ? null
          : (visible ?? (r.visibility_state === null ? null : r.visibility_state === "visible")),
    });
  }
  for (const [id, events] of out) {
    const last = from.get(id)?.checkpoint.fold.last ?? null;
    out.set(
      id,
      (last === null ? events : events.filter((e) => compareEvents(last, e) < 0)).sort(compareEvents),
    );
  }
  return out;
}

/** The timeline row of a session after a fold of `folded` events over `span`. */
function timelineOp(
  e: LoggedEvent,
  f: Fold,
  folded: number,
  span: Span | null,
  checkpoints: readonly Checkpoint[],
): RowOp {
  const last = f.last ?? { seq: null, at: 0, event_id: e.event_id };
  return {
    kind: "insert",
    table: "quality_timelines",
    key: ["session_id"],
    least: ["rank"],
    row: {
      session_id: e.session_id,
      user_id: e.user_id,
      experiment_id: e.experiment_id,
      rank: -folded,
      folded,
      last_seq: last.seq,
      last_at_ms: last.at,
      last_event_id: last.event_id,
      open: f.open,
      visible: f.visible,
      focused: f.focused,
      playing: f.playing,
      active_ms: f.active_ms,
      hidden_ms: f.hidden_ms,
      watch_ms: f.watch_ms,
      visible_watch_ms: f.visible_watch_ms,
      first_ms: span?.first ?? null,
      end_ms: span?.end ?? null,
      checkpoints: { json: JSON.stringify(checkpoints.map(storedCheckpoint)) },
    },
  };
}

/**
 * What a session's new timeline adds to its participant's sums: the difference from the stored
 * timeline (the new one always replaces it: it folded more events, and the participant's batches
 * settle one at a time), and the fresh events' pointer events and viewport.
 */
function participantOp(
  fresh: readonly LoggedEvent[],
  before: { fold: Fold; folded: number; span: Span | null },
  after: { fold: Fold; folded: number; span: Span | null },
): RowOp {
  const first = fresh[0] as LoggedEvent;
  let width: number | null = null;
  for (const e of fresh) {
    const w = viewportWidth(e);
    if (w !== null && (width === null || w > width)) width = w;
  }
  return {
    kind: "accumulate",
    table: "quality_participants",
    key: { user_id: first.user_id },
    init: { experiment_id: first.experiment_id },
    add: {
      events: after.folded - before.folded,
      pointer_events: fresh.filter((e) => e.event_type === "MOUSE_MOVEMENT").length,
      visit_ms: visitMs(after.span) - visitMs(before.span),
      active_ms: after.fold.active_ms - before.fold.active_ms,
      hidden_ms: after.fold.hidden_ms - before.fold.hidden_ms,
      watch_ms: after.fold.watch_ms - before.fold.watch_ms,
      visible_watch_ms: after.fold.visible_watch_ms - before.fold.visible_watch_ms,
    },
    ...(width === null ? {} : { max: { viewport_width: width } }),
  };
}

/**
 * A session's state after folding `events` from `start` (its stored state, or a kept one before a late
 * event): the fold, how many events it holds, `span`, and the checkpoints kept up to `start` and on the way.
 */
function foldFrom(start: Checkpoint, events: TimedEvent[], span: Span | null, kept: Checkpoint[]) {
  const folded = foldKeeping(start, events);
  const count = start.n + events.length;
  return {
    fold: folded.fold,
    folded: count,
    span,
    checkpoints: checkpointsAt(count, [...kept.filter((c) => c.n <= start.n), ...folded.kept]),
  };
}

/**
 * Participant quality (api.md "Data quality and validity", docs/quality.md), per session:
 * - `project` sums what does not depend on order: events, MOUSE_MOVEMENT events, the widest
 *   SESSION_START viewport, the first and last client time (the visit);
 * - `settle` folds the batch's events of each session into its time accounting (quality.fold.ts):
 *   from the stored state when they all come after the last event folded (the usual case, batches
 *   arrive in order), otherwise (an unload beacon that arrived late) from the start, over the
 *   session's events in the events store. The row that folded more events wins, so a replay and a
 *   live run agree whatever the batches were. The difference the new timeline makes, with the batch's
 *   pointer events and viewports, is added to the participant's sums (`quality_participants`).
 * Simulated participants' events count here like any: the queries leave them out unless asked.
 */
export const qualityProjection: Projection = {
  name: "quality",
  // The fold reads the time of every event (a gap between any two bounds active time).
  canHandle: "all",
  tables: ["quality_sessions", "quality_timelines", "quality_participants"],
  migrations: qualityMigrations,
  erase: eraseQuality,
  project: (e) => {
    const width = viewportWidth(e);
    return [
      {
        kind: "accumulate",
        table: "quality_sessions",
        key: { session_id: e.session_id },
        init: { user_id: e.user_id, experiment_id: e.experiment_id },
        add: { events: 1, pointer_events: e.event_type === "MOUSE_MOVEMENT" ? 1 : 0 },
        min: { first_at: e.timestamp },
        max: { last_at: e.timestamp, ...(width === null ? {} : { viewport_width: width }) },
      },
    ];
  },
  async settle({ sql, events }) {
    const bySession = Map.groupBy(events, (e) => e.session_id);
    if (bySession.size === 0) return [];
    const stored = new Map(
      (
        (await sql("quality_timelines")
          .whereIn("session_id", [...bySession.keys()])
          .select(
            "session_id",
            "folded",
            "last_seq",
            "last_at_ms",
            "last_event_id",
            ...STATE,
            "first_ms",
            "end_ms",
            "checkpoints",
          )) as TimelineRow[]
      ).map((r) => [r.session_id, r]),
    );
    // What each session's fold starts from: its stored state when the batch's events all come after
    // it, else the last kept state before the batch's first event (the start when none is: a timeline
    // stored before migration 003, or a very late event), whose events after it are read again.
    const sessions = [...bySession].map(([sessionId, list]) => {
      const fresh = list.map(timed).sort(compareEvents);
      const row = stored.get(sessionId);
      const before = {
        fold: row ? foldOf(row) : EMPTY_FOLD,
        folded: Number(row?.folded ?? 0),
        span: spanOf(row),
      };
      const head = fresh[0] as TimedEvent;
      const last = before.fold.last;
      const kept = checkpointsOf(row);
      const inOrder = last === null || compareEvents(last, head) < 0;
      return { sessionId, list, fresh, before, kept, from: inOrder ? null : checkpointBefore(kept, head) };
    });
    const refold = new Map(
      sessions.flatMap(({ sessionId, list, from }) =>
        from === null ? [] : [[sessionId, { userId: (list[0] as LoggedEvent).user_id, checkpoint: from }]],
      ),
    );
    const tails = refold.size === 0 ? new Map<string, TimedEvent[]>() : await sessionEventsAfter(sql, refold);
    const ops: RowOp[] = [];
    for (const { sessionId, list, fresh, before, kept, from } of sessions) {
      const tail = from === null ? fresh : (tails.get(sessionId) ?? []);
      const start = from ?? { n: before.folded, fold: before.fold };
      const span = from?.n === 0 ? widen(null, tail) : widen(before.span, fresh);
      const after = foldFrom(start, tail, span, kept);
      ops.push(
        timelineOp(list[0] as LoggedEvent, after.fold, after.folded, after.span, after.checkpoints),
        participantOp(list, before, after),
      );
    }
    return ops;
  },
};
