// What `feedlab simulate` and its generator process say to each other (issue 36, load mode). The
// generator runs in a process of its own (generator.worker.ts) so that the CLI's bookkeeping, printing
// and garbage collection never delay a request it times; they talk over the fork's IPC channel.
import type { Video } from "@feedlab/schemas";

/** What the generator is asked to do, sent once when it starts. */
export interface LoadPlan {
  /** The deployment's origin, `http://host:port` (no trailing slash). */
  readonly url: string;
  readonly experimentId: string;
  readonly participants: number;
  /** Seconds the participants browse, from the first one's start. */
  readonly durationS: number;
  /** Seeds the behaviour models: participant n gets `seed + n`. */
  readonly seed: number;
  /** Short id of this run, in every login id (`load-<runId>-<n>`). */
  readonly runId: string;
  /** The experiment's pool, over which each participant's taste is drawn. */
  readonly pool: readonly Pick<Video, "category" | "tags">[];
  /** Longest wait for any one answer; then the request counts as a network error. */
  readonly timeoutMs: number;
  /** A feed request with `after=<position>` follows every n-th batch of a participant (the lag sample). */
  readonly lagEvery: number;
  /** Participants arrive evenly over this long (ms; default 5 s, or a quarter of a shorter run). */
  readonly arrivalMs?: number;
}

/** Counters of the run so far, as the progress line shows them. */
export interface LoadCounters {
  /** Seconds since the first participant started. */
  readonly elapsedS: number;
  readonly joined: number;
  readonly requests: number;
  readonly errors5xx: number;
  readonly errors429: number;
  /** Other 4xx answers: the generator was refused something it should not have been. */
  readonly errors4xx: number;
  /** Requests that got no answer: connection refused or reset, or no answer within the timeout. */
  readonly errorsNetwork: number;
  readonly batches: number;
  readonly eventsAcknowledged: number;
  readonly eventsRejected: number;
}

/** p50, p95 and p99 of one endpoint's latencies, in milliseconds, and how many requests they cover. */
export interface Percentiles {
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly count: number;
}

/** What the generator measured, sent once when every participant has stopped. */
export interface GeneratorResult {
  readonly counters: LoadCounters;
  /** Seconds from the first participant's start to the last one's stop. */
  readonly seconds: number;
  /** By endpoint (`GET /feed/{id}/related`), answered requests only. */
  readonly latency: Record<string, Percentiles>;
  /** From a batch's 202 to the answer of a feed request with `after=<its position>`, in ms. */
  readonly lag: {
    readonly p50: number | null;
    readonly p99: number | null;
    readonly samples: number;
    readonly timeouts: number;
  };
  /** A few of the failures, as `endpoint: status or error`, for the report. */
  readonly examples: readonly string[];
}

export type GeneratorMessage =
  | { readonly kind: "progress"; readonly counters: LoadCounters }
  /** Event ids answered 202 and not rejected since the last such message. */
  | { readonly kind: "acknowledged"; readonly ids: readonly string[] }
  /** A join answered 429: the run stops at once (the deployment limits joins per address). */
  | { readonly kind: "join_limited"; readonly joined: number; readonly retryAfter: string | null }
  | { readonly kind: "done"; readonly result: GeneratorResult };
