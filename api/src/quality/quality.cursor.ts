import { badRequest } from "../http/errors.ts";

/** A participant's place in join order: when they joined (µs since the epoch), then their id. */
export interface Place {
  readonly us: bigint;
  readonly id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The opaque `next_cursor`: the last participant's place, so a page starts after it whatever joined since. */
export const encodeCursor = (p: Place): string => Buffer.from(`${p.us}.${p.id}`).toString("base64url");

/** The place a cursor names; 400 `invalid_cursor` for one this server did not make. */
export function decodeCursor(cursor: string): Place {
  const [us, id] = Buffer.from(cursor, "base64url").toString().split(".");
  if (us === undefined || id === undefined || !/^-?\d{1,20}$/.test(us) || !UUID.test(id)) {
    throw badRequest("invalid_cursor", "cursor is not a next_cursor this server gave");
  }
  return { us: BigInt(us), id };
}
