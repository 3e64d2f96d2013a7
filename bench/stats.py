"""Median and p95 of a list of milliseconds (nearest rank: with few repetitions p95 is the
slowest one, never an interpolation below it)."""

import math
import statistics


def summarize(samples):
    if not samples:
        return None
    ordered = sorted(samples)
    p95 = ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]
    return {"n": len(ordered), "median": round(statistics.median(ordered), 1),
            "p95": round(p95, 1), "min": round(ordered[0], 1), "max": round(ordered[-1], 1)}


def ratio(value, baseline):
    if value is None or not baseline:
        return None
    return round(value / baseline, 2)
