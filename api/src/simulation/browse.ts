import type { Video } from "@feedlab/schemas";
import type { Random } from "../system/random.ts";
import type { BehaviourOptions } from "./options.ts";
import { affinity, clickProbability, type Taste } from "./taste.ts";

/** A card as a list shows it: the video and its position (from 0 at the top of the feed or related list). */
export interface Card {
  /** The fields the model reads; enough to watch the video once the card is clicked. */
  readonly video: Pick<Video, "id" | "category" | "tags" | "duration_seconds">;
  readonly position: number;
}

/** A card the pointer rests on: THUMBNAIL_HOVER's `hoverDurationMs` and `followed_by_click`. */
interface Hover {
  readonly position: number;
  readonly videoId: string;
  readonly durationMs: number;
  readonly followedByClick: boolean;
}

/** What a participant does with one list of cards. */
export interface ListChoice {
  /** Position of the last card looked at (the scroll depth), or null for an empty list. */
  readonly scrolledTo: number | null;
  /** How many cards were looked at, from the top. */
  readonly looked: number;
  /** Hovers, in the order they happen; a clicked card is hovered last. */
  readonly hovers: readonly Hover[];
  /** The card clicked, or null when the participant went down the list and left it without one. */
  readonly click: Card | null;
  /** Time spent on the list before clicking or leaving, in milliseconds (hovers included). */
  readonly dwellMs: number;
}

/**
 * A cascade: the participant goes down the list from the top; at each card they click with the taste-
 * and position-dependent probability, else hover it sometimes (more often when it matches), and after a
 * card not clicked they may give up on the list. So clicks fall with position twice over: fewer
 * participants get that far, and the position bias lowers the chance for those who do.
 */
export function chooseFromList(
  random: Random,
  taste: Taste,
  cards: readonly Card[],
  options: BehaviourOptions,
): ListChoice {
  const ordered = [...cards].sort((a, b) => a.position - b.position);
  const hovers: Hover[] = [];
  let scrolledTo: number | null = null;
  let looked = 0;
  let dwellMs = 0;
  for (const card of ordered) {
    scrolledTo = card.position;
    looked += 1;
    dwellMs += random.logNormal(options.cardDwellMs, 0.5);
    const match = affinity(taste, card.video, options);
    const clicked = random.bernoulli(clickProbability(match, card.position, options));
    if (clicked || random.bernoulli(options.hoverRate * (0.5 + match))) {
      const durationMs = Math.round(random.logNormal(options.hoverMs, 0.6));
      dwellMs += durationMs;
      hovers.push({ position: card.position, videoId: card.video.id, durationMs, followedByClick: clicked });
    }
    if (clicked) return { scrolledTo, looked, hovers, click: card, dwellMs: Math.round(dwellMs) };
    if (random.bernoulli(options.abandonRate)) break;
  }
  return { scrolledTo, looked, hovers, click: null, dwellMs: Math.round(dwellMs) };
}
