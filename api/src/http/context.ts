import type { AccountRole, MemberRole } from "@feedlab/schemas";
import type { ParameterizedContext } from "koa";
import type { Logger } from "pino";
import type { ClientOrigin } from "./client-address.ts";

/** The admin behind a request, once `auth("admin")` has passed. */
export interface AdminPrincipal {
  readonly role: "admin";
  readonly adminId: string;
  readonly username: string;
}

/** The participant behind a request, once `auth("participant")` has passed. */
export interface ParticipantPrincipal {
  readonly role: "participant";
  readonly userId: string;
  readonly loginId: string;
  readonly experimentId: string;
  /** Null until assigned: a study that balances on the pre survey's answers (api.md "Assignment (wave 4)"). */
  readonly groupId: string | null;
}

export type Principal = AdminPrincipal | ParticipantPrincipal;

/** What an admin route's role check found (auth/access.ts): the account's role, and its membership. */
export interface Access {
  readonly adminId: string;
  readonly accountRole: AccountRole;
  /** The account's membership of the route's experiment (null: none, or the route names none). */
  readonly member: { readonly role: MemberRole; readonly pseudonymizedOnly: boolean } | null;
}

export interface AppState {
  requestId: string;
  /** Where the request came from, as the trusted proxies tell (`ctx.ip` is its address). */
  client: ClientOrigin;
  log: Logger;
  principal?: Principal;
  /** Set by an admin route's role check. */
  access?: Access;
  /** The route template that matched, for metrics labels. */
  routePath?: string;
}

export type AppContext = ParameterizedContext<AppState>;
