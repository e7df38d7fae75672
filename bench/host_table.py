#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The host backend's tables for docs/performance.md ("Host backend").

  bench/host_table.py BENCH.csv SCIPY.csv
      joins spgemm-bench's CSV (libspgemm's host backend and GraphBLAS, same
      run) with bench/host_scipy.py's CSV by input name: times, ratios and
      their geometric means
  bench/host_table.py --heap BENCH.csv
      each library's heap beyond A, B and C and the size of C, in kB
  bench/host_table.py --floor FLOOR.csv ONE.csv BENCH.csv SCIPY.csv
      spgemm-host-floor's serial loops beside SciPy and libspgemm on one
      thread (ONE.csv, spgemm-bench --threads 1) and on BENCH.csv's threads:
      SciPy / (count + sorted) times the threads is what a code with sorted
      rows reaches against SciPy at the floor's speed a core, scaling perfectly
"""
import csv
import math
import sys


def num(x):
    return float(x) if x not in ("", None) else math.nan


def fmt(x):
    return "-" if math.isnan(x) else (f"{x:.1f}" if x >= 10 else f"{x:.2f}")


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else math.nan


def times(bench, scipy):
    print("| input | products | nnz(C) | libspgemm ms | GraphBLAS ms | SciPy ms (1 thread) "
          "| GraphBLAS / lib | SciPy / lib |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|")
    vs_grb, vs_scipy = [], []
    for r in bench:
        lib, grb = num(r["lib_total_ms"]), num(r["graphblas_total_ms"])
        sp = num(scipy[r["name"]]["scipy_ms"]) if r["name"] in scipy else math.nan
        g = grb / lib
        s = sp / lib
        if not math.isnan(g):
            vs_grb.append(g)
        if not math.isnan(s):
            vs_scipy.append(s)
        print(f"| {r['name']} | {r['products']} | {r['nnz_c']} | {fmt(lib)} | {fmt(grb)} | "
              f"{fmt(sp)} | {fmt(g)}x | {fmt(s)}x |")
    print(f"\nGeometric means over {len(vs_grb)} inputs: GraphBLAS / lib {geomean(vs_grb):.2f}x "
          f"(least {min(vs_grb):.2f}x); over {len(vs_scipy)}: SciPy / lib {geomean(vs_scipy):.2f}x.")


def heap(bench):
    print("| input | nnz(C) | C kB | libspgemm heap kB | GraphBLAS heap kB |")
    print("|---|--:|--:|--:|--:|")
    kb = lambda b: "-" if math.isnan(num(b)) else f"{num(b) / 1e3:.1f}"
    at_most = 0
    for r in bench:
        print(f"| {r['name']} | {r['nnz_c']} | {kb(r['c_bytes'])} | {kb(r['lib_heap_bytes'])} | "
              f"{kb(r['graphblas_heap_bytes'])} |")
        at_most += num(r["lib_heap_bytes"]) <= num(r["graphblas_heap_bytes"])
    print(f"\nlibspgemm's heap at most GraphBLAS's on {at_most} of {len(bench)} inputs.")


def floor(loops, one, bench, scipy):
    print("| input | SciPy ms | count + unsorted ms | count + sorted ms | lib 1 thread ms "
          "| lib ms | SciPy / (count + unsorted) | SciPy / (count + sorted) x threads "
          "| SciPy / lib |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
    ratios = [[], [], []]
    threads = set()
    for r in bench:
        n = r["name"]
        if n not in loops or n not in scipy or n not in one:
            continue
        t = int(r["lib_threads"])
        threads.add(t)
        sp = num(scipy[n]["scipy_ms"])
        unsorted = num(loops[n]["count_ms"]) + num(loops[n]["unsorted_ms"])
        sorted_ = num(loops[n]["count_ms"]) + num(loops[n]["sorted_ms"])
        lib1, lib = num(one[n]["lib_total_ms"]), num(r["lib_total_ms"])
        row = [sp / unsorted, sp / sorted_ * t, sp / lib]
        for v, x in zip(ratios, row):
            v.append(x)
        print(f"| {n} | {fmt(sp)} | {fmt(unsorted)} | {fmt(sorted_)} | {fmt(lib1)} | {fmt(lib)} | "
              + " | ".join(f"{fmt(x)}x" for x in row) + " |")
    print(f"\nGeometric means over {len(ratios[0])} inputs (lib on {sorted(threads)} threads): "
          f"SciPy / (count + unsorted) {geomean(ratios[0]):.2f}x, SciPy / (count + sorted) x "
          f"threads {geomean(ratios[1]):.2f}x, SciPy / lib {geomean(ratios[2]):.2f}x.")


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--heap":
        with open(args[1]) as f:
            heap(list(csv.DictReader(f)))
    elif len(args) == 5 and args[0] == "--floor":
        tables = []
        for path in args[1:]:
            with open(path) as f:
                tables.append(list(csv.DictReader(f)))
        by_name = lambda rows: {r["name"]: r for r in rows}
        floor(by_name(tables[0]), by_name(tables[1]), tables[2], by_name(tables[3]))
    elif len(args) == 2:
        with open(args[0]) as f:
            bench = list(csv.DictReader(f))
        with open(args[1]) as f:
            times(bench, {r["name"]: r for r in csv.DictReader(f)})
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
