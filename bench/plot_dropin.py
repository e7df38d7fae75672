#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The drop-in's speedup over cuSPARSE per input, from bench/dropin_bench.py's
CSV: one bar per input and framework, inputs ordered by nnz(C).

  plot_dropin.py CSV PNG"""
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    inputs = sorted({r["matrix"] for r in rows},
                    key=lambda m: int(next(r["nnz_c"] for r in rows if r["matrix"] == m)))
    frameworks = sorted({r["framework"] for r in rows})
    fig, ax = plt.subplots(figsize=(11, 4.2))
    width = 0.8 / len(frameworks)
    for k, fw in enumerate(frameworks):
        speed = {r["matrix"]: float(r["speedup"]) for r in rows if r["framework"] == fw}
        xs = [i + (k - (len(frameworks) - 1) / 2) * width for i in range(len(inputs))]
        gm = math.exp(sum(math.log(v) for v in speed.values()) / len(speed))
        ax.bar(xs, [speed.get(m, 0) for m in inputs], width, label=f"{fw} (geometric mean {gm:.2f}x)")
    ax.axhline(1, color="black", linewidth=0.8)
    ax.set_xticks(range(len(inputs)))
    ax.set_xticklabels([m.replace("gen:", "") for m in inputs], rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("A @ B: cuSPARSE time / drop-in time")
    dtype = rows[0]["dtype"]
    ax.set_title(f"CuPy and PyTorch unchanged, LD_PRELOAD=libspgemm_cusparse.so ({dtype}), inputs by nnz(C)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
