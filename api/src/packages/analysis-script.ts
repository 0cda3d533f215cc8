import { EVALUATION_COUNTS } from "@feedlab/projector/read-models/evaluation/evaluation.counts.ts";

/**
 * analysis.py of a replication package: recomputes stats.json's counts and rates per arm and per
 * recommender from events and participants, with the definitions of the evaluation read model
 * (projector/src/read-models/evaluation) and of the stats service (api/src/results/stats.service.ts,
 * ratio.ts): the counted event types, the surface an event counts for, the researcher's exclusions
 * and the clustered 95% interval. The counted types come from the same constant as the projection's.
 * Needs pandas; reads the Parquet copies when pyarrow is importable, the CSV files otherwise.
 */
export function analysisScript(): string {
  const counted = JSON.stringify(EVALUATION_COUNTS);
  return `#!/usr/bin/env python3
"""Recompute the per-arm and per-recommender figures of stats.json from this package's tables.

Needs pandas (Debian: apt install python3-pandas; elsewhere: pip install pandas). Reads the Parquet
copies when pyarrow is importable, the CSV files otherwise (or always with FEEDLAB_CSV=1).

    python3 analysis.py          # a table per arm and per recommender
    python3 analysis.py --json   # the same figures as JSON, shaped like stats.json

Definitions (Feedlab's evaluation read model and results, docs/packages.md):
- counted events: IMPRESSION -> impressions, FEED_CLICK -> feed_clicks, VIDEO_PLAY -> plays,
  VIDEO_ENDED -> completions, LIKE -> likes; each event counts for the arm in its group_id.
- participants a researcher excluded (participants.excluded) and simulated ones are left out of
  every count; an arm's participants are its other participants, with or without events.
- ctr = feed_clicks / impressions, completion_rate = completions / plays, like_rate = likes / plays:
  the ratio of sums, with a 95% interval that treats each participant as a cluster (delta method,
  n / (n - 1) small-sample factor; clipped at 0, and at 1 for a rate of at most 1).
- per recommender: an IMPRESSION counts for the watch page's recommender (algorithm_watch) when its
  payload's context is "related" and for the feed's (algorithm_feed) otherwise; FEED_CLICK for the
  feed's; VIDEO_PLAY, VIDEO_ENDED and LIKE for the watch page's.
"""
import json
import math
import os
import sys

import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
Z95 = 1.959963984540054
COUNTED = ${counted}
COUNTS = list(COUNTED.values())
RATES = {
    "ctr": ("feed_clicks", "impressions"),
    "completion_rate": ("completions", "plays"),
    "like_rate": ("likes", "plays"),
}


def parquet_readable():
    if os.environ.get("FEEDLAB_CSV") == "1":
        return False
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def read(name, columns):
    """A table's columns: every value as text (None or "" for an empty cell)."""
    if parquet_readable():
        frame = pd.read_parquet(os.path.join(HERE, name + ".parquet"), columns=columns)
        return frame.astype(object).where(frame.notna(), None)
    return pd.read_csv(os.path.join(HERE, name + ".csv"), usecols=columns, dtype=str, keep_default_na=False)


def is_true(series):
    return series.map(lambda v: str(v).lower() == "true").astype(bool)


def context_of(payload):
    if payload is None or payload == "":
        return None
    value = payload if isinstance(payload, dict) else json.loads(payload)
    return value.get("context") if isinstance(value, dict) else None


def clustered_ratio(pairs):
    """pairs: (numerator, denominator) per participant."""
    data = [(y, x) for y, x in pairs if x > 0 or y > 0]
    sum_x = sum(x for _, x in data)
    sum_y = sum(y for y, _ in data)
    if sum_x == 0:
        return {"value": None, "low": None, "high": None}
    ratio = sum_y / sum_x
    n = len(data)
    if n < 2:
        return {"value": ratio, "low": None, "high": None}
    squares = sum((y - ratio * x) ** 2 for y, x in data)
    se = math.sqrt((n / (n - 1)) * squares / sum_x**2)
    high = ratio + Z95 * se
    return {"value": ratio, "low": max(0.0, ratio - Z95 * se), "high": min(1.0, high) if ratio <= 1 else high}


def summarize(events):
    """Counts and rates of counted events (one row each, with user_id and column)."""
    per_user = events.groupby(["user_id", "column"]).size().unstack(fill_value=0)
    per_user = per_user.reindex(columns=COUNTS, fill_value=0)
    out = {c: int(per_user[c].sum()) for c in COUNTS}
    for rate, (y, x) in RATES.items():
        out[rate] = clustered_ratio(list(zip(per_user[y].tolist(), per_user[x].tolist())))
    return out


def main():
    arms = read("arms", ["group_id", "name"])
    people = read("participants", ["user_id", "group_id", "simulated", "excluded"])
    events = read("events", ["user_id", "group_id", "event_type", "algorithm_feed", "algorithm_watch", "payload"])

    real = people[~is_true(people["simulated"])]
    analysed = real[~is_true(real["excluded"])]
    kept = set(analysed["user_id"])
    events = events[events["event_type"].isin(list(COUNTED)) & events["user_id"].isin(kept)].copy()
    events["column"] = events["event_type"].map(COUNTED)
    related = (events["event_type"] == "IMPRESSION") & (events["payload"].map(context_of) == "related")
    on_feed = ((events["event_type"] == "IMPRESSION") & ~related) | (events["event_type"] == "FEED_CLICK")
    events["surface"] = on_feed.map(lambda f: "feed" if f else "watch")
    events["recommender"] = events["algorithm_feed"].where(on_feed, events["algorithm_watch"])

    groups = []
    for arm in arms.itertuples(index=False):
        mine = events[events["group_id"] == arm.group_id]
        groups.append({
            "group_id": arm.group_id,
            "name": arm.name,
            "participants": int((analysed["group_id"] == arm.group_id).sum()),
            "excluded_participants": int(((real["group_id"] == arm.group_id) & is_true(real["excluded"])).sum()),
            **summarize(mine),
        })
    recommenders = [
        {"key": key, "surface": surface, **summarize(rows)}
        for (surface, key), rows in sorted(events.groupby(["surface", "recommender"]), key=lambda g: g[0])
    ]
    result = {"groups": groups, "recommenders": recommenders}
    if "--json" in sys.argv[1:]:
        print(json.dumps(result, indent=2))
        return

    def rate(r):
        if r["value"] is None:
            return "-"
        interval = "" if r["low"] is None else " [%.4f, %.4f]" % (r["low"], r["high"])
        return "%.4f%s" % (r["value"], interval)

    print("Per arm (excluded and simulated participants left out)")
    for g in groups:
        print("  %s: %d participants (%d excluded)" % (g["name"], g["participants"], g["excluded_participants"]))
        print("    " + ", ".join("%s %d" % (c, g[c]) for c in COUNTS))
        print("    " + ", ".join("%s %s" % (name, rate(g[name])) for name in RATES))
    print("Per recommender")
    for r in recommenders:
        print("  %s (%s): " % (r["key"], r["surface"]) + ", ".join("%s %d" % (c, r[c]) for c in COUNTS))
        print("    " + ", ".join("%s %s" % (name, rate(r[name])) for name in RATES))


if __name__ == "__main__":
    main()
`;
}
