import { type Static, Type } from "@sinclair/typebox";

/**
 * Teams (api.md "Teams (wave 4)"). An account is an `owner` (every experiment, the accounts and the
 * settings) or a `researcher` (the shared library, and the experiments they are a member of, as what
 * their membership says).
 */
export const ACCOUNT_ROLES = ["owner", "researcher"] as const;
export type AccountRole = (typeof ACCOUNT_ROLES)[number];

export const AccountRoleSchema = Type.Union(
  ACCOUNT_ROLES.map((r) => Type.Literal(r)),
  {
    description:
      "owner: everything, on every experiment, and the accounts and settings; researcher: the library and the experiments they are a member of",
  },
);
export type AccountRoleSchema = Static<typeof AccountRoleSchema>;
