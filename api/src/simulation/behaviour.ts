import type { Completion, Video } from "@feedlab/schemas";
import { createRandom } from "../system/random.ts";
import { type Card, chooseFromList, type ListChoice } from "./browse.ts";
import { type BehaviourOptions, behaviourOptions } from "./options.ts";
import { type SessionWindow, sessionGap, sessionsNeeded, windowWait } from "./sessions.ts";
import { type AnswerableQuestion, answerSurvey, type SurveyAnswers } from "./survey-answers.ts";
import { affinity, drawTaste, type Taste } from "./taste.ts";
import { planWatch, type WatchPlan } from "./watch.ts";

/** What the participant does after a video on the watch page. */
type NextStep =
  | { readonly kind: "related"; readonly choice: ListChoice & { readonly click: Card } }
  /** Back to the feed; `choice` is how far they looked at the related list first (null: not at all). */
  | { readonly kind: "feed"; readonly choice: ListChoice | null };

export interface ParticipantSpec {
  /** Reproduces the participant: same seed, pool, options and calls, same decisions. */
  readonly seed: number;
  /** The experiment's pool: the taste is drawn over its categories and tags. */
  readonly pool: readonly Pick<Video, "category" | "tags">[];
  readonly options?: Partial<BehaviourOptions>;
  /** A planted taste instead of a drawn one (tests that must know what the participant likes). */
  readonly taste?: Taste;
  /**
   * The answers the study's attention checks expect, by question id. The participant pages never show
   * them; the runner reads them from the study, so its participants pass checks as often as
   * `attentionPassShare` says.
   */
  readonly attentionAnswers?: ReadonlyMap<string, number | readonly number[]>;
}

/**
 * A simulated participant (issue 36): every decision a driver (headless pages or plain HTTP) needs,
 * drawn from seeded streams and independent of how it is driven.
 *
 * Each kind of decision has its own stream, forked from the seed by name: consent and taste are fixed at
 * creation, and the feed, watch, survey and session streams advance only when asked. So one seed is the
 * same person in every arm (same consent, taste, survey answers, return visits) while the arm's feed
 * decides what they see: the arms are compared on common random numbers, which narrows the difference a
 * dry run has to tell apart.
 */
export interface ParticipantModel {
  readonly seed: number;
  readonly options: BehaviourOptions;
  readonly taste: Taste;
  /** Whether this participant accepts the consent text (drawn once: `declineShare` decline). */
  consents(): boolean;
  /** How well a video matches the taste, in [0, 1]. */
  affinity(video: Pick<Video, "category" | "tags">): number;
  /**
   * Goes down a feed page: how far they scroll, what they hover, which card (if any) they open. With
   * `mustOpen` (a dry run's last look at the feed in a session), a look that opens nothing opens the
   * best match among the cards looked at, so every session reaches the watch page.
   */
  chooseFromFeed(cards: readonly Card[], mustOpen?: boolean): ListChoice;
  /** How one video is watched: share, pauses, seeks, whether to the end, like or dislike. */
  watch(video: Pick<Video, "id" | "category" | "tags" | "duration_seconds">): WatchPlan;
  /** After a video: open a related video (chosen as on the feed) or go back to the feed. */
  nextStep(related: readonly Card[]): NextStep;
  /** Valid answers to every question of a survey. */
  answerSurvey(questions: readonly AnswerableQuestion[]): SurveyAnswers;
  /** Sessions to come for so the completion rule is reached. */
  sessionsNeeded(completion: Completion | null): number;
  /** Seconds to wait before the next session. */
  gapBetweenSessions(): number;
  /** Milliseconds from `now` to wait before the session a schedule's window allows (sessions.ts). */
  windowWait(window: SessionWindow, now: number): number;
}

export function createParticipantModel(spec: ParticipantSpec): ParticipantModel {
  const options = behaviourOptions(spec.options);
  const root = createRandom(spec.seed);
  const consented = !root.fork("consent").bernoulli(options.declineShare);
  const taste = spec.taste ?? drawTaste(root.fork("taste"), spec.pool, options);
  const feed = root.fork("feed");
  const watching = root.fork("watch");
  const related = root.fork("related");
  const surveys = root.fork("surveys");
  const sessions = root.fork("sessions");
  // A stream of its own: following a schedule leaves every other decision as it was.
  const returns = root.fork("schedule");

  return {
    seed: spec.seed,
    options,
    taste,
    consents: () => consented,
    affinity: (video) => affinity(taste, video, options),
    chooseFromFeed: (cards, mustOpen = false) => {
      const choice = chooseFromList(feed, taste, cards, options);
      if (!mustOpen || choice.click !== null || cards.length === 0) return choice;
      const looked = [...cards].sort((a, b) => a.position - b.position).slice(0, Math.max(1, choice.looked));
      const best = looked.reduce((a, b) =>
        affinity(taste, b.video, options) > affinity(taste, a.video, options) ? b : a,
      );
      return { ...choice, click: best };
    },
    watch: (video) => planWatch(watching, taste, video, options),
    nextStep: (cards) => {
      if (cards.length === 0 || !related.bernoulli(options.relatedRate))
        return { kind: "feed", choice: null };
      const choice = chooseFromList(related, taste, cards, options);
      const { click } = choice;
      return click === null ? { kind: "feed", choice } : { kind: "related", choice: { ...choice, click } };
    },
    answerSurvey: (questions) =>
      answerSurvey(
        surveys,
        spec.attentionAnswers
          ? questions.map((q) => ({
              ...q,
              attention_answer: spec.attentionAnswers?.get(q.id) ?? q.attention_answer,
            }))
          : questions,
        options,
      ),
    sessionsNeeded: (completion) => sessionsNeeded(completion, options),
    gapBetweenSessions: () => sessionGap(sessions, options),
    windowWait: (window, now) => windowWait(returns, window, now),
  };
}
