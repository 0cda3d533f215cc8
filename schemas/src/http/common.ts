import { type SchemaOptions, type Static, type TSchema, Type } from "@sinclair/typebox";

/** UUID string. */
export const Uuid = Type.String({ format: "uuid", description: "UUID" });
/** ISO 8601 UTC timestamp. */
export const Timestamp = Type.String({ format: "date-time", description: "ISO 8601 UTC timestamp" });
export type Timestamp = Static<typeof Timestamp>;

export const Nullable = <T extends TSchema>(schema: T, options?: SchemaOptions) =>
  Type.Union([schema, Type.Null()], options);

/** api.md error body: `{"error": {"code", "message", "details"}}`. */
export const ErrorBody = Type.Object({
  error: Type.Object({
    code: Type.String({ description: "Stable snake_case code" }),
    message: Type.String({ description: "Human sentence" }),
    details: Type.Optional(Type.Unknown()),
    request_id: Type.Optional(Type.String()),
  }),
});

export type ErrorBody = Static<typeof ErrorBody>;

export const IdParams = Type.Object({ id: Uuid });
