import { type Static, Type } from "@sinclair/typebox";
import { ADMIN_PASSWORD_MIN_LENGTH, ADMIN_USERNAME_PATTERN } from "./enums.ts";

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

/** The sign-in's answer: the admin, and the console credential a browser's admin requests carry. */
export const AdminSignedIn = Type.Object({
  username: Type.String(),
  console_token: Type.String({
    description:
      "Send it as the X-Feedlab-Console header on admin requests from a browser (requests with Sec-Fetch-Site); clients that are not browsers need not. Valid as long as the session.",
  }),
});
export type AdminSignedIn = Static<typeof AdminSignedIn>;

/** An admin's username: letters, digits and `. _ @ -`, as FEEDLAB_ADMIN_USERNAME. */
const AdminUsername = Type.String({ minLength: 1, maxLength: 64, pattern: ADMIN_USERNAME_PATTERN });

/** A new password: at least 8 characters, as FEEDLAB_ADMIN_PASSWORD. */
const NewPassword = Type.String({ minLength: ADMIN_PASSWORD_MIN_LENGTH, maxLength: 1024 });

export const AdminCreate = Type.Object(
  { username: AdminUsername, password: NewPassword },
  { additionalProperties: false },
);
export type AdminCreate = Static<typeof AdminCreate>;

export const AdminAccount = Type.Object({ username: Type.String(), created_at: Type.String() });
export type AdminAccount = Static<typeof AdminAccount>;

export const PasswordChange = Type.Object(
  { current_password: Type.String({ minLength: 1, maxLength: 1024 }), new_password: NewPassword },
  { additionalProperties: false },
);
export type PasswordChange = Static<typeof PasswordChange>;
