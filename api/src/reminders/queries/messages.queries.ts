import type { Knex } from "knex";

type Q = Knex | Knex.Transaction;

/** A reminder: whose, for which session's window, and which of its two messages. */
export interface ReminderKey {
  readonly user_id: string;
  readonly experiment_id: string;
  readonly session: number;
  readonly kind: "open" | "close";
}

/**
 * Claims a reminder for sending: a new one, or one whose earlier attempt was refused and is due again.
 * The claim (`sending`, committed) comes before the message leaves, so a reminder is never sent twice:
 * one left `sending` by a crash stays so. Answers the attempt's number, or null when it is not to be
 * sent (sent, lost, failed, being sent, or not due yet).
 */
export async function claimReminder(db: Q, r: ReminderKey, at: Date): Promise<number | null> {
  const inserted = (await db("reminder_messages")
    .insert({ ...r, status: "sending", attempts: 1, next_at: at, created_at: at })
    .onConflict(["user_id", "session", "kind"])
    .ignore()
    .returning("attempts")) as { attempts: number }[];
  if (inserted.length > 0) return 1;
  const retried = (await db("reminder_messages")
    .where({ user_id: r.user_id, session: r.session, kind: r.kind, status: "retry" })
    .where("next_at", "<=", at)
    .update({ status: "sending", attempts: db.raw("attempts + 1") })
    .returning("attempts")) as { attempts: number }[];
  return retried[0]?.attempts ?? null;
}

/** What became of an attempt: `sent`, `retry` at `next_at`, or final (`failed`, `lost`), with why. */
export async function settleReminder(
  db: Q,
  r: ReminderKey,
  outcome: { status: "sent" | "retry" | "failed" | "lost"; at: Date; next_at?: Date; error?: string },
): Promise<void> {
  await db("reminder_messages")
    .where({ user_id: r.user_id, session: r.session, kind: r.kind })
    .update({
      status: outcome.status,
      ...(outcome.status === "sent" ? { sent_at: outcome.at } : {}),
      ...(outcome.next_at === undefined ? {} : { next_at: outcome.next_at }),
      ...(outcome.error === undefined ? {} : { last_error: outcome.error.slice(0, 500) }),
    });
}

/** Reminders the SMTP server accepted, per participant of the experiment (the CSV's `reminders_sent`). */
export async function remindersSent(db: Q, experimentId: string): Promise<Map<string, number>> {
  const rows = (await db("reminder_messages")
    .where({ experiment_id: experimentId, status: "sent" })
    .groupBy("user_id")
    .select("user_id", db.raw("count(*) as n"))) as { user_id: string; n: number | string }[];
  return new Map(rows.map((r) => [r.user_id, Number(r.n)]));
}
