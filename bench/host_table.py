#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The host backend's table for docs/performance.md ("Host backend"): joins
spgemm-bench's CSV (libspgemm's host backend and GraphBLAS, same run) with
bench/host_scipy.py's CSV by input name, and prints a Markdown table with
the ratios and their geometric means.

  bench/host_table.py BENCH.csv SCIPY.csv
"""
import csv
import math
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        bench = list(csv.DictReader(f))
    with open(sys.argv[2]) as f:
        scipy = {r["name"]: r for r in csv.DictReader(f)}
    print("| input | products | nnz(C) | libspgemm ms | GraphBLAS ms | SciPy ms (1 thread) "
          "| GraphBLAS / lib | SciPy / lib | lib heap MB | GraphBLAS heap MB |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    vs_grb, vs_scipy = [], []
    def num(x):
        return float(x) if x not in ("", None) else math.nan
    for r in bench:
        lib, grb = num(r["lib_total_ms"]), num(r["graphblas_total_ms"])
        sp = num(scipy[r["name"]]["scipy_ms"]) if r["name"] in scipy else math.nan
        g = grb / lib
        s = sp / lib
        if not math.isnan(g):
            vs_grb.append(g)
        if not math.isnan(s):
            vs_scipy.append(s)
        mb = lambda b: f"{num(b) / 1e6:.2f}" if b else "-"
        fmt = lambda x: "-" if math.isnan(x) else (f"{x:.1f}" if x >= 10 else f"{x:.2f}")
        print(f"| {r['name']} | {r['products']} | {r['nnz_c']} | {fmt(lib)} | {fmt(grb)} | "
              f"{fmt(sp)} | {fmt(g)}x | {fmt(s)}x | {mb(r['lib_heap_bytes'])} | "
              f"{mb(r['graphblas_heap_bytes'])} |")
    geo = lambda v: math.exp(sum(math.log(x) for x in v) / len(v)) if v else math.nan
    print(f"\nGeometric means over {len(vs_grb)} inputs: GraphBLAS / lib {geo(vs_grb):.2f}x "
          f"(least {min(vs_grb):.2f}x); over {len(vs_scipy)}: SciPy / lib {geo(vs_scipy):.2f}x.")


if __name__ == "__main__":
    main()
