/**
 * The parameters of a simulated participant (issue 36), one documented object. Shares and rates are
 * probabilities in [0, 1]; durations say their unit. The defaults describe a plausible, fairly engaged
 * participant whose choices depend clearly on taste, so a dry run shows every event type and a learned arm
 * has something to learn; they are not estimates from a real study.
 */
export interface BehaviourOptions {
  /** Share of participants who decline the consent text (they stop there). */
  readonly declineShare: number;
  /** How many of the pool's categories a drawn taste favours (drawn in proportion to their size). */
  readonly favouriteCategories: number;
  /** How many of the pool's tags a drawn taste favours. */
  readonly favouriteTags: number;
  /** Weight of the category in a video's taste match; the rest goes to its best-liked tag. */
  readonly categoryWeight: number;
  /** Click probability of a card at the top with a middling taste match (0.5). */
  readonly baseClickRate: number;
  /**
   * How far taste moves the click probability, in logits from the least to the best matching card: 0 is
   * taste-blind, 4 turns a 12 % base rate into about 2 % and 50 %.
   */
  readonly tasteStrength: number;
  /** The click probability at position p is divided by 1 + positionDecay * p (position bias). */
  readonly positionDecay: number;
  /** After each card judged and not clicked, the chance the participant stops going down the list. */
  readonly abandonRate: number;
  /** Chance to hover a card with a middling match; it rises with the match (a clicked card is always hovered). */
  readonly hoverRate: number;
  /** Median time spent on one card while going down a list, in milliseconds. */
  readonly cardDwellMs: number;
  /** Median hover, in milliseconds. */
  readonly hoverMs: number;
  /** Mean share of a video watched (when not to the end) for the least and the best matching video. */
  readonly watchShare: { readonly low: number; readonly high: number };
  /** Chance to watch to the end at a middling match (scaled by 0.5 + match). */
  readonly endRate: number;
  /** Chance to like a video watched, at a middling match (scaled by 2 x match). */
  readonly likeRate: number;
  /** Chance to dislike a video watched, at a middling match (scaled by 2 x (1 - match)); never with a like. */
  readonly dislikeRate: number;
  /** Chance of a pause per started minute watched (at least one chance per video). */
  readonly pauseRate: number;
  /** Chance of one seek in a video, backwards (to see again) or forwards (to skip) alike. */
  readonly seekRate: number;
  /** Duration assumed for a video whose duration is unknown or 0, in seconds. */
  readonly unknownDurationSeconds: number;
  /** Chance, after a video, to go on to a related video rather than back to the feed. */
  readonly relatedRate: number;
  /** Chance to skip an optional survey question (an attention check is never skipped). */
  readonly skipOptionalShare: number;
  /** Chance to pass an attention check (1: always; lower it to exercise the exclusion rules). */
  readonly attentionPassShare: number;
  /** Median time to answer one survey question, in milliseconds (the response's duration_ms). */
  readonly answerMs: number;
  /**
   * Minutes on the feed and watch pages in one session: with `after_feed_minutes`, the number of sessions
   * is the minutes asked for over this (and at least `after_sessions`).
   */
  readonly sessionMinutes: number;
  /** Gap between two sessions, in seconds: a log-normal draw around the median, cut to [min, max]. */
  readonly sessionGapSeconds: { readonly min: number; readonly median: number; readonly max: number };
  /** Most sessions a participant comes back for, whatever the completion rule asks. */
  readonly maxSessions: number;
}

export const DEFAULT_BEHAVIOUR: BehaviourOptions = Object.freeze({
  declineShare: 0.1,
  favouriteCategories: 2,
  favouriteTags: 3,
  categoryWeight: 0.6,
  baseClickRate: 0.12,
  tasteStrength: 4,
  positionDecay: 0.05,
  abandonRate: 0.04,
  hoverRate: 0.3,
  cardDwellMs: 900,
  hoverMs: 700,
  watchShare: Object.freeze({ low: 0.15, high: 0.7 }),
  endRate: 0.25,
  likeRate: 0.15,
  dislikeRate: 0.04,
  pauseRate: 0.3,
  seekRate: 0.3,
  unknownDurationSeconds: 120,
  relatedRate: 0.5,
  skipOptionalShare: 0.3,
  attentionPassShare: 1,
  answerMs: 4000,
  // Short, so a dry run in real browsers ends in minutes; a load test may ask for more.
  sessionMinutes: 2,
  sessionGapSeconds: Object.freeze({ min: 5, median: 30, max: 300 }),
  maxSessions: 50,
});

const SHARES = [
  "declineShare",
  "categoryWeight",
  "baseClickRate",
  "abandonRate",
  "hoverRate",
  "endRate",
  "likeRate",
  "dislikeRate",
  "pauseRate",
  "seekRate",
  "relatedRate",
  "skipOptionalShare",
  "attentionPassShare",
] as const;

const POSITIVE = ["cardDwellMs", "hoverMs", "unknownDurationSeconds", "answerMs", "sessionMinutes"] as const;
const COUNTS = ["favouriteCategories", "favouriteTags", "maxSessions"] as const;

/** Every problem of a set of options, worded for whoever set them; empty when they hold. */
function optionProblems(o: BehaviourOptions): string[] {
  const problems: string[] = [];
  const share = (v: number) => Number.isFinite(v) && v >= 0 && v <= 1;
  for (const k of SHARES) if (!share(o[k])) problems.push(`${k} must be between 0 and 1`);
  for (const k of POSITIVE) if (!(Number.isFinite(o[k]) && o[k] > 0)) problems.push(`${k} must be above 0`);
  for (const k of COUNTS) if (!(Number.isInteger(o[k]) && o[k] >= 0)) problems.push(`${k} must be a count`);
  if (o.maxSessions < 1) problems.push("maxSessions must be at least 1");
  if (!(Number.isFinite(o.tasteStrength) && o.tasteStrength >= 0))
    problems.push("tasteStrength must not be negative");
  if (!(Number.isFinite(o.positionDecay) && o.positionDecay >= 0))
    problems.push("positionDecay must not be negative");
  if (!(share(o.watchShare.low) && share(o.watchShare.high)))
    problems.push("watchShare.low and watchShare.high must be between 0 and 1");
  const g = o.sessionGapSeconds;
  if (!(Number.isFinite(g.min) && g.min >= 0 && g.min <= g.median && g.median <= g.max))
    problems.push("sessionGapSeconds must hold 0 <= min <= median <= max");
  return problems;
}

/** The defaults with some fields replaced; throws a RangeError naming every problem. */
export function behaviourOptions(overrides: Partial<BehaviourOptions> = {}): BehaviourOptions {
  const options: BehaviourOptions = Object.freeze({ ...DEFAULT_BEHAVIOUR, ...overrides });
  const problems = optionProblems(options);
  if (problems.length > 0) throw new RangeError(`invalid behaviour options: ${problems.join("; ")}`);
  return options;
}
