import { EVALUATION_COUNTS } from "@feedlab/projector/read-models/evaluation/evaluation.counts.ts";

/**
 * analysis.py of a replication package: recomputes stats.json's counts and rates per arm and per
 * recommender from events and participants, with the definitions of the evaluation read model
 * (projector/src/read-models/evaluation) and of the stats service (api/src/results/stats.service.ts,
 * ratio.ts): the counted event types, the surface an event counts for, the researcher's exclusions
 * and the clustered 95% interval. The counted types come from the same constant as the projection's.
 * Under adaptive assignment (or with --weighted), also each arm's participants' own rates weighted by
 * 1/assignment_probability: the Hajek mean and seeded participant bootstrap of api/src/results/ipw.ts
 * (mulberry32 and armSeed ported, so the same participants in the same order give `/stats`' `ipw`,
 * interval included; docs/assignment.md, "Analysing each method").
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
    python3 analysis.py --weighted  # also the weighted figures below, whatever the assignment method

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

Weighted figures (docs/assignment.md, "Analysing each method"), when an analysed participant was
assigned by the adaptive method (Thompson sampling; its arm rates above are biased) or with --weighted:
- each analysed participant of an arm has their own ctr (feed_clicks / impressions), completion_rate
  (completions / plays), like_rate (likes / plays), each only with a denominator above 0, and finished
  (1 if participants.status is finished, else 0: the adaptive metric completion_rate);
- weighted: the self-normalised (Hajek) mean sum(m / p) / sum(1 / p), p the participant's
  assignment_probability (empty, as for a researcher's manual registration: 1), with a 95% percentile
  bootstrap interval: 1,000 resamples of the arm's participants with replacement, the 2.5% and 97.5%
  quantiles (linear interpolation); no interval with fewer than two participants. unweighted: the same
  with every p = 1. The resamples come from Feedlab's mulberry32 generator seeded with the arm's seed
  (study.yaml's assignment seed, 0 without, mixed with the arm's place in arms.csv), as /stats does.
- ipw (adaptive only): the weighted figure of study.yaml's assignment metric (default ctr;
  completion_rate is finished), as stats.json's groups hold it.
"""
import json
import math
import os
import sys

import numpy as np
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
OWN_RATES = list(RATES) + ["finished"]
RESAMPLES = 1000
MASK = 0xFFFFFFFF


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


def imul(a, b):
    """JavaScript's Math.imul as an unsigned 32-bit number (Python ints or numpy uint64 arrays)."""
    return (a * b) & MASK


def arm_seed(seed, arm):
    """The bootstrap seed of the arm at place arm (0-based) of arms.csv: api/src/results/ipw.ts's armSeed."""
    h = (seed ^ imul(arm + 1, 0x9E3779B1)) & MASK
    h ^= h >> 16
    h = imul(h, 0x85EBCA6B)
    h ^= h >> 13
    h = imul(h, 0xC2B2AE35)
    return h ^ (h >> 16)


def uniforms(seed, start, count):
    """Draws start + 1 to start + count of mulberry32(seed), Feedlab's seeded generator, in [0, 1)."""
    u = np.uint64
    # The generator's state only adds 0x6D2B79F5 each draw: the k-th state is seed + k * 0x6D2B79F5.
    t = (u(seed) + np.arange(start + 1, start + count + 1, dtype=u) * u(0x6D2B79F5)) & u(MASK)
    t = imul(t ^ (t >> u(15)), t | u(1)) & u(MASK)
    t = t ^ ((t + (imul(t ^ (t >> u(7)), t | u(61)) & u(MASK))) & u(MASK))
    return ((t ^ (t >> u(14))) & u(MASK)) / 4294967296.0


def hajek(values, probabilities, seed):
    """sum(m / p) / sum(1 / p) with its seeded 95% participant bootstrap interval (ipw.ts's ipwEstimate)."""
    n = len(values)
    if n == 0:
        return {"value": None, "low": None, "high": None}
    weights = [1 / p for p in probabilities]
    weighted = [w * m for w, m in zip(weights, values)]
    value = sum(weighted) / sum(weights)
    if n < 2:
        return {"value": value, "low": None, "high": None}
    w, wm = np.array(weights), np.array(weighted)
    means = np.empty(RESAMPLES)
    rows = max(1, 1000000 // n)
    for first in range(0, RESAMPLES, rows):
        count = min(rows, RESAMPLES - first)
        # Resample r takes draws r * n + 1 to (r + 1) * n, participant floor(draw * n) each.
        picks = np.floor(uniforms(seed, first * n, count * n) * n).astype(np.int64).reshape(count, n)
        means[first : first + count] = wm[picks].sum(axis=1) / w[picks].sum(axis=1)
    low, high = np.quantile(means, [0.025, 0.975])
    return {"value": value, "low": float(low), "high": float(high)}


def probability_of(cell):
    """assignment_probability as a number: 1 when empty (a researcher's manual registration), as /stats."""
    return 1.0 if cell is None or cell == "" else float(cell)


def own_rates(people, events, seed):
    """An arm's participants' own rates, weighted by 1/assignment_probability and not."""
    tally = events.groupby(["user_id", "column"]).size().to_dict() if len(events) else {}
    rows = list(zip(people["user_id"], people["status"], people["assignment_probability"].map(probability_of)))
    out = {"weighted": {}, "unweighted": {}}
    for name in OWN_RATES:
        values, probabilities = [], []
        for user, status, p in rows:
            if name == "finished":
                values.append(1.0 if status == "finished" else 0.0)
            else:
                y, x = RATES[name]
                if tally.get((user, x), 0) == 0:
                    continue
                values.append(tally.get((user, y), 0) / tally[(user, x)])
            probabilities.append(p)
        out["weighted"][name] = hajek(values, probabilities, seed)
        out["unweighted"][name] = hajek(values, [1.0] * len(values), seed)
    return out


def assignment_settings():
    """study.yaml's assignment settings (its top-level block of key: value lines), as text; {} without."""
    try:
        with open(os.path.join(HERE, "study.yaml"), encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return {}
    settings, inside = {}, False
    for line in lines:
        if not line.startswith(" "):
            inside = line.rstrip() == "assignment:"
        elif inside and not line.startswith("   "):
            key, colon, value = line.strip().partition(":")
            if colon:
                settings[key] = value.strip().strip('"')
    return settings


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
    people = read(
        "participants",
        ["user_id", "group_id", "assignment_method", "assignment_probability", "status", "simulated", "excluded"],
    )
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

    # Adaptive assignment's probabilities follow the arms' results so far: weigh. Under balanced, blocked
    # and minimisation they do not, and the arm rates are unbiased (--weighted shows the weighted ones).
    adaptive = bool((analysed["assignment_method"] == "adaptive").any())
    weigh = adaptive or "--weighted" in sys.argv[1:]
    settings = assignment_settings()
    metric = settings.get("metric") or "ctr"
    seed = int(settings["seed"]) if settings.get("seed", "").isdigit() else 0

    groups = []
    for place, arm in enumerate(arms.itertuples(index=False)):
        mine = events[events["group_id"] == arm.group_id]
        group = {
            "group_id": arm.group_id,
            "name": arm.name,
            "participants": int((analysed["group_id"] == arm.group_id).sum()),
            "excluded_participants": int(((real["group_id"] == arm.group_id) & is_true(real["excluded"])).sum()),
            **summarize(mine),
        }
        if weigh:
            group.update(own_rates(analysed[analysed["group_id"] == arm.group_id], mine, arm_seed(seed, place)))
        if adaptive:
            group["ipw"] = group["weighted"]["finished" if metric == "completion_rate" else metric]
        groups.append(group)
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
        if weigh:
            for kind in ("weighted", "unweighted"):
                print("    %s: " % kind + ", ".join("%s %s" % (n, rate(g[kind][n])) for n in OWN_RATES))
    if weigh:
        print("  weighted: participants' own rates averaged with weights 1/assignment_probability (Hajek);")
        print("  unweighted: the same, every weight 1; 95% intervals by a seeded participant bootstrap.")
        if adaptive:
            print("  Adaptive assignment: compare the arms on the weighted figures (ipw: %s)." % metric)
    print("Per recommender")
    for r in recommenders:
        print("  %s (%s): " % (r["key"], r["surface"]) + ", ".join("%s %d" % (c, r[c]) for c in COUNTS))
        print("    " + ", ".join("%s %s" % (name, rate(r[name])) for name in RATES))


if __name__ == "__main__":
    main()
`;
}
