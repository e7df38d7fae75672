#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Real clients of cuSPARSE's SpGEMM, unchanged, with and without the drop-in:
CuPy (`A @ B` on cupyx.scipy.sparse.csr_matrix) and PyTorch (sparse CSR @
sparse CSR on CUDA).

  dropin_clients.py run --lib LIBSPGEMM_CUSPARSE --work DIR MATRIX...
      runs `compute` twice (plain, then with LD_PRELOAD=LIB and
      SPGEMM_CUSPARSE_LOG), compares, prints the comparison and a summary of
      the drop-in's log (which path each call took). Exit 1 on a difference
      or where the drop-in's log shows no call computed by libspgemm.
  dropin_clients.py compute DIR MATRIX...   C for each matrix, framework and
      value type, saved as DIR/<matrix>-<framework>-<dtype>.npz
  dropin_clients.py compare DIR1 DIR2
"""
import argparse
import collections
import os
import pathlib
import re
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import dropin_mtx  # noqa: E402

DTYPES = ["float32", "float64", "complex64", "complex128"]


def name_of(path):
    return re.sub(r"\.mtx(\.gz)?$", "", os.path.basename(path))


def product_cupy(a, b, dtype):
    import cupy as cp
    import cupyx.scipy.sparse as sp

    def dev(m):
        rows, cols, indptr, indices, values = m
        return sp.csr_matrix((cp.asarray(dropin_mtx.typed_values(values, dtype)),
                              cp.asarray(indices.astype(np.int32)),
                              cp.asarray(indptr.astype(np.int32))), shape=(rows, cols))

    A, B = dev(a), dev(b)
    C = A @ B
    cp.cuda.Device().synchronize()
    return C.indptr.get(), C.indices.get(), C.data.get()


def product_torch(a, b, dtype, index=np.int32):
    import torch

    tdtype = getattr(torch, dtype)

    def dev(m):
        rows, cols, indptr, indices, values = m
        return torch.sparse_csr_tensor(
            torch.from_numpy(indptr.astype(index)), torch.from_numpy(indices.astype(index)),
            torch.from_numpy(dropin_mtx.typed_values(values, dtype)), size=(rows, cols),
            dtype=tdtype, device="cuda")

    A, B = dev(a), dev(b)
    C = A @ B
    torch.cuda.synchronize()
    return (C.crow_indices().cpu().numpy(), C.col_indices().cpu().numpy(),
            C.values().cpu().numpy())


def compute(out, matrices):
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    frameworks = []
    for fw in ("cupy", "torch"):
        try:
            __import__(fw)
            frameworks.append(fw)
        except Exception as e:  # report, go on with the other
            print(f"{fw}: not available ({e})")
    for path in matrices:
        a, b = dropin_mtx.operands(path)
        for fw in frameworks:
            variants = [(d, np.int32) for d in DTYPES]
            if fw == "torch":
                variants.append(("float64", np.int64))
            for dtype, index in variants:
                tag = f"{name_of(path)}-{fw}-{dtype}" + ("-i64" if index == np.int64 else "")
                t0 = time.perf_counter()
                try:
                    if fw == "cupy":
                        indptr, indices, data = product_cupy(a, b, dtype)
                    else:
                        indptr, indices, data = product_torch(a, b, dtype, index)
                    np.savez(out / f"{tag}.npz", indptr=indptr, indices=indices, data=data)
                    print(f"{tag}: nnz(C) {len(indices)} in {1e3 * (time.perf_counter() - t0):.1f} ms")
                except Exception as e:
                    (out / f"{tag}.err").write_text(f"{type(e).__name__}: {e}")
                    print(f"{tag}: {type(e).__name__}: {e}")


def compare(d1, d2):
    d1, d2 = pathlib.Path(d1), pathlib.Path(d2)
    bad = 0
    names = sorted({p.stem for p in list(d1.glob("*.npz")) + list(d1.glob("*.err")) +
                    list(d2.glob("*.npz")) + list(d2.glob("*.err"))})
    for stem in names:
        f1, f2 = d1 / f"{stem}.npz", d2 / f"{stem}.npz"
        if not f1.exists() or not f2.exists():
            e1 = (d1 / f"{stem}.err").read_text() if (d1 / f"{stem}.err").exists() else "ok"
            e2 = (d2 / f"{stem}.err").read_text() if (d2 / f"{stem}.err").exists() else "ok"
            same = e1 == e2
            bad += not same
            print(f"{stem}: {'same error' if same else 'DIFFERENT outcome'}: plain {e1} | drop-in {e2}")
            continue
        x, y = np.load(f1), np.load(f2)
        if not (np.array_equal(x["indptr"], y["indptr"]) and np.array_equal(x["indices"], y["indices"])):
            bad += 1
            print(f"{stem}: DIFFERENT structure")
            continue
        a, b = x["data"], y["data"]
        rtol = 1e-4 if a.dtype in (np.float32, np.complex64) else 1e-10
        scale = np.abs(b).max() if len(b) else 0.0
        err = np.abs(a - b) / (np.abs(b) + 1e-3 * scale + 1e-300)
        worst = float(err.max()) if len(err) else 0.0
        ok = worst <= rtol
        bad += not ok
        print(f"{stem}: {'same' if ok else 'DIFFERENT values'}: nnz(C) {len(b)}, "
              f"structure identical, worst relative difference {worst:.2e}")
    print(f"client results differing: {bad}")
    return bad


def log_summary(log):
    text = pathlib.Path(log).read_text() if pathlib.Path(log).exists() else ""
    paths = collections.Counter()
    for line in text.splitlines():
        m = re.match(r"\[spgemm_cusparse\] (\S+) -> (\S+)(?: \((.*)\))? status=(\d+)", line)
        if m:
            reason = m.group(3) or ""
            paths[(m.group(1), m.group(2), reason if reason.startswith("decided") else "")] += 1
    print("drop-in log (calls by function, path and decision):")
    for line in text.splitlines()[:3]:
        print("  " + line)
    for (fn, path, reason), n in sorted(paths.items()):
        print(f"  {n:6d}  {fn} -> {path} {reason}")
    return sum(n for (fn, path, _), n in paths.items() if path == "libspgemm")


def run(lib, work, matrices):
    work = pathlib.Path(work)
    log = work / "dropin_clients.log"
    if log.exists():
        log.unlink()
    me = [sys.executable, os.path.abspath(__file__), "compute"]
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    print("== plain (the real cuSPARSE)", flush=True)
    subprocess.run(me + [str(work / "plain")] + matrices, env=env, check=False)
    env2 = dict(env, LD_PRELOAD=os.path.abspath(lib), SPGEMM_CUSPARSE_LOG=str(log))
    print("== with LD_PRELOAD of the drop-in", flush=True)
    subprocess.run(me + [str(work / "dropin")] + matrices, env=env2, check=False)
    print("== comparison", flush=True)
    bad = compare(work / "plain", work / "dropin")
    taken = log_summary(log)
    if taken == 0:
        print("FAILED: no call went through libspgemm")
    return 1 if bad or taken == 0 else 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--lib", required=True)
    r.add_argument("--work", required=True)
    r.add_argument("matrices", nargs="+")
    c = sub.add_parser("compute")
    c.add_argument("out")
    c.add_argument("matrices", nargs="+")
    k = sub.add_parser("compare")
    k.add_argument("d1")
    k.add_argument("d2")
    a = p.parse_args()
    if a.cmd == "run":
        sys.exit(run(a.lib, a.work, a.matrices))
    if a.cmd == "compute":
        compute(a.out, a.matrices)
    else:
        sys.exit(1 if compare(a.d1, a.d2) else 0)


if __name__ == "__main__":
    main()
