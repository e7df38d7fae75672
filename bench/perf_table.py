#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Markdown table for docs/performance.md from a spgemm-bench CSV, with the
published figures of ../shared/matrices/README.md beside our own.
Usage: bench/perf_table.py bench.csv [published README.md]"""
import csv
import sys

ALIAS = {"poisson2d:700": "poisson2d_700", "stencil27:64": "poisson3d_64",
         "rmat:16:16": "rmat_16_16_7", "uniform:500000:8": "uniform_500000_8_9",
         "banded:500000:16": "band_500000_16"}


def published(path):
    """matrix -> [cuSPARSE, nsparse, spECK, OpSparse] GFLOPS ('' = could not run)."""
    table = {}
    for line in open(path):
        cells = [c.strip() for c in line.split("|")]
        if len(cells) < 8 or not cells[1] or cells[1] in ("matrix", "family") or cells[1].startswith("-"):
            continue
        table[cells[1]] = cells[7:11] if len(cells) > 10 else cells[3:7]
    return table


def ratio(r, best):
    return f"{float(r['lib_gflops']) / best[0]:.2f}x" if best else "-"


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    peers = published(sys.argv[2]) if len(sys.argv) > 2 else {}
    print("| matrix | products | nnz(C) | libspgemm ms | libspgemm GFLOPS | analyze / symbolic / alloc / numeric ms "
          "| numeric again ms | lib peak workspace MB | cuSPARSE ms | cuSPARSE GFLOPS | cuSPARSE buffers MB "
          "| vs cuSPARSE | best published GFLOPS (code) | vs best published |")
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|---:|")
    for r in rows:
        f = lambda k: float(r[k])
        peer = peers.get(ALIAS.get(r["name"], r["name"]), [])
        named = [(float(v), code) for v, code in zip(peer, ["cuSPARSE", "nsparse", "spECK", "OpSparse"])
                 if v.replace(".", "", 1).isdigit()]
        best = max(named) if named else None
        print(f"| {r['name']} | {int(r['products']):,} | {int(r['nnz_c']):,} | {f('lib_total_ms'):.3g} "
              f"| {f('lib_gflops'):.3g} | {f('lib_analyze_ms'):.2g} / {f('lib_symbolic_ms'):.2g} / "
              f"{f('lib_alloc_ms'):.1g} / {f('lib_numeric_ms'):.3g} | {f('lib_numeric_again_ms'):.3g} "
              f"| {f('lib_peak_bytes') / 1e6:.3g} | {f('cusparse_total_ms'):.3g} | {f('cusparse_gflops'):.3g} "
              f"| {f('cusparse_peak_bytes') / 1e6:.4g} | {f('speedup'):.2f}x "
              f"| {f'{best[0]:g} ({best[1]})' if best else '-'} "
              f"| {ratio(r, best)} |")


if __name__ == "__main__":
    main()
