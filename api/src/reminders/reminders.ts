import { sessionBeginnings } from "@feedlab/projector";
import type { Completion, Reminders, Schedule } from "@feedlab/schemas";
import type { Logger } from "pino";
import type { AuditService } from "../audit/audit.service.ts";
import { json } from "../db/present.ts";
import type { ServiceDeps } from "../deps.ts";
import { experimentIdsWithStatus, experimentRow } from "../experiments/queries/experiments.queries.ts";
import { joinSignature } from "../participants/join-signature.ts";
import {
  markParticipantLapsed,
  participantsOnSchedule,
  type ScheduledParticipant,
} from "../participants/queries/users.queries.ts";
import { chosenLanguage } from "../study/language.ts";
import { type BegunSession, type OpenWindow, participantOnSchedule } from "../study/schedule.ts";
import type { Mailer } from "./mailer.ts";
import { reminderMessage } from "./messages.ts";
import { contactsOf } from "./queries/contacts.queries.ts";
import { claimReminder, type ReminderKey, settleReminder } from "./queries/messages.queries.ts";

/** A refused message is tried again after these waits: three retries (api.md), then reported. */
const RETRY_WAITS_MS = [10_000, 30_000, 60_000] as const;

export interface ScheduleKeeperDeps extends ServiceDeps {
  readonly audit: Pick<AuditService, "record" | "subjects">;
  readonly log: Logger;
  /** The mail server; null: no reminders are sent (lapses still are recorded). */
  readonly mailer: Mailer | null;
  /** The server's public origin: the links in messages (`setPublicUrl` once the port is known). */
  readonly publicUrl: string;
  /** With signed join links on, return links carry `sig`. */
  readonly joinSecret: string | null;
  /** How often the schedule is looked at (default 10 s: reminders and lapses within 60 s of their time). */
  readonly intervalMs?: number;
}

interface ExperimentOnSchedule {
  name: string;
  schedule: unknown;
  reminders: unknown;
  completion: unknown;
  languages: unknown;
  default_language: string;
}

/** The reminder due now for a window not used yet: its close's when due, else its opening's, else none. */
function dueReminder(w: OpenWindow, reminders: Reminders | null, now: number): "open" | "close" | null {
  if (reminders?.email !== true || now >= w.closes_at) return null;
  const before = reminders.before_close_hours;
  if (before !== undefined && now >= w.closes_at - before * 3_600_000) return "close";
  return now >= w.opens_at ? "open" : null;
}

/**
 * Keeps running experiments' schedules (api.md "Longitudinal studies (wave 4)"): every `intervalMs`
 * it records the participants whose window closed unused as lapsed, and sends the reminders due
 * (when a window opens, and `before_close_hours` before it closes) to those who gave an address and
 * did not unsubscribe, in their language, each at most once (claimed before it leaves). A refused
 * message is retried three times, then reported; the audit log gets one `reminders.sent` entry per
 * round and experiment with the count, never an address.
 */
export function createScheduleKeeper({
  db,
  now,
  audit,
  log,
  mailer,
  publicUrl,
  joinSecret,
  intervalMs = 10_000,
}: ScheduleKeeperDeps) {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let base = publicUrl;

  const returnLink = (experimentId: string, loginId: string) => {
    const url = new URL(`${base}/join/${experimentId}`);
    url.searchParams.set("login_id", loginId);
    if (joinSecret !== null) url.searchParams.set("sig", joinSignature(joinSecret, experimentId, loginId));
    return url.toString();
  };

  async function send(
    key: ReminderKey,
    p: ScheduledParticipant & { language: string },
    w: OpenWindow,
    study: string,
    to: { address: string; unsubscribe_token: string },
  ): Promise<"sent" | "failed" | null> {
    const at = now();
    const attempt = await claimReminder(db, key, at);
    if (attempt === null || mailer === null) return null;
    const unsubscribeUrl = `${base}/unsubscribe/${to.unsubscribe_token}`;
    const message = reminderMessage({
      kind: key.kind,
      language: p.language,
      study,
      session: key.session,
      leftMs: w.closes_at - at.getTime(),
      returnUrl: returnLink(key.experiment_id, p.login_id),
      unsubscribeUrl,
    });
    const result = await mailer.send({ to: to.address, ...message, unsubscribeUrl });
    if (result.outcome === "accepted") {
      await settleReminder(db, key, { status: "sent", at: now() });
      return "sent";
    }
    const wait = RETRY_WAITS_MS[attempt - 1];
    const final = result.outcome === "lost" || wait === undefined;
    await settleReminder(db, key, {
      status: final ? (result.outcome === "lost" ? "lost" : "failed") : "retry",
      at: now(),
      ...(final ? {} : { next_at: new Date(now().getTime() + wait) }),
      error: result.error ?? "failed",
    });
    return final ? "failed" : null;
  }

  async function experimentRound(experimentId: string): Promise<void> {
    const e = await experimentRow<ExperimentOnSchedule>(
      db,
      experimentId,
      "name",
      "schedule",
      "reminders",
      "completion",
      "languages",
      "default_language",
    );
    const schedule = json<Schedule | null>(e?.schedule, null) ?? [];
    if (!e || schedule.length === 0) return;
    const reminders = json<Reminders | null>(e.reminders, null);
    const completion = json<Completion | null>(e.completion, null);
    const languages = json<string[]>(e.languages, [e.default_language]);
    const participants = await participantsOnSchedule(db, experimentId);
    if (participants.length === 0) return;
    const begun = Map.groupBy(await sessionBeginnings(db, experimentId), (s) => s.user_id);
    const at = now().getTime();
    const due: { p: ScheduledParticipant; w: OpenWindow; kind: "open" | "close" }[] = [];
    let lapsed = 0;
    for (const p of participants) {
      const sessions: BegunSession[] = begun.get(p.id) ?? [];
      if (sessions.length === 0) continue;
      const state = participantOnSchedule(schedule, completion, sessions, {
        now: at,
        simulated: p.simulated,
      });
      if (state.lapsed !== null) {
        if (await markParticipantLapsed(db, p.id, now())) lapsed++;
        continue;
      }
      const kind = state.next === null || p.simulated ? null : dueReminder(state.next, reminders, at);
      if (kind !== null && state.next !== null) due.push({ p, w: state.next, kind });
    }
    if (lapsed > 0) log.info({ experiment_id: experimentId, lapsed }, "schedule: participants lapsed");
    if (due.length === 0 || mailer === null) return;
    const contacts = await contactsOf(
      db,
      due.map((d) => d.p.id),
    );
    let sent = 0;
    let failed = 0;
    for (const { p, w, kind } of due) {
      const to = contacts.get(p.id);
      if (!to) continue;
      const outcome = await send(
        { user_id: p.id, experiment_id: experimentId, session: w.session, kind },
        { ...p, language: chosenLanguage(p.language, languages, e.default_language) },
        w,
        e.name,
        to,
      );
      if (outcome === "sent") sent++;
      else if (outcome === "failed") failed++;
    }
    // Counts, never addresses; `about` names the experiment, so its members see the entry.
    const record = async (action: "reminders.sent" | "reminders.failed", count: number) =>
      audit.record({
        admin: null,
        action,
        target: experimentId,
        details: { count, about: await audit.subjects(action, { id: experimentId }, {}) },
      });
    if (sent > 0) await record("reminders.sent", sent);
    if (failed > 0) {
      log.warn({ experiment_id: experimentId, failed }, "reminders: messages could not be sent");
      await record("reminders.failed", failed);
    }
  }

  /** One look at every running experiment with a schedule. */
  async function round(): Promise<void> {
    for (const id of await experimentIdsWithStatus(db, "running"))
      await experimentRound(id).catch((err: unknown) =>
        log.error({ err, experiment_id: id }, "schedule: a round failed"),
      );
  }

  /** Runs a round, or waits for the one running. */
  const runRound = (): Promise<void> => {
    running ??= round().finally(() => {
      running = null;
    });
    return running;
  };

  return {
    /** Runs a round now (tests). */
    round: runRound,
    /** The origin links point to, once the server listens (the default public URL follows its port). */
    setPublicUrl(url: string): void {
      base = url;
    },
    start(): void {
      if (timer) return;
      timer = setInterval(() => void runRound(), intervalMs);
      timer.unref();
    },
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
      mailer?.close();
    },
  };
}
