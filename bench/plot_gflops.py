#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Plot for docs/performance.md from one spgemm-bench CSV: GFLOPS per matrix of
libspgemm and cuSPARSE (same run), with the published peers' figures of
../shared/matrices/README.md beside them (measured elsewhere: markers, not
bars), and the device memory each library took beyond A, B and C.
Usage: bench/plot_gflops.py bench.csv README.md out.png [title]"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perf_table import ALIAS, published  # noqa: E402

PEERS = ["cuSPARSE", "nsparse", "spECK", "OpSparse"]  # the README's column order
MARKERS = {"nsparse": "v", "spECK": "^", "OpSparse": "D"}


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    rows = sorted(csv.DictReader(open(sys.argv[1])), key=lambda r: int(r["products"]))
    peers = published(sys.argv[2])
    title = sys.argv[4] if len(sys.argv) > 4 else os.path.basename(sys.argv[1])
    names = [r["name"] for r in rows]
    y = list(range(len(rows)))
    fig, (speed, memory) = plt.subplots(1, 2, figsize=(13, 0.38 * len(rows) + 2),
                                        sharey=True, gridspec_kw={"width_ratios": [3, 2]})
    h = 0.38
    speed.barh([i + h / 2 for i in y], [float(r["lib_gflops"]) for r in rows], h,
               label="libspgemm (this run)", color="tab:blue")
    speed.barh([i - h / 2 for i in y], [float(r["cusparse_gflops"]) for r in rows], h,
               label="cuSPARSE (this run)", color="tab:gray")
    for code, marker in MARKERS.items():
        xs, ys = [], []
        for i, r in enumerate(rows):
            peer = peers.get(ALIAS.get(r["name"], r["name"]), [])
            v = number(peer[PEERS.index(code)]) if len(peer) == len(PEERS) else None
            if v:
                xs.append(v)
                ys.append(i)
        speed.scatter(xs, ys, marker=marker, color="black", s=22, zorder=3,
                      label=f"{code} (published, H200)")
    speed.set_xscale("log")
    speed.set_xlabel("GFLOPS (2 x products / whole pipeline time)")
    speed.set_yticks(y)
    speed.set_yticklabels([f"{n} ({int(r['products']):.1e})" for n, r in zip(names, rows)],
                          fontsize=8)
    speed.legend(fontsize=8, loc="lower right")
    speed.grid(axis="x", which="both", alpha=0.3)

    memory.barh([i + h / 2 for i in y], [max(int(r["lib_peak_bytes"]), 1) / 1e6 for r in rows], h,
                label="libspgemm peak workspace", color="tab:blue")
    memory.barh([i - h / 2 for i in y], [max(int(r["cusparse_peak_bytes"]), 1) / 1e6 for r in rows],
                h, label="cuSPARSE buffer1 + buffer2", color="tab:gray")
    memory.set_xscale("log")
    memory.set_xlabel("device memory beyond A, B, C (MB)")
    memory.legend(fontsize=8, loc="lower right")
    memory.grid(axis="x", which="both", alpha=0.3)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(sys.argv[3], dpi=110)


if __name__ == "__main__":
    main()
