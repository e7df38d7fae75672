#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Products whose values change, from `spgemm-bench --reuse` CSVs: libspgemm's
whole pipeline and numeric phase run again against cuSPARSE's reuse family
(its first full run and reuse_compute again), per input and in geometric mean.
One table per index layout and precision found in the CSVs (fields `index`
and `precision`; CSVs without `index` are 32/32), each labelled unless it is
the only one and 32/32 double. Where cuSPARSE's reuse family does not take
the layout or type (`cusparse_reuse_note`), its columns read n/a.

  reuse_table.py BENCH.csv [BENCH.csv ...] [--min-products N]"""
import argparse
import csv
import math

LIB = ("products", "lib_total_ms", "lib_numeric_again_ms")
CUS = ("cusparse_reuse_first_ms", "cusparse_reuse_compute_ms")


def gmean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def combination(row):
    """(index layout, precision) of a CSV row."""
    return row.get("index") or "32/32", row.get("precision") or "double"


def numbers(row, fields):
    """The fields as floats, or None where one is missing."""
    try:
        return {k: float(row[k]) for k in fields}
    except (KeyError, TypeError, ValueError):
        return None


def load(paths):
    """{(index, precision): [csv rows]}, in the order first seen."""
    groups = {}
    for path in paths:
        with open(path) as f:
            for row in csv.DictReader(f):
                groups.setdefault(combination(row), []).append(row)
    return groups


def table(rows, min_products):
    # Inputs cuSPARSE's reuse family does not take are listed with n/a;
    # inputs it failed on are left out, as the geometric means need both.
    kept, notes = [], set()
    for r in rows:
        v = numbers(r, LIB)
        if v is None or v["products"] < min_products:
            continue
        cus = numbers(r, CUS)
        if cus is None and not r.get("cusparse_reuse_note"):
            continue
        if cus is None:
            notes.add(r["cusparse_reuse_note"])
        kept.append((r["name"], v, cus))
    kept.sort(key=lambda x: x[1]["products"])
    print(f"{'input':24s} {'products':>12s} {'lib total':>10s} {'lib num2':>9s} {'num2/total':>10s}"
          f" {'cuS reuse 1st':>13s} {'cuS compute':>11s} {'setup x':>8s} {'re-run x':>8s}")
    setup, rerun, share = [], [], []
    for name, v, cus in kept:
        f = v["lib_numeric_again_ms"] / v["lib_total_ms"]
        share.append(f)
        line = (f"{name[:24]:24s} {v['products']:12.3g} {v['lib_total_ms']:10.3f} "
                f"{v['lib_numeric_again_ms']:9.3f} {f:10.2f}")
        if cus is None:
            print(f"{line} {'n/a':>13s} {'n/a':>11s} {'n/a':>8s} {'n/a':>8s}")
            continue
        s = cus["cusparse_reuse_first_ms"] / v["lib_total_ms"]
        t = cus["cusparse_reuse_compute_ms"] / v["lib_numeric_again_ms"]
        setup.append(s), rerun.append(t)
        print(f"{line} {cus['cusparse_reuse_first_ms']:13.3f} "
              f"{cus['cusparse_reuse_compute_ms']:11.3f} {s:8.2f} {t:8.2f}")
    worst = max(share) if share else float("nan")
    if setup or not notes:
        print(f"geometric mean over {len(kept)} inputs: setup {gmean(setup):.2f}x, re-run "
              f"{gmean(rerun):.2f}x cuSPARSE's reuse family; numeric again {gmean(share):.2f} of the "
              f"whole pipeline (worst {worst:.2f})")
    else:
        print(f"geometric mean over {len(kept)} inputs: numeric again {gmean(share):.2f} of the "
              f"whole pipeline (worst {worst:.2f})")
    for note in sorted(notes):
        print(f"n/a: {note}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv", nargs="+")
    p.add_argument("--min-products", type=float, default=0)
    args = p.parse_args()
    groups = load(args.csv)
    labelled = len(groups) > 1 or list(groups) != [("32/32", "double")]
    for k, (key, rows) in enumerate(groups.items()):
        if labelled:
            print(f"{chr(10) if k else ''}index {key[0]}, precision {key[1]}:")
        table(rows, args.min_products)


if __name__ == "__main__":
    main()
