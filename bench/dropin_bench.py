#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""CuPy's and PyTorch's `A @ B` (sparse CSR, CUDA) timed on the real cuSPARSE
and under LD_PRELOAD of libspgemm_cusparse.so, unchanged programs both times.

  dropin_bench.py --lib LIBSPGEMM_CUSPARSE --csv OUT.csv [--repeat N]
                  [--dtype float64] MATRIX...

Each configuration runs in a worker process of its own (the interposer is
chosen at process start): plain first, then with LD_PRELOAD. Per matrix and
framework: 2 warm-up products, then the median of N timed ones (host clock
around `A @ B` and a device synchronization: the whole user-visible call,
C's allocation included). B = A for square A, A^T otherwise; 32-bit indices.
The CSV has one row per matrix and framework: matrix, rows, nnz_a, nnz_c,
framework, dtype, cusparse_ms, dropin_ms, speedup (cusparse_ms / dropin_ms).
"""
import argparse
import json
import math
import os
import pathlib
import re
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests" / "dropin"))
import dropin_mtx  # noqa: E402


def timed(fn, sync, repeat):
    for _ in range(2):
        fn()
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(1e3 * (time.perf_counter() - t0))
    return statistics.median(times)


def worker(matrices, repeat, dtype):
    have = {}
    for fw in ("cupy", "torch"):
        try:
            have[fw] = __import__(fw)
        except Exception as e:
            print(json.dumps({"error": f"{fw} not available: {e}"}), flush=True)
    for path in matrices:
        name = re.sub(r"\.mtx(\.gz)?$", "", os.path.basename(path))
        a, b = dropin_mtx.operands(path)
        for fw, mod in have.items():
            try:
                if fw == "cupy":
                    import cupyx.scipy.sparse as sp
                    cp = mod

                    def dev(m):
                        rows, cols, indptr, indices, values = m
                        return sp.csr_matrix(
                            (cp.asarray(dropin_mtx.typed_values(values, dtype)),
                             cp.asarray(indices.astype(np.int32)),
                             cp.asarray(indptr.astype(np.int32))), shape=(rows, cols))

                    sync = cp.cuda.Device().synchronize
                else:
                    torch = mod

                    def dev(m):
                        rows, cols, indptr, indices, values = m
                        return torch.sparse_csr_tensor(
                            torch.from_numpy(indptr.astype(np.int32)),
                            torch.from_numpy(indices.astype(np.int32)),
                            torch.from_numpy(dropin_mtx.typed_values(values, dtype)),
                            size=(rows, cols), device="cuda")

                    sync = torch.cuda.synchronize
                A, B = dev(a), dev(b)
                C = A @ B
                nnz_c = int(C.nnz) if fw == "cupy" else int(C.values().numel())
                ms = timed(lambda: A @ B, sync, repeat)
                del A, B, C
                print(json.dumps({"matrix": name, "rows": a[0], "nnz_a": int(a[2][-1]),
                                  "nnz_c": nnz_c, "framework": fw, "ms": ms}), flush=True)
            except Exception as e:
                print(json.dumps({"matrix": name, "framework": fw,
                                  "error": f"{type(e).__name__}: {e}"}), flush=True)


def run_worker(args, preload):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env.pop("SPGEMM_CUSPARSE_LOG", None)
    if preload:
        env["LD_PRELOAD"] = os.path.abspath(args.lib)
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--repeat", str(args.repeat),
           "--dtype", args.dtype] + args.matrices
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if out.returncode:
        print(out.stderr[-4000:], file=sys.stderr)
    rows = {}
    for line in out.stdout.splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if "error" in r:
            print(("drop-in " if preload else "plain ") + json.dumps(r))
            continue
        rows[(r["matrix"], r["framework"])] = r
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib")
    p.add_argument("--csv")
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--dtype", default="float64")
    p.add_argument("--worker", action="store_true")
    p.add_argument("matrices", nargs="+")
    args = p.parse_args()
    if args.worker:
        worker(args.matrices, args.repeat, args.dtype)
        return
    plain = run_worker(args, False)
    dropin = run_worker(args, True)
    lines = ["matrix,rows,nnz_a,nnz_c,framework,dtype,cusparse_ms,dropin_ms,speedup"]
    speedups = {}
    print(f"{'matrix':18s} {'framework':9s} {'nnz(C)':>10s} {'cuSPARSE ms':>12s} {'drop-in ms':>11s} {'speedup':>8s}")
    for key in sorted(plain, key=lambda k: (k[1], k[0])):
        if key not in dropin:
            continue
        x, y = plain[key], dropin[key]
        s = x["ms"] / y["ms"] if y["ms"] > 0 else float("nan")
        speedups.setdefault(key[1], []).append(s)
        lines.append(f"{key[0]},{x['rows']},{x['nnz_a']},{x['nnz_c']},{key[1]},{args.dtype},"
                     f"{x['ms']:.4f},{y['ms']:.4f},{s:.3f}")
        flag = "" if x["nnz_c"] == y["nnz_c"] else "  nnz(C) DIFFERS"
        print(f"{key[0]:18s} {key[1]:9s} {x['nnz_c']:10d} {x['ms']:12.3f} {y['ms']:11.3f} {s:8.2f}{flag}")
    for fw, ss in speedups.items():
        good = [s for s in ss if s > 0 and math.isfinite(s)]
        if good:
            g = math.exp(sum(math.log(s) for s in good) / len(good))
            print(f"{fw}: geometric-mean speedup {g:.2f} over {len(good)} matrices")
    if args.csv:
        pathlib.Path(args.csv).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
