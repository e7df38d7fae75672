# SPDX-License-Identifier: Apache-2.0
"""Matrix Market (.mtx / .mtx.gz) to CSR arrays with numpy alone, for the
drop-in's Python checks and benchmark. Pattern entries get the values the C
programs give them; symmetric matrices are expanded; duplicates summed.
B of a product is A for square A, A^T otherwise (docs of ../shared/matrices).
A name gen:FAMILY:ARGS generates A instead (see generate)."""
import gzip
import os

import numpy as np


def read_mtx(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as f:
        header = f.readline().lower()
        pattern = "pattern" in header
        symmetric = any(s in header for s in ("symmetric", "hermitian", "skew"))
        line = f.readline()
        while line.startswith("%"):
            line = f.readline()
        rows, cols, n = (int(x) for x in line.split()[:3])
        data = np.loadtxt(f, ndmin=2, max_rows=n, usecols=(0, 1) if pattern else (0, 1, 2))
    r = data[:, 0].astype(np.int64) - 1
    c = data[:, 1].astype(np.int64) - 1
    if pattern:
        v = 1.0 + ((r * 7 + c * 13) % 17) / 16.0
    else:
        v = data[:, 2].astype(np.float64)
    if symmetric:
        off = r != c
        r, c, v = np.concatenate([r, c[off]]), np.concatenate([c, r[off]]), np.concatenate([v, v[off]])
    return to_csr(rows, cols, r, c, v)


def to_csr(rows, cols, r, c, v):
    order = np.lexsort((c, r))
    r, c, v = r[order], c[order], v[order]
    keep = np.ones(len(r), dtype=bool)
    keep[1:] = (r[1:] != r[:-1]) | (c[1:] != c[:-1])
    group = np.cumsum(keep) - 1
    summed = np.zeros(int(keep.sum()), dtype=np.float64)
    np.add.at(summed, group, v)
    r, c = r[keep], c[keep]
    indptr = np.zeros(rows + 1, dtype=np.int64)
    np.add.at(indptr, r + 1, 1)
    return rows, cols, np.cumsum(indptr), c, summed


def generate(spec):
    """A generated square matrix, values in [0.5, 1.5), fixed seed:
    gen:stencil27:N   the 27-point stencil on an N^3 grid
    gen:banded:N:W    N rows, W consecutive columns a row around the diagonal
    gen:uniform:N:K   N rows, K columns a row drawn uniformly (duplicates merged)
    gen:rmat:S:E      R-MAT graph (0.57, 0.19, 0.19, 0.05), 2^S rows, E*2^S edges
    gen:N             uniform with 8 columns a row, as dropin_sequence.c's gen:N"""
    parts = spec.split(":")[1:]
    if len(parts) == 1:
        parts = ["uniform", parts[0], "8"]
    family, args = parts[0], [int(x) for x in parts[1:]]
    rng = np.random.default_rng(20261206)
    if family == "stencil27":
        (n,) = args
        rows = n ** 3
        x, y, z = np.unravel_index(np.arange(rows, dtype=np.int64), (n, n, n))
        r, c = [], []
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for dz in (-1, 0, 1):
                    ok = ((x + dx >= 0) & (x + dx < n) & (y + dy >= 0) & (y + dy < n)
                          & (z + dz >= 0) & (z + dz < n))
                    r.append(np.flatnonzero(ok))
                    c.append(np.ravel_multi_index((x[ok] + dx, y[ok] + dy, z[ok] + dz), (n, n, n)))
        r, c = np.concatenate(r), np.concatenate(c)
    elif family == "banded":
        rows, width = args
        r = np.repeat(np.arange(rows, dtype=np.int64), width)
        c = r + np.tile(np.arange(width, dtype=np.int64) - width // 2, rows)
        keep = (c >= 0) & (c < rows)
        r, c = r[keep], c[keep]
    elif family == "uniform":
        rows, k = args
        r = np.repeat(np.arange(rows, dtype=np.int64), k)
        c = rng.integers(0, rows, size=rows * k, dtype=np.int64)
    elif family == "rmat":
        scale, edge_factor = args
        rows, edges = 1 << scale, edge_factor << scale
        r = np.zeros(edges, dtype=np.int64)
        c = np.zeros(edges, dtype=np.int64)
        for bit in range(scale):
            u = rng.random(edges)
            down = u >= 0.57 + 0.19  # quadrants c and d
            right = ((u >= 0.57) & (u < 0.57 + 0.19)) | (u >= 0.57 + 0.19 + 0.19)
            r |= down.astype(np.int64) << bit
            c |= right.astype(np.int64) << bit
    else:
        raise ValueError(f"unknown generator {spec}")
    v = rng.uniform(0.5, 1.5, size=len(r))
    return to_csr(rows, rows, r, c, v)


def operands(path):
    """(A, B) as (rows, cols, indptr, indices, values) host tuples. With
    DROPIN_MTX_CACHE set, A is kept there as .npz between runs."""
    cache = os.environ.get("DROPIN_MTX_CACHE")
    stored = os.path.join(cache, os.path.basename(str(path)) + ".npz") if cache else None
    if str(path).startswith("gen:"):
        a = generate(str(path))
    elif stored and os.path.exists(stored):
        z = np.load(stored)
        a = (int(z["rows"]), int(z["cols"]), z["indptr"], z["indices"], z["values"])
    else:
        a = read_mtx(path)
        if stored:
            os.makedirs(cache, exist_ok=True)
            np.savez(stored, rows=a[0], cols=a[1], indptr=a[2], indices=a[3], values=a[4])
    rows, cols, indptr, indices, values = a
    if rows == cols:
        return a, a
    r = np.repeat(np.arange(rows, dtype=np.int64), np.diff(indptr))
    return a, to_csr(cols, rows, indices, r, values)


def typed_values(values, dtype):
    """The values in dtype; complex ones get an imaginary part, as in C."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return (values + 1j * (0.25 * values - 0.1)).astype(dtype)
    return values.astype(dtype)
