import { type Static, Type } from "@sinclair/typebox";

/**
 * Teams (api.md "Teams (wave 4)", docs/teams.md). An account is an `owner` (every experiment, the
 * accounts and the settings) or a `researcher` (the shared library, and the experiments they are a
 * member of, as what their membership says).
 */
export const ACCOUNT_ROLES = ["owner", "researcher"] as const;
export type AccountRole = (typeof ACCOUNT_ROLES)[number];

/** A member's role on one experiment, least first: analysts read, editors change, owners also manage. */
export const MEMBER_ROLES = ["analyst", "editor", "owner"] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/**
 * The least role an admin operation needs (the OpenAPI document's `x-feedlab-role`), least first:
 * `researcher` any account; `analyst`, `editor` and `study_owner` a member of the experiment with at
 * least that role (or an account owner); `owner` account owners only.
 */
export const LEAST_ROLES = ["researcher", "analyst", "editor", "study_owner", "owner"] as const;
export type LeastRole = (typeof LEAST_ROLES)[number];

export const AccountRoleSchema = Type.Union(
  ACCOUNT_ROLES.map((r) => Type.Literal(r)),
  {
    description:
      "owner: everything, on every experiment, and the accounts and settings; researcher: the library and the experiments they are a member of",
  },
);
export const MemberRoleSchema = Type.Union(
  MEMBER_ROLES.map((r) => Type.Literal(r)),
  {
    description:
      "analyst: reads everything of the experiment; editor: also changes it; owner: also its members, erasure and deletion",
  },
);
export type AccountRoleSchema = Static<typeof AccountRoleSchema>;
