#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Products whose values change, from a `spgemm-bench --reuse` CSV: libspgemm's
whole pipeline and numeric phase run again against cuSPARSE's reuse family
(its first full run and reuse_compute again), per input and in geometric mean.

  reuse_table.py BENCH.csv [--min-products N]"""
import argparse
import csv
import math


def gmean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv")
    p.add_argument("--min-products", type=float, default=0)
    args = p.parse_args()
    rows = []
    for r in csv.DictReader(open(args.csv)):
        try:
            v = {k: float(r[k]) for k in ("products", "lib_total_ms", "lib_numeric_again_ms",
                                          "cusparse_reuse_first_ms", "cusparse_reuse_compute_ms")}
        except (KeyError, ValueError):
            continue
        if v["products"] >= args.min_products:
            rows.append((r["name"], v))
    rows.sort(key=lambda x: x[1]["products"])
    print(f"{'input':24s} {'products':>12s} {'lib total':>10s} {'lib num2':>9s} {'num2/total':>10s}"
          f" {'cuS reuse 1st':>13s} {'cuS compute':>11s} {'setup x':>8s} {'re-run x':>8s}")
    setup, rerun, share = [], [], []
    for name, v in rows:
        s = v["cusparse_reuse_first_ms"] / v["lib_total_ms"]
        t = v["cusparse_reuse_compute_ms"] / v["lib_numeric_again_ms"]
        f = v["lib_numeric_again_ms"] / v["lib_total_ms"]
        setup.append(s), rerun.append(t), share.append(f)
        print(f"{name[:24]:24s} {v['products']:12.3g} {v['lib_total_ms']:10.3f} "
              f"{v['lib_numeric_again_ms']:9.3f} {f:10.2f} {v['cusparse_reuse_first_ms']:13.3f} "
              f"{v['cusparse_reuse_compute_ms']:11.3f} {s:8.2f} {t:8.2f}")
    print(f"geometric mean over {len(rows)} inputs: setup {gmean(setup):.2f}x, re-run "
          f"{gmean(rerun):.2f}x cuSPARSE's reuse family; numeric again {gmean(share):.2f} of the "
          f"whole pipeline (worst {max(share) if share else float('nan'):.2f})")


if __name__ == "__main__":
    main()
