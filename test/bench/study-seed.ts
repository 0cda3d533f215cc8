// What the study benchmarks (results, big-study) seed alike, straight into the tables: a running
// experiment and its arms, and the evaluation read model as the projector leaves it for their events.
import { randomUUID } from "node:crypto";
import type { Db } from "@feedlab/sql";
import { refreshSurveyMeasures } from "../../api/src/quality/survey-measures.ts";
import { rejudgeSurvey } from "../../api/src/surveys/verdicts.ts";

/** A running experiment named `name` with `arms` arms (popularity on the feed, similarity on watch). */
export async function insertStudy(db: Db, name: string, arms: number) {
  const experiment = randomUUID();
  await db("experiments").insert({ id: experiment, name, status: "running" });
  const groups = Array.from({ length: arms }, (_, i) => ({
    id: randomUUID(),
    experiment_id: experiment,
    name: `Arm ${i + 1}`,
    algorithm_feed: "popularity",
    algorithm_watch: "similarity",
    ui_feed: "grid-desktop",
    ui_watch: "grid-desktop",
  }));
  await db("groups").insert(groups);
  return { experiment, groups };
}

/** The evaluation counts of the experiment's events, as the projector makes them. */
export async function insertEvaluationCounts(db: Db, experiment: string): Promise<void> {
  await db.raw(
    `insert into evaluation_counts (experiment_id, group_id, user_id, surface, recommender, impressions,
       feed_clicks, plays, completions, likes, last_at)
     select experiment_id, group_id, user_id,
       case when event_type in ('IMPRESSION', 'FEED_CLICK') then 'feed' else 'watch' end,
       case when event_type in ('IMPRESSION', 'FEED_CLICK') then 'popularity' else 'similarity' end,
       count(*) filter (where event_type = 'IMPRESSION'), count(*) filter (where event_type = 'FEED_CLICK'),
       count(*) filter (where event_type = 'VIDEO_PLAY'), count(*) filter (where event_type = 'VIDEO_ENDED'),
       count(*) filter (where event_type = 'LIKE'), max(received_at)
     from events where experiment_id = ? and event_type <> 'VIDEO_PROGRESS'
     group by 1, 2, 3, 4, 5`,
    [experiment],
  );
}

/** `count` survey questions: single, multi and text in turn, with Likert-like values. */
export function benchQuestions(count: number) {
  return Array.from({ length: count }, (_, i) => {
    const type = (["single", "multi", "text"] as const)[i % 3] ?? "single";
    const options = Array.from({ length: 5 }, (_, j) => ({
      id: `o${j + 1}`,
      text: `Option ${j + 1} of ${i + 1}`,
      value: j - 2,
    }));
    return {
      id: `q${i + 1}`,
      text: `Question ${i + 1}: how, in your words, did "it" go?`,
      type,
      minSelect: type === "multi" ? 1 : null,
      maxSelect: type === "multi" ? 3 : null,
      answers: type === "text" ? [] : options,
    };
  });
}

/**
 * The answers of one response to `benchQuestions(count)` as stored, with `__N__` for the SQL to
 * replace per participant.
 */
export function benchAnswers(count: number): string {
  return JSON.stringify(
    benchQuestions(count).map((q) => ({
      questionId: q.id,
      questionText: q.text,
      selections:
        q.type === "single" ? q.answers.slice(1, 2) : q.type === "multi" ? q.answers.slice(0, 2) : [],
      textInput: q.type === "text" ? 'Participant __N__ says: fine, "mostly"\nand more' : null,
    })),
  );
}

/**
 * A rating survey as studies run them: eight items on one 1-5 agreement scale, an attention check
 * ("choose 4") and a comment. `benchRatings(straight)` gives a response: varied ratings that pass the
 * check, or the same rating throughout that fails it (straight-lined), with `__N__` for the SQL.
 */
function ratingQuestions() {
  const scale = ["Strongly disagree", "Disagree", "Neutral", "Agree", "Strongly agree"].map((text, j) => ({
    id: `o${j + 1}`,
    text,
    value: j + 1,
  }));
  return [
    ...Array.from({ length: 8 }, (_, i) => ({
      id: `r${i + 1}`,
      text: `Statement ${i + 1}: the videos I was shown suited me.`,
      type: "single",
      answers: scale,
    })),
    {
      id: "check",
      text: "To show you read this, choose Agree.",
      type: "single",
      answers: scale,
      attention_answer: 4,
    },
    { id: "comment", text: "Anything else?", type: "text", answers: [] },
  ];
}

function benchRatings(straight: boolean): string {
  return JSON.stringify(
    ratingQuestions().map((q, i) => {
      const value = q.type === "text" ? null : straight ? 3 : q.id === "check" ? 4 : 1 + ((i * 3) % 5);
      const chosen = q.answers.find((o) => o.value === value);
      return {
        questionId: q.id,
        questionText: q.text,
        selections: chosen ? [chosen] : [],
        textInput: q.type === "text" ? "Participant __N__: fine" : null,
      };
    }),
  );
}

/**
 * An active survey of each kind (pre, post, inter_session), each answered once by every participant of
 * the experiment (the inter-session one about their first session), timed (`duration_ms`) as the
 * survey form sends it: the pre survey `benchQuestions(questions)`, the others the rating survey above,
 * straight-lined by every twentieth participant, each response judged as the server judges it
 * (verdicts.ts). Returns the surveys' ids, pre first.
 */
export async function insertSurveyResponses(
  db: Db,
  experiment: string,
  questions: number,
): Promise<string[]> {
  const surveys = (["pre", "post", "inter_session"] as const).map((kind) => ({
    id: randomUUID(),
    experiment_id: experiment,
    kind,
    name: JSON.stringify(`The ${kind.replace("_", "-")} survey`),
    is_active: true,
    questions: JSON.stringify(kind === "pre" ? benchQuestions(questions) : ratingQuestions()),
  }));
  await db("surveys").insert(surveys);
  for (const [i, survey] of surveys.entries()) {
    const answers = (straight: boolean) =>
      survey.kind === "pre" ? benchAnswers(questions) : benchRatings(straight);
    await db.raw(
      `insert into survey_responses (id, survey_id, user_id, about_session_id, answers, duration_ms, created_at)
       select gen_random_uuid(), ?, u.id, ${survey.kind === "inter_session" ? "s.id" : "null"},
         replace(case when hashtext(u.login_id) % 20 = 0 then ? else ? end, '__N__', u.login_id)::jsonb,
         20000 + (hashtext(u.login_id) & 65535), u.created_at + interval '1 minute' + ? * interval '1 day'
       from users u
       left join lateral (select id from sessions where user_id = u.id order by created_at limit 1) s on true
       where u.experiment_id = ?`,
      [survey.id, answers(true), answers(false), i, experiment],
    );
    // The verdicts the server stores with each response (the insert above bypassed it).
    await rejudgeSurvey(db, survey.id);
  }
  // And the survey measures it sums with them.
  const users = (await db("users").where({ experiment_id: experiment }).select("id")) as { id: string }[];
  await refreshSurveyMeasures(
    db,
    experiment,
    users.map((u) => u.id),
  );
  return surveys.map((s) => s.id);
}
