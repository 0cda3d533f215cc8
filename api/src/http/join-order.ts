import { badRequest } from "./errors.ts";

/** A participant's place in join order: when they joined (µs since the epoch), then their id. */
export interface Place {
  readonly us: bigint;
  readonly id: string;
}

/** The SQL that gives `Place.us` of the users table aliased `alias`, as text (a bigint). */
export const joinedUs = (alias: string) =>
  `(extract(epoch from ${alias}.created_at) * 1000000)::bigint::text as joined_us`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The opaque `next_cursor`: the last participant's place, so a page starts after it whatever joined since. */
const encodeCursor = (p: Place): string => Buffer.from(`${p.us}.${p.id}`).toString("base64url");

/** The place a cursor names; 400 `invalid_cursor` for one this server did not make. */
function decodeCursor(cursor: string): Place {
  const [us, id] = Buffer.from(cursor, "base64url").toString().split(".");
  if (us === undefined || id === undefined || !/^-?\d{1,20}$/.test(us) || !UUID.test(id)) {
    throw badRequest("invalid_cursor", "cursor is not a next_cursor this server gave");
  }
  return { us: BigInt(us), id };
}

const isAfter = (a: Place, b: Place) => a.us > b.us || (a.us === b.us && a.id > b.id);

/**
 * One page of `matching` (in join order, as the database sorts `created_at, id`), after the cursor's
 * place, for a list computed whole (api.md "Lists at study scale"): the page, its `next_cursor`, and
 * the `total` of every match.
 */
export function joinOrderPage<T>(
  matching: readonly T[],
  placeOf: (item: T) => Place,
  query: { readonly cursor?: string; readonly limit?: number },
): { page: T[]; next_cursor: string | null; total: number } {
  const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
  const limit = query.limit ?? 100;
  const rest = after === null ? matching : matching.filter((m) => isAfter(placeOf(m), after));
  const page = rest.slice(0, limit);
  const last = page.at(-1);
  return {
    page,
    next_cursor: rest.length > limit && last ? encodeCursor(placeOf(last)) : null,
    total: matching.length,
  };
}
