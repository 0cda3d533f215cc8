import { type Static, Type } from "@sinclair/typebox";

export const LoginBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);
export type LoginBody = Static<typeof LoginBody>;

export const AdminMe = Type.Object({ username: Type.String() });
export type AdminMe = Static<typeof AdminMe>;
