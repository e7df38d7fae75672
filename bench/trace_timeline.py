#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reads a CUPTI trace written by libspgemm-trace.so (bench/trace/cupti_trace.cpp).

  bench/trace_timeline.py TRACE.csv --kernels
      every kernel by name and device: launches, median / least / most us
  bench/trace_timeline.py TRACE.csv --against OTHER.csv [--runs N]
      each kernel by name without its template arguments, its time summed
      over its launches in both traces (divided by N, the runs each holds),
      and OTHER's over TRACE's; the kernels under 2% of both together are
      left out of the lines, not of the sum
  bench/trace_timeline.py TRACE.csv --between cudaStreamSynchronize 20 22
      the timeline from the 20th to the 22nd call of that API (the bench
      synchronizes before each repetition), one line a record: its start
      relative to the first, its length (us), who (T<n>: a host thread's API
      call, G<d>s<s>: device d, stream s), its name and detail (grid x block,
      bytes). Polls and error queries are left out.
  bench/trace_timeline.py TRACE.csv --loop 12 24
      the kernels of the 12th and of the 24th timed iteration, summed by
      bare name: an iteration begins where a cudaStreamSynchronize returns
      right before a cudaEventRecord (the timed loops of spgemm-bench and
      spgemm-amg-bench) and ends where the next begins; with each, its
      kernels' count, their time summed and their span (first start to last
      end, shorter than the sum where streams overlap).
"""
import argparse
import collections
import csv
import re
import statistics

QUIET = ("cudaGetDevice", "cudaGetLastError", "cudaPeekAtLastError", "cudaStreamQuery",
         "cudaEventElapsedTime", "cudaSetDevice")


def load(path):
    rows = list(csv.DictReader(open(path)))
    for r in rows:
        r["s"], r["e"] = int(r["start_ns"]), int(r["end_ns"])
    rows.sort(key=lambda r: r["s"])
    return rows


def kernels(rows):
    times = {}
    for r in rows:
        if r["kind"] == "kernel":
            times.setdefault((r["name"], r["device"]), []).append((r["e"] - r["s"]) / 1e3)
    print(f"{'kernel':40} dev  launches  median_us  least_us  most_us")
    for (name, device), t in sorted(times.items(), key=lambda kv: -sum(kv[1])):
        print(f"{name[:40]:40} {device:>3} {len(t):9} {statistics.median(t):10.2f} "
              f"{min(t):9.2f} {max(t):8.2f}")


def bare(name):
    """A kernel's name without its namespaces, template arguments and parameters."""
    return re.sub(r"[<(].*", "", name.removeprefix("void ")).split("::")[-1]


def kernel_sums(rows):
    """Each kernel's time (us) summed over its launches, by its bare name."""
    sums = collections.Counter()
    for r in rows:
        if r["kind"] == "kernel":
            sums[bare(r["name"])] += (r["e"] - r["s"]) / 1e3
    return sums


def against(rows, other_rows, runs):
    a, b = kernel_sums(rows), kernel_sums(other_rows)
    total_a, total_b = sum(a.values()) / runs, sum(b.values()) / runs
    print(f"{'kernel, us a run':40} {'trace':>10} {'other':>10} {'other/trace':>11}")
    for name in sorted(set(a) | set(b), key=lambda k: -(a[k] + b[k])):
        x, y = a[name] / runs, b[name] / runs
        if x + y >= 0.02 * (total_a + total_b):
            print(f"{name[:40]:40} {x:10.1f} {y:10.1f} {y / x if x else float('nan'):11.3f}")
    print(f"{'all kernels':40} {total_a:10.1f} {total_b:10.1f} {total_b / total_a:11.3f}")


def loop_iterations(rows, wanted):
    calls = [r for r in rows if r["kind"] == "api" and not r["name"].startswith(QUIET)]
    starts = [a["e"] for a, b in zip(calls, calls[1:])
              if a["name"].startswith("cudaStreamSynchronize")
              and b["name"].startswith("cudaEventRecord")]
    ends = starts[1:] + [max(r["e"] for r in rows)]
    print(f"{len(starts)} timed iterations")
    for n in wanted:
        if not 1 <= n <= len(starts):
            raise SystemExit(f"no iteration {n}: {len(starts)} timed iterations")
        inside = [r for r in rows
                  if r["kind"] == "kernel" and starts[n - 1] <= r["s"] < ends[n - 1]]
        if not inside:
            print(f"iteration {n}: no kernel")
            continue
        span = (max(r["e"] for r in inside) - min(r["s"] for r in inside)) / 1e3
        sums, counts = kernel_sums(inside), collections.Counter(bare(r["name"]) for r in inside)
        print(f"iteration {n}: {len(inside)} kernels, {sum(sums.values()):.1f} us summed, "
              f"{span:.1f} us first start to last end")
        for name, us in sums.most_common():
            print(f"  {name[:40]:40} {counts[name]:4} {us:10.1f}")


def between(rows, api, first, last):
    calls = [i for i, r in enumerate(rows) if r["kind"] == "api" and r["name"].startswith(api)]
    if last >= len(calls):
        raise SystemExit(f"only {len(calls)} calls of {api}")
    a, b = calls[first], calls[last]
    threads = {}
    base = rows[a]["s"]
    for r in rows[a:b + 1]:
        if r["kind"] == "api":
            who = "T%d" % threads.setdefault(r["stream"], len(threads))
            if r["name"].startswith(QUIET):
                continue
        else:
            who = f"G{r['device']}s{r['stream']}"
        print(f"{(r['s'] - base) / 1e3:10.2f} {(r['e'] - r['s']) / 1e3:8.2f} {who:7} "
              f"{r['name'][:40]:40} {r['detail']}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("trace")
    p.add_argument("--kernels", action="store_true")
    p.add_argument("--against", metavar="OTHER")
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--between", nargs=3, metavar=("API", "FIRST", "LAST"))
    p.add_argument("--loop", nargs="+", type=int, metavar="N")
    args = p.parse_args()
    rows = load(args.trace)
    if args.kernels:
        kernels(rows)
    if args.against:
        against(rows, load(args.against), args.runs)
    if args.loop:
        loop_iterations(rows, args.loop)
    if args.between:
        between(rows, args.between[0], int(args.between[1]), int(args.between[2]))


if __name__ == "__main__":
    main()
