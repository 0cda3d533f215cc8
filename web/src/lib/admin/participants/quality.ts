import {
  type ParticipantQuality,
  QUALITY_FLAG_LABELS,
  QUALITY_FLAGS,
  QUALITY_MEASURES,
  QUALITY_THRESHOLDS,
  type QualityFlag,
} from "@feedlab/schemas/http/quality.ts";
import type { ApiClient } from "../../api/client.ts";
import { participantsApi } from "../../api/participants.ts";

/** Participant quality as the console shows it (docs/quality.md; api.md "Data quality and validity"). */

/** The most pages the list reads (1,000 participants each) before it stops asking. */
const MAX_PAGES = 20;

/**
 * The flags of every flagged participant, simulated ones included, by user id (pages of 1,000):
 * a participant without a flag is absent, as the list shows no badge for them.
 */
export async function flagsByUser(
  client: ApiClient,
  experimentId: string,
): Promise<Map<string, QualityFlag[]>> {
  const flags = new Map<string, QualityFlag[]>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const r = await participantsApi.quality(client, experimentId, {
      cursor,
      limit: 1000,
      includeSimulated: true,
      flagged: true,
    });
    for (const p of r.participants) flags.set(p.user_id, p.flags);
    if (!r.next_cursor) break;
    cursor = r.next_cursor;
  }
  return flags;
}

/** A flag as a badge: its readable name, and the rule it stands for as the tooltip. */
export const flagBadge = (flag: QualityFlag) => ({
  flag,
  label: QUALITY_FLAG_LABELS[flag],
  rule: QUALITY_FLAGS[flag],
});

/** One line of the participant page's quality table. */
export interface MeasureRow {
  readonly label: string;
  readonly value: string;
  /** The threshold that raises a flag, in words, or a dash for a measure without one. */
  readonly threshold: string;
  readonly description: string;
  readonly flagged: boolean;
}

const seconds = (s: number | null) => (s === null ? "—" : `${Math.round(s * 10) / 10} s`);
const yesNo = (b: boolean) => (b ? "Yes" : "No");

/** The measures of a participant beside their thresholds, flagged ones marked. */
export function measureRows(q: ParticipantQuality): MeasureRow[] {
  const t = QUALITY_THRESHOLDS;
  const has = (f: QualityFlag) => q.flags.includes(f);
  return [
    {
      label: "Active time",
      value: seconds(q.active_seconds),
      threshold: `under ${t.min_active_seconds} s`,
      description: QUALITY_MEASURES.active_seconds,
      flagged: has("low_active_time"),
    },
    {
      label: "Hidden share of the visit",
      value: q.hidden_share === null ? "—" : `${Math.round(q.hidden_share * 100)}%`,
      threshold: `over ${t.max_hidden_share * 100}%`,
      description: QUALITY_MEASURES.hidden_share,
      flagged: has("hidden_tab"),
    },
    {
      label: "Playback, visible / all",
      value: `${seconds(q.visible_watch_seconds)} / ${seconds(q.watch_seconds)}`,
      threshold: `visible under ${t.min_visible_watch_share * 100}% (from ${t.min_watch_seconds} s of playback)`,
      description: `${QUALITY_MEASURES.visible_watch_seconds}; ${QUALITY_MEASURES.watch_seconds}`,
      flagged: has("watched_hidden"),
    },
    {
      label: "Pointer events",
      value: `${q.pointer_events}${q.viewport_width === null ? "" : ` (viewport ${q.viewport_width} px)`}`,
      threshold: `none on a viewport wider than ${t.desktop_viewport_px} px`,
      description: QUALITY_MEASURES.pointer_events,
      flagged: has("no_pointer"),
    },
    {
      label: "Survey seconds per question",
      value: seconds(q.seconds_per_question),
      threshold: `under ${t.min_seconds_per_question} s`,
      description: QUALITY_MEASURES.seconds_per_question,
      flagged: has("speeding"),
    },
    {
      label: "Straight-lined",
      value: yesNo(q.straight_lined),
      threshold: "yes",
      description: QUALITY_MEASURES.straight_lined,
      flagged: has("straight_lined"),
    },
    {
      label: "Attention checks, passed / failed",
      value: `${q.attention.passed} / ${q.attention.failed}`,
      threshold: `${t.max_attention_failed + 1} or more failed`,
      description: `${QUALITY_MEASURES.attention_passed}; ${QUALITY_MEASURES.attention_failed}`,
      flagged: has("failed_attention_check"),
    },
    {
      label: "Recruiting ID under another login",
      value: yesNo(q.duplicate_recruiting_id),
      threshold: "yes",
      description: QUALITY_MEASURES.duplicate_recruiting_id,
      flagged: has("duplicate_recruiting_id"),
    },
  ];
}
