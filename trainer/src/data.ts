import { type Csr, csrFromTriplets } from "./sparse.ts";

/**
 * Training interactions as parallel arrays, one entry per (participant, video) pair: indices into
 * `users` x `items`, the summed weight of the spec's events (VIDEO_WATCHED_1S 1.0, LIKE 3.0,
 * VIDEO_ENDED with watch_ratio above 0.5 2.0), and the time of the latest contributing event (ms).
 */
export interface Interactions {
  readonly users: number;
  readonly items: number;
  readonly user: Int32Array;
  readonly item: Int32Array;
  readonly weight: Float32Array;
  readonly time: Float64Array;
}

/** The participants x videos weight matrix of all interactions. */
export const weightMatrix = (data: Interactions): Csr =>
  csrFromTriplets(data.users, data.items, data.user, data.item, data.weight);
