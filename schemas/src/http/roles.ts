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

/**
 * What a member of an experiment may do there. `analyst`: read everything of it, change nothing;
 * `editor`: also change its design, pool, surveys, settings and status, run dry runs and exclude
 * participants; `owner`: also its members, erasure of its participants and its deletion.
 */
const MEMBER_ROLES = ["analyst", "editor", "owner"] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/**
 * The least role an admin operation needs (OpenAPI `x-feedlab-role`, and `details.needed` of 403
 * `forbidden_role`), weakest first: `researcher` (any account), `analyst`, `editor`, `study_owner`
 * (members of the experiment in that role or above, or an account owner) and `owner` (account owners).
 */
export const LEAST_ROLES = ["researcher", "analyst", "editor", "study_owner", "owner"] as const;
export type LeastRole = (typeof LEAST_ROLES)[number];

/** The least role a member's role meets: a study owner is `study_owner`. */
const leastRoleOfMember = (role: MemberRole): LeastRole => (role === "owner" ? "study_owner" : role);

/** Whether a member's role allows an operation that needs `needed` (`owner` needs an account owner). */
export const memberMay = (role: MemberRole, needed: LeastRole): boolean =>
  needed !== "owner" && LEAST_ROLES.indexOf(leastRoleOfMember(role)) >= LEAST_ROLES.indexOf(needed);

const MemberRoleSchema = Type.Union(
  MEMBER_ROLES.map((r) => Type.Literal(r)),
  {
    description:
      "analyst: reads everything of the experiment, changes nothing; editor: also its design, pool, surveys, settings, status, dry runs and exclusions; owner: also its members, erasure and deletion",
  },
);

export const Member = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64 }),
    role: MemberRoleSchema,
    pseudonymized_only: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          "The member's exports and packages of the experiment are pseudonymized (participants by a stable pseudonym, no login or recruiting id), whatever they ask for",
      }),
    ),
  },
  { additionalProperties: false },
);
export type Member = Static<typeof Member>;

export const MemberList = Type.Array(Member, { maxItems: 200 });
export type MemberList = Static<typeof MemberList>;
