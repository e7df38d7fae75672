#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""SciPy's C = A*A (A*A^T for rectangular A), single-threaded, on Matrix
Market files: the CPU baseline beside spgemm-bench's host backend and
GraphBLAS. Optional (needs scipy); spgemm-bench --save-inputs DIR writes the
generated inputs for it.

  bench/host_scipy.py [--reps N] [--warmup N] [--no-huge-pages] [--csv FILE] FILE.mtx[.gz] ...

Times `A @ B` on CSR float64 (or float32 with --precision float) matrices
with 32-bit indices, medians of --reps runs after --warmup; B = A^T is built
before timing. SciPy's product leaves C's rows unsorted (libspgemm and
GraphBLAS sort them); the time excludes sorting, as SciPy's users see it.
NumPy advises its arrays of 4 MiB or more to transparent huge pages, C's
included (spgemm-bench --huge-pages does the same for its peers);
--no-huge-pages turns that off (numpy's _set_madvise_hugepage).
"""
import argparse
import csv
import gzip
import os
import statistics
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--precision", choices=["double", "float"], default="double")
    ap.add_argument("--no-huge-pages", action="store_true")
    ap.add_argument("--csv")
    args = ap.parse_args()
    try:
        import numpy as np
        import scipy
        import scipy.io
        import scipy.sparse
    except ImportError as e:
        sys.exit(f"host_scipy.py needs numpy and scipy ({e}): pip install scipy")
    dtype = np.float64 if args.precision == "double" else np.float32
    multiarray = np._core.multiarray if hasattr(np, "_core") else np.core.multiarray
    huge = not args.no_huge_pages
    multiarray._set_madvise_hugepage(huge)
    rows = []
    print(f"SciPy {scipy.__version__}, numpy {np.__version__}, {args.precision}, "
          f"1 thread (SciPy's sparse product is serial), "
          f"huge-page advice {'on' if huge else 'off'}")
    print(f"{'matrix':<26} {'rows':>9} {'nnz(A)':>11} {'nnz(C)':>11} {'scipy ms':>9}")
    for path in args.files:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rb") as f:
            a = scipy.sparse.csr_matrix(scipy.io.mmread(f), dtype=dtype)
        a.sum_duplicates()
        b = a if a.shape[0] == a.shape[1] else scipy.sparse.csr_matrix(a.T)
        times = []
        c = None
        for rep in range(args.warmup + args.reps):
            c = None
            start = time.perf_counter()
            c = a @ b
            ms = (time.perf_counter() - start) * 1e3
            if rep >= args.warmup:
                times.append(ms)
        name = os.path.basename(path)
        for ext in (".mtx.gz", ".mtx"):
            if name.endswith(ext):
                name = name[: -len(ext)]
        med = statistics.median(times)
        print(f"{name:<26} {a.shape[0]:>9} {a.nnz:>11} {c.nnz:>11} {med:>9.1f}")
        rows.append({"name": name, "rows": a.shape[0], "nnz_a": a.nnz, "nnz_c": c.nnz,
                     "scipy_ms": f"{med:.3f}", "scipy": scipy.__version__,
                     "precision": args.precision, "threads": 1, "reps": args.reps,
                     "huge_pages": int(huge)})
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
