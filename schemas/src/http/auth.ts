import { type Static, Type } from "@sinclair/typebox";
import { ADMIN_PASSWORD_MIN_LENGTH, ADMIN_USERNAME_PATTERN } from "./enums.ts";
import { AccountRoleSchema } from "./roles.ts";

export const LoginBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);
export type LoginBody = Static<typeof LoginBody>;

export const AdminMe = Type.Object({ username: Type.String(), role: AccountRoleSchema });
export type AdminMe = Static<typeof AdminMe>;

/** The sign-in's answer: the admin, and the console credential a browser's admin requests carry. */
export const AdminSignedIn = Type.Object({
  username: Type.String(),
  role: AccountRoleSchema,
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
  {
    username: AdminUsername,
    password: Type.Optional({
      ...NewPassword,
      description: "Without one, a password is generated and answered once",
    }),
    role: Type.Optional({ ...AccountRoleSchema, default: "researcher" }),
  },
  { additionalProperties: false },
);
export type AdminCreate = Static<typeof AdminCreate>;

export const AdminAccount = Type.Object({
  username: Type.String(),
  role: AccountRoleSchema,
  created_at: Type.String(),
});
export type AdminAccount = Static<typeof AdminAccount>;

/** A new account: the password only when it was generated, shown this once and never again. */
export const AdminCreated = Type.Object({
  ...AdminAccount.properties,
  password: Type.Optional(Type.String({ description: "The generated password, answered only now" })),
});
export type AdminCreated = Static<typeof AdminCreated>;

export const AdminRoleChange = Type.Object({ role: AccountRoleSchema }, { additionalProperties: false });
export type AdminRoleChange = Static<typeof AdminRoleChange>;

export const PasswordChange = Type.Object(
  { current_password: Type.String({ minLength: 1, maxLength: 1024 }), new_password: NewPassword },
  { additionalProperties: false },
);
export type PasswordChange = Static<typeof PasswordChange>;
