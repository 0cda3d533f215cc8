import { getContext, setContext } from "svelte";
import type { AdminUser, Member } from "../../types.ts";

/**
 * What the signed-in account may do with the experiment a page shows (api.md "Teams"): the console
 * leaves out what it may not, rather than failing on a click. The server checks every request anyway.
 */
export interface ExperimentAccess {
  /** The account's role here: an account owner counts as the experiment's owner. */
  readonly role: "owner" | "editor" | "analyst";
  /** Change the design, pool, surveys, settings and status; run dry runs; exclude participants. */
  readonly edit: boolean;
  /** Change the members, erase participants, delete the experiment. */
  readonly own: boolean;
  /** Exports and packages pseudonymized only (raw exports are refused). */
  readonly pseudonymizedOnly: boolean;
}

const FULL: ExperimentAccess = { role: "owner", edit: true, own: true, pseudonymizedOnly: false };

/** The account's access to an experiment, from its account role and the experiment's members. */
export function experimentAccess(user: AdminUser, members: readonly Member[]): ExperimentAccess {
  if (user.role === "owner") return FULL;
  const member = members.find((m) => m.username === user.username);
  const role = member?.role ?? "analyst";
  return {
    role,
    edit: role !== "analyst",
    own: role === "owner",
    pseudonymizedOnly: member?.pseudonymized_only === true,
  };
}

const KEY = Symbol("experiment-access");

/** Makes the access known to the page's sections (the experiment's pages call it once). */
export function provideExperimentAccess(access: () => ExperimentAccess): void {
  setContext(KEY, access);
}

/** The access the page provided; full access where none was (pages outside an experiment). */
export function useExperimentAccess(): () => ExperimentAccess {
  return getContext<(() => ExperimentAccess) | undefined>(KEY) ?? (() => FULL);
}

/** How a library item's uses in experiments the account is not a member of read: "2 arms in other experiments". */
export function usedElsewhereText(count: number | undefined): string {
  if (!count) return "";
  return `${count === 1 ? "1 arm" : `${count} arms`} in experiments you are not a member of`;
}

/** Every arm that uses a library item, the ones the account cannot see included. */
export const armsUsing = (item: { used_by: readonly unknown[]; used_elsewhere?: number }): number =>
  item.used_by.length + (item.used_elsewhere ?? 0);
