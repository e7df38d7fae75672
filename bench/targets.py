#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Issue #3's four targets, checked against one spgemm-bench CSV (and the
published figures of ../shared/matrices/README.md for the first):
  1. inputs with >= 1M products: libspgemm at least the best published GFLOPS
     on each, >= 1.5x it in geometric mean, >= 6x cuSPARSE of the same run;
  2. inputs with < 100k products: whole pipeline <= 40 us;
  3. workspace beyond A, B, C <= 30% of C's bytes + O(rows) (taken here as
     ROW_BYTES per row of C) and never above cuSPARSE's buffers;
  4. inputs with >= 10M products ("the large matrices"): numeric again
     <= 60% of the whole pipeline.
Published figures come from another GPU where the CSV's device differs: the
first target is then context, not a verdict.
Usage: bench/targets.py bench.csv README.md"""
import csv
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perf_table import ALIAS, published  # noqa: E402

ROW_BYTES = 32


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def verdict(ok):
    return "met" if ok else "NOT met"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rows = list(csv.DictReader(open(sys.argv[1])))
    peers = published(sys.argv[2])
    f = lambda r, k: float(r[k])  # noqa: E731

    big = [r for r in rows if int(r["products"]) >= 1_000_000]
    vs_best, behind = [], []
    for r in big:
        peer = peers.get(ALIAS.get(r["name"], r["name"]), [])
        best = max((float(v) for v in peer if v.replace(".", "", 1).isdigit()), default=None)
        if best:
            vs_best.append(f(r, "lib_gflops") / best)
            if vs_best[-1] < 1:
                behind.append(f"{r['name']} {vs_best[-1]:.2f}x")
    vs_cusparse = [f(r, "speedup") for r in big]
    print(f"1. >= 1M products ({len(big)} inputs, {len(vs_best)} with published figures):")
    print(f"   vs best published: geomean {geomean(vs_best):.2f}x (target 1.5x), behind on "
          f"{len(behind)}: {', '.join(behind) or '-'}")
    print(f"   vs cuSPARSE (same run): geomean {geomean(vs_cusparse):.2f}x, min "
          f"{min(vs_cusparse):.2f}x (target 6x) -> "
          f"{verdict(not behind and geomean(vs_best) >= 1.5 and min(vs_cusparse) >= 6)}")

    small = [r for r in rows if int(r["products"]) < 100_000]
    slow = [f"{r['name']} {f(r, 'lib_total_ms') * 1e3:.0f} us" for r in small
            if f(r, "lib_total_ms") > 0.040]
    print(f"2. < 100k products ({len(small)} inputs): "
          + ", ".join(f"{r['name']} {f(r, 'lib_total_ms') * 1e3:.0f} us" for r in small)
          + f" (target 40 us) -> {verdict(not slow)}")

    over = []
    for r in rows:
        allowed = 0.3 * f(r, "c_bytes") + ROW_BYTES * f(r, "rows")
        if f(r, "lib_peak_bytes") > allowed or f(r, "lib_peak_bytes") > f(r, "cusparse_peak_bytes"):
            over.append(r["name"])
    worst = max(rows, key=lambda r: f(r, "lib_peak_bytes") / f(r, "c_bytes"))
    print(f"3. workspace ({len(rows)} inputs): largest share of C's bytes "
          f"{f(worst, 'lib_peak_bytes') / f(worst, 'c_bytes'):.1%} ({worst['name']}); over "
          f"30% of C + {ROW_BYTES} B/row or over cuSPARSE: {', '.join(over) or 'none'} -> "
          f"{verdict(not over)}")

    large = [r for r in rows if int(r["products"]) >= 10_000_000]
    share = [(r["name"], f(r, "lib_numeric_again_ms") / f(r, "lib_total_ms")) for r in large]
    missed = [n for n, s in share if s > 0.6]
    print(f"4. numeric again / whole pipeline, >= 10M products ({len(large)} inputs): "
          + ", ".join(f"{n} {s:.2f}" for n, s in share)
          + f" -> {verdict(not missed)}" + (f" (over 0.60: {', '.join(missed)})" if missed else ""))


if __name__ == "__main__":
    main()
