/**
 * The tracking core: framework-free TypeScript that every surface emits through. Nothing here imports
 * Preact or Svelte; the buffers, flush rules, sampling and playback accounting are unit-tested with
 * fake timers.
 */
export {
  type Leaving,
  type PageSignal,
  STARTED_KEY,
  TrackingCore,
  type TrackingCoreOptions,
} from "./core.ts";
export { describeEnvironment } from "./environment.ts";
export { type Batch, type BatchKind, Outbox, type OutgoingEvent } from "./outbox.ts";
export {
  type MediaState,
  type PlaybackEmit,
  PlaybackTracker,
  type PlaybackTrackerOptions,
  type PlayerSource,
} from "./playback.ts";
export {
  IMPRESSION_RATIO,
  MouseSampler,
  ScrollTracker,
  type TrackedItem,
  ViewportTracker,
} from "./samplers.ts";
export { type RegisterSession, SESSION_ID_KEY, SessionStore } from "./session.ts";
export { type KeyValueStore, memoryStore, webStore } from "./storage.ts";
export { type RowFields, SequenceStore, Tracker } from "./tracker.ts";
export { EVENTS_ENDPOINT, Transport, type TransportStats } from "./transport.ts";
