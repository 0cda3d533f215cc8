import { type IntegerOptions, type NumberOptions, Type } from "@sinclair/typebox";

/**
 * Numeric ranges of the HTTP contract. api.md, "Validity rules (wave 3)": every integer and number in
 * an operation's parameters and bodies declares `minimum` and `maximum` in the OpenAPI document, so
 * that a value the storage cannot hold is a 422 naming the field, never an overflow in the database
 * (a 500). A field takes the range of the column it is stored in, or a smaller one that makes sense.
 */

/** The largest value a PostgreSQL `integer` column holds. */
export const INT32_MAX = 2_147_483_647;

/**
 * The largest integer a JavaScript number holds exactly: the range of the `bigint` columns the API
 * reads back as numbers.
 */
export const SAFE_INTEGER_MAX = Number.MAX_SAFE_INTEGER;

/** An integer from `minimum` to `maximum`, both inclusive; both are required, so none is forgotten. */
export const IntegerIn = (minimum: number, maximum: number, options: IntegerOptions = {}) =>
  Type.Integer({ ...options, minimum, maximum });

/** A number from `minimum` to `maximum`, both inclusive; both are required, so none is forgotten. */
export const NumberIn = (minimum: number, maximum: number, options: NumberOptions = {}) =>
  Type.Number({ ...options, minimum, maximum });
