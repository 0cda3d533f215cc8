import type { Video } from "@feedlab/schemas";
import { itemAt, type Random } from "../system/random.ts";
import type { Card } from "./browse.ts";
import type { AnswerableQuestion } from "./survey-answers.ts";

/** A video with only the fields given set; the rest empty. */
export const video = (i: number, over: Partial<Video> = {}): Video => ({
  id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
  external_id: `ext-${i}`,
  url: `/media/${i}.mp4`,
  resolved_url: `/media/${i}.mp4`,
  type: "native",
  title: `Video ${i}`,
  channel_name: null,
  category: null,
  description: null,
  tags: [],
  duration_seconds: 120,
  view_count: null,
  thumbnail_url: null,
  published_at: null,
  comments: [],
  captions: [],
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
  ...over,
});

const CATEGORIES = ["Music", "Cooking", "Sports", "News", "Science", "Travel"] as const;
const TAGS = ["live", "howto", "review", "funny", "short", "interview", "diy", "vlog"] as const;

/** 60 videos over six categories and eight tags, durations from 30 s to 10 min, one with none known. */
export const POOL: readonly Video[] = Array.from({ length: 60 }, (_, i) =>
  video(i, {
    category: itemAt(CATEGORIES, i % CATEGORIES.length),
    tags: [itemAt(TAGS, i % TAGS.length), itemAt(TAGS, (i * 3 + 1) % TAGS.length)],
    duration_seconds: i === 7 ? null : 30 + ((i * 37) % 570),
  }),
);

/** Cards at positions 0..n-1 of the given videos, in order. */
export const cards = (videos: readonly Video[]): Card[] =>
  videos.map((v, position) => ({ video: v, position }));

const options = (random: Random, n: number) =>
  Array.from({ length: n }, (_, j) => ({
    id: `o${j}`,
    text: `Option ${j}`,
    // Values repeat now and then (two options coded alike), as nominal codings do.
    value: random.bernoulli(0.2) ? 0 : random.int(-3, 7),
  }));

/**
 * A survey obeying the shape rules, drawn to cover their corners: every type, optional questions,
 * multi bounds from 0 to past the option count (maxSelect 0 = no upper bound), and attention checks on
 * single and multi questions.
 */
export function randomSurvey(random: Random): AnswerableQuestion[] {
  const count = random.int(0, 8);
  return Array.from({ length: count }, (_, i): AnswerableQuestion => {
    const type = random.pick(["single", "multi", "text"] as const);
    const required = random.bernoulli(0.6) ? undefined : random.bernoulli(0.5);
    const base = { id: `q${i}`, text: `Question ${i}?`, required };
    if (type === "text") return { ...base, type, minSelect: null, maxSelect: null, answers: [] };
    const answers = options(random, random.int(1, 7));
    const check = random.bernoulli(0.25);
    if (type === "single") {
      const attention_answer = check ? random.pick(answers).value : undefined;
      return { ...base, type, minSelect: null, maxSelect: null, answers, attention_answer };
    }
    const minSelect = random.int(0, answers.length);
    const maxSelect = random.bernoulli(0.3) ? 0 : random.int(Math.max(1, minSelect), answers.length + 2);
    const upper = maxSelect === 0 ? answers.length : Math.min(maxSelect, answers.length);
    const chosen = random.sample(answers, random.int(Math.max(1, minSelect), Math.max(1, upper)));
    const attention_answer = check ? chosen.map((o) => o.value) : undefined;
    return { ...base, type, minSelect, maxSelect, answers, attention_answer };
  });
}
