#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Side-by-side table of alternating runs of spgemm-bench (libraries A and B
run in turn in one call, each run's CSV tagged with its name).

  bench/ab_table.py RUNS.csv [--field lib_total_ms] [--field lib_symbolic_ms] [--markdown]
                   [--medians] [--guard BASE NEW]

RUNS.csv: spgemm-bench CSVs concatenated, each row prefixed by a `run`
column (repeated header lines are skipped), e.g. on the device machine:

  for t in old1 new1 old2 new2; do
    awk -v t=$t 'NR==1{print "run," $0; next}{print t "," $0}' b-$t.csv
  done > runs.csv

Prints one line per input, one column per run and field, in the order the
runs and inputs first appear. --medians: one column per library and field
instead, the median over its rounds (runs named library + round number,
old1 old2 ... -> old).

--guard BASE NEW: the verdict of a change that must keep the speed, on the
medians of the libraries' rounds: the geometric mean of NEW / BASE over the
inputs of each --field (at most 1.02), the input slowest against BASE (at
most 1.05), and the inputs whose peak workspace (lib_peak_bytes) grew
(none). Exits 1 where a bound fails."""
import argparse
import csv
import math
import re
import statistics
import sys


def load(path):
    runs, names, value = [], [], {}
    for row in csv.DictReader(open(path)):
        if row["run"] == "run":  # a header line of a later CSV
            continue
        if row["run"] not in runs:
            runs.append(row["run"])
        if row["name"] not in names:
            names.append(row["name"])
        value[row["run"], row["name"]] = row
    return runs, names, value


def cell(row, field):
    try:
        return f"{float(row[field]):.4g}"
    except (KeyError, TypeError, ValueError):
        return "-"


def medians(runs, names, value, fields):
    """The runs grouped by name less the round number, each field the
    median over the group's runs that have it."""
    rounds = {}
    for r in runs:
        rounds.setdefault(re.sub(r"\d+$", "", r), []).append(r)
    merged = {}
    for lib, mine in rounds.items():
        for n in names:
            row = {}
            for f in fields:
                xs = []
                for r in mine:
                    try:
                        xs.append(float(value[r, n][f]))
                    except (KeyError, TypeError, ValueError):
                        pass
                if xs:
                    row[f] = statistics.median(xs)
            merged[lib, n] = row
    return list(rounds), merged


def guard(names, libs, merged, fields, base, new, mean_bound=1.02, input_bound=1.05):
    ok = True
    for f in fields:
        ratios = [(merged[new, n][f] / merged[base, n][f], n) for n in names
                  if merged[base, n].get(f) and f in merged[new, n]]
        if not ratios:
            print(f"{f}: no input has both")
            ok = False
            continue
        mean = math.exp(statistics.fmean(math.log(r) for r, _ in ratios))
        worst, worst_name = max(ratios)
        print(f"{f}: {new}/{base} geometric mean {mean:.4f} over {len(ratios)} inputs "
              f"(bound {mean_bound}); slowest {worst_name} {worst:.4f} (bound {input_bound})")
        ok = ok and mean <= mean_bound and worst <= input_bound
    grew = [n for n in names if "lib_peak_bytes" in merged[new, n] and
            merged[new, n]["lib_peak_bytes"] > merged[base, n].get("lib_peak_bytes", math.inf)]
    print(f"lib_peak_bytes: higher on {len(grew)} inputs" + (f": {', '.join(grew)}" if grew else ""))
    ok = ok and not grew
    print("guard: " + ("holds" if ok else "FAILS"))
    return 0 if ok else 1


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs")
    p.add_argument("--field", action="append", help="a CSV column (default lib_total_ms)")
    p.add_argument("--markdown", action="store_true", help="a Markdown table")
    p.add_argument("--medians", action="store_true",
                   help="the median of each library's rounds (runs named library + round)")
    p.add_argument("--guard", nargs=2, metavar=("BASE", "NEW"),
                   help="the speed guard of NEW against BASE (implies --medians)")
    args = p.parse_args()
    fields = args.field or ["lib_total_ms"]
    runs, names, value = load(args.runs)
    if args.guard:
        sys.exit(guard(names, *medians(runs, names, value, fields + ["lib_peak_bytes"]),
                       fields, *args.guard))
    if args.medians:
        runs, value = medians(runs, names, value, fields)
    head = ["input"] + [f"{r} {f}" for f in fields for r in runs]
    lines = [[n] + [cell(value.get((r, n)), f) for f in fields for r in runs] for n in names]
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|---" * len(head) + "|")
        for line in lines:
            print("| " + " | ".join(line) + " |")
        return
    width = max(len(h) for h in head[1:])
    print(f"{head[0]:20} " + " ".join(f"{h:>{width}}" for h in head[1:]))
    for line in lines:
        print(f"{line[0]:20} " + " ".join(f"{c:>{width}}" for c in line[1:]))


if __name__ == "__main__":
    main()
