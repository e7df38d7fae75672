#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Plot for docs/scaling.md from spgemm-split-bench CSVs (--csv): per input,
the speedup of each split configuration over the handle's device alone (same
run), for the whole pipeline and for a numeric phase again, with the target
(1.8x on two GPUs) as a line; and each configuration's spread of its parts'
numeric times (slowest / fastest) against its target (1.15).
Usage: bench/plot_scaling.py out.png [--mode SUFFIX ...] LABEL=run.csv [LABEL=run.csv ...]
  --mode: only the split modes with this suffix (spgemm-split-bench's mode
  column after the "/": dist, repl, dist+repl; "" for C assembled without
  replicas); default all."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rows_of(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


KINDS = {"": "assembled", "dist": "distributed", "repl": "assembled, replicas",
         "dist+repl": "distributed, replicas"}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runs, modes, args = [], [], sys.argv[2:]
    while args and args[0] == "--mode":
        modes.append(args[1])
        args = args[2:]
    for arg in args:
        label, path = arg.split("=", 1)
        runs.append((label, rows_of(path)))
    bars = []  # (label, matrix, whole x, again x, spread)
    for label, rows in runs:
        for r in rows:
            suffix = r["mode"].split("/", 1)[1] if "/" in r["mode"] else ""
            if modes and suffix not in modes:
                continue
            kind = KINDS.get(suffix, suffix)
            bars.append((f"{label}, {kind}", r["matrix"].replace(".mtx.gz", ""),
                         float(r["one_total_ms"]) / float(r["other_total_ms"]),
                         float(r["one_again_ms"]) / float(r["other_again_ms"]),
                         float(r["spread"])))
    matrices = list(dict.fromkeys(b[1] for b in bars))
    configs = list(dict.fromkeys(b[0] for b in bars))
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5), sharey=True)
    height = 0.8 / len(configs)
    for ax, column, title, target in ((axes[0], 2, "whole pipeline: speedup", 1.8),
                                      (axes[1], 3, "numeric again: speedup", 1.8),
                                      (axes[2], 4, "parts' numeric spread", 1.15)):
        for c, config in enumerate(configs):
            values = {b[1]: b[column] for b in bars if b[0] == config}
            ys = [m + c * height for m in range(len(matrices))]
            ax.barh(ys, [values.get(name, 0) for name in matrices], height, label=config)
        ax.axvline(target, color="k", linestyle="--", linewidth=1)
        ax.set_title(title)
    axes[0].set_yticks([m + 0.4 - height / 2 for m in range(len(matrices))])
    axes[0].set_yticklabels(matrices)
    axes[0].invert_yaxis()
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(configs), fontsize=9)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(sys.argv[1], dpi=110)


if __name__ == "__main__":
    main()
