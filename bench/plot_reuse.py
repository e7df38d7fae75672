#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The AMG workflow's targets per input, from spgemm-bench --reuse CSVs of one
run (bench/device_reuse.sh --layouts): the 32/32 CSV first, then any 64-bit
layouts' CSVs. Three panels over the inputs of at least 10M products, ordered
by products, each with its target as a line:

  1. libspgemm's numeric phase again over its whole pipeline (target <= 0.50)
  2. cuSPARSE's reuse_compute over libspgemm's numeric again, and cuSPARSE's
     reuse first run over libspgemm's pipeline (targets >= 3 and >= 2.5)
  3. each 64-bit layout's pipeline over 32/32's (target <= 1.15)

  plot_reuse.py CSV_32 [CSV_64_32 CSV_64_64 ...] PNG"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LARGE = 10_000_000  # products: the "inputs of at least 10M products"


def load(path):
    return {r["name"]: r for r in csv.DictReader(open(path)) if r.get("lib_ok", "1") in ("1", "true", "True")}


def number(row, field):
    try:
        return float(row[field])
    except (KeyError, ValueError):
        return None


def bars(ax, inputs, series, targets, label):
    """One group of bars per input, a bar per series; targets: (value, name)."""
    width = 0.8 / len(series)
    for k, (name, values) in enumerate(series):
        xs = [i + (k - (len(series) - 1) / 2) * width for i in range(len(inputs))]
        ax.bar(xs, [values.get(m) or 0 for m in inputs], width, label=name)
    for (value, name), style in zip(targets, ("--", ":")):
        ax.axhline(value, color="black", linestyle=style, linewidth=0.9, label=name)
    ax.set_ylabel(label)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    base = load(sys.argv[1])
    others = [(path, load(path)) for path in sys.argv[2:-1]]
    inputs = sorted((m for m, r in base.items() if (number(r, "products") or 0) >= LARGE),
                    key=lambda m: number(base[m], "products"))
    if not inputs:
        sys.exit("no input of at least 10M products")
    fig, axes = plt.subplots(3, 1, figsize=(13, 10), sharex=True)

    again = {m: number(base[m], "lib_numeric_again_ms") / number(base[m], "lib_total_ms") for m in inputs}
    bars(axes[0], inputs, [("libspgemm: numeric again / pipeline", again)],
         [(0.5, "target: at most 0.5")], "time ratio")

    def over(num, den):
        return {m: number(base[m], num) / number(base[m], den)
                for m in inputs if number(base[m], num) and number(base[m], den)}
    bars(axes[1], inputs,
         [("cuSPARSE reuse_compute / libspgemm numeric again",
           over("cusparse_reuse_compute_ms", "lib_numeric_again_ms")),
          ("cuSPARSE reuse first run / libspgemm pipeline",
           over("cusparse_reuse_first_ms", "lib_total_ms"))],
         [(3.0, "re-run target: at least 3"), (2.5, "setup target: at least 2.5")],
         "cuSPARSE time / libspgemm time")
    axes[1].axhline(1.0, color="grey", linewidth=0.6)

    layouts = []
    for path, rows in others:
        layout = next(iter(rows.values()))["index"]
        layouts.append((f"{layout} pipeline / 32/32",
                        {m: number(rows[m], "lib_total_ms") / number(base[m], "lib_total_ms")
                         for m in inputs if m in rows}))
    if layouts:
        bars(axes[2], inputs, layouts, [(1.15, "target: at most 1.15")], "time ratio")
        axes[2].axhline(1.0, color="grey", linewidth=0.6)
    axes[2].set_xticks(range(len(inputs)))
    axes[2].set_xticklabels(inputs, rotation=45, ha="right", fontsize=8)
    first = next(iter(base.values()))
    fig.suptitle(f"AMG workflow targets, {first['precision']}, {first['device'].split(' (')[0]}, "
                 f"inputs of at least 10M products by products")
    fig.tight_layout()
    fig.savefig(sys.argv[-1], dpi=110)


if __name__ == "__main__":
    main()
