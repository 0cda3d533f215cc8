import type { ParticipantAssignment } from "@feedlab/schemas";
import { json } from "../../db/present.ts";

/**
 * A participant's assignment as stored (`users.assignment`), or, for one who joined before assignments
 * were kept, what every earlier release did: balanced by weight, deterministic (probability 1), at their
 * join.
 */
export function participantAssignment(
  stored: unknown,
  joinedAt: Date | string | null,
): ParticipantAssignment {
  const kept = json<ParticipantAssignment | null>(stored, null);
  if (kept) return kept;
  return {
    method: "balanced",
    probability: 1,
    at: joinedAt === null ? new Date(0).toISOString() : new Date(joinedAt).toISOString(),
  };
}
