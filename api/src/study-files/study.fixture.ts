import type { Experiment, Group, UiTemplate, Video } from "@feedlab/schemas";
import { expect } from "vitest";
import type { Client } from "../../../test/harness/app.ts";
import { FEED_SOURCE } from "../../../test/harness/fixtures.ts";

/** A secret the external recommender is called with: it must never appear in an export. */
export const SECRET = "Bearer s3cr3t-token-never-exported";

async function ok<T>(call: Promise<{ status: number; body: unknown }>, status: number): Promise<T> {
  const r = await call;
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  return r.body as T;
}

/** Every kind of resource a study document holds, each field set to something other than its default. */
export interface RichStudy {
  readonly experiment: Experiment;
  readonly groups: Group[];
  readonly layout: UiTemplate;
  readonly videos: Video[];
  readonly recommenderKey: string;
}

/**
 * A study using every part of a document: consent, completion, rules and a response floor; an arm on
 * an external recommender with a secret header and recommender parameters, on a code layout; another
 * on a built-in and a preset; a pool with full metadata; an active pre survey with an attention check
 * and an inactive post survey. `tag` keeps shared resources (keys, external ids) apart per study.
 */
export async function richStudy(
  admin: Client,
  tag: string,
  recommenderUrl = "http://127.0.0.1:9/recommend",
): Promise<RichStudy> {
  const recommenderKey = `ext-${tag}`;
  await ok(
    admin.post("/api/v1/admin/recommenders", {
      key: recommenderKey,
      kind: "external_http",
      label: `External ${tag}`,
      description: "A lab's own ranking service",
      category: "lab",
      supports_feed: true,
      supports_watch: true,
      config: {
        url: recommenderUrl,
        timeout_seconds: 2,
        headers: { Authorization: SECRET },
        body_template: { user: "{user_id}", n: "{limit}", boost: "{boost}" },
      },
    }),
    201,
  );
  const layout = await ok<UiTemplate>(
    admin.post("/api/v1/admin/ui-templates", {
      name: `Lab feed ${tag}`,
      page: "feed",
      template_type: "code",
      source: FEED_SOURCE,
    }),
    201,
  );
  const experiment = await ok<Experiment>(
    admin.post("/api/v1/admin/experiments", {
      name: `Study ${tag}`,
      description: "Does ranking change watching?",
    }),
    201,
  );
  await ok(
    admin.patch(`/api/v1/admin/experiments/${experiment.id}`, {
      consent_text: "# Taking part\n\nYou will watch short videos.",
      completion: { after_sessions: 2, code: "ABC123", redirect_url: "https://example.org/done?c={code}" },
      exclusion_rules: [{ measure: "active_seconds", op: "<", value: 30 }],
      min_response_ms: 250,
    }),
    200,
  );
  const groups = [
    await ok<Group>(
      admin.post(`/api/v1/admin/experiments/${experiment.id}/groups`, {
        name: "Ranked",
        weight: 2,
        algorithm_config: { feed: recommenderKey, watch: "similarity" },
        ui_config: { feed: layout.id, watch: "list-desktop" },
        recommender_params: { [recommenderKey]: { boost: 1.5 } },
        cap: 400,
      }),
      201,
    ),
    await ok<Group>(
      admin.post(`/api/v1/admin/experiments/${experiment.id}/groups`, {
        name: "Random",
        algorithm_config: { feed: "random", watch: "random" },
        ui_config: { feed: "grid-desktop", watch: "grid-desktop" },
      }),
      201,
    ),
  ];
  // Blocks of six fit the arms' weights (2 and 1), so the method is set once both exist.
  await ok(
    admin.patch(`/api/v1/admin/experiments/${experiment.id}`, {
      assignment: { method: "blocked", block_size: 6, counts: "consented", stale_minutes: 30, seed: 7 },
      prolific: { study_id: "60f1a2b3c4d5e6f7a8b9c0d1", on_finish: "approve" },
    }),
    200,
  );
  const { videos } = await ok<{ videos: Video[] }>(
    admin.post("/api/v1/admin/videos", {
      videos: [1, 2, 3].map((i) => ({
        external_id: `${tag}-v${i}`,
        url: `https://cdn.example.org/${tag}/${i}.mp4`,
        title: `Video ${i} of ${tag}`,
        channel_name: "Lab channel",
        category: i === 1 ? "news" : "music",
        description: `The ${i}th video.`,
        tags: ["a", `t${i}`],
        duration_seconds: 30 + i,
        view_count: 1000 * i,
        thumbnail_url: `https://cdn.example.org/${tag}/${i}.jpg`,
        published_at: `2024-03-0${i}T10:00:00.000Z`,
        comments: [{ author: "Ann", text: "Nice" }],
        captions: [{ lang: "en", url: `https://cdn.example.org/${tag}/${i}.vtt`, label: "English" }],
      })),
    }),
    201,
  );
  await ok(
    admin.put(`/api/v1/admin/experiments/${experiment.id}/videos`, { video_ids: videos.map((v) => v.id) }),
    200,
  );
  const options = [
    { id: "no", text: "Disagree", value: 1 },
    { id: "mid", text: "Neither", value: 2 },
    { id: "yes", text: "Agree", value: 3 },
  ];
  await ok(
    admin.post(`/api/v1/admin/experiments/${experiment.id}/surveys`, {
      kind: "pre",
      name: "Before",
      is_active: true,
      questions: [
        { id: "q1", text: "I watch videos daily.", type: "single", answers: options },
        { id: "q2", text: "Choose Agree.", type: "single", answers: options, attention_answer: 3 },
        { id: "q3", text: "Anything else?", type: "text", answers: [], required: false },
      ],
    }),
    201,
  );
  await ok(
    admin.post(`/api/v1/admin/experiments/${experiment.id}/surveys`, {
      kind: "post",
      name: "After",
      questions: [
        { id: "m", text: "Which did you see?", type: "multi", answers: options, minSelect: 1, maxSelect: 2 },
      ],
    }),
    201,
  );
  return { experiment, groups, layout, videos, recommenderKey };
}
