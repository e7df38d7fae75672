#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Index layouts and value types side by side, from `spgemm-bench --reuse`
CSVs of one index layout and precision each (bench/device_reuse.sh --layouts
writes them), per input and in geometric mean:

1. per precision: libspgemm's 64/32 and 64/64 times over its 32/32 ones,
   whole pipeline (total) and numeric phase again (num2); target: within
   1.15 on every input;
2. per index layout: libspgemm's fp64 times over its fp32 ones (fp32's
   speedup; target: at least 1.0 on every input, 1.15 in geometric mean),
   and cdouble's over fp64's where present;
3. per precision and layout: cuSPARSE's times over libspgemm's in the same
   layout and precision: plain (cusparse_total_ms / lib_total_ms), the reuse
   family's first run (setup) and reuse_compute (re-run, over num2). n/a
   where cuSPARSE does not take the layout or type (the CSV's note is
   printed below the table); cuSPARSE is never compared in another layout.

  layout_table.py BENCH.csv [BENCH.csv ...] [--min-products N]"""
import argparse
import math

from reuse_table import gmean, load

LAYOUTS = ("32/32", "64/32", "64/64")
PRECISIONS = ("double", "float", "cdouble", "cfloat")


def num(row, field):
    try:
        x = float(row[field])
    except (KeyError, TypeError, ValueError):
        return math.nan
    return x if x > 0 else math.nan


def ratio(row_num, row_den, field_num, field_den=None):
    if row_num is None or row_den is None:
        return math.nan
    return num(row_num, field_num) / num(row_den, field_den or field_num)


def total_and_again(row_num, row_den):
    """The ratios of the whole pipeline's and the numeric re-run's times."""
    return (ratio(row_num, row_den, "lib_total_ms"),
            ratio(row_num, row_den, "lib_numeric_again_ms"))


def cell(x, width):
    text = "-" if math.isnan(x) else f"{x:.2f}"
    return f"{text:>{width}s}"


def summary(label, xs, target=None, holds=None):
    """Geometric mean and range of the ratios xs; with a target, whether
    holds(xs) says it is met."""
    xs = [x for x in xs if not math.isnan(x)]
    if not xs:
        return f"  {label}: no input has both"
    line = (f"  {label}: geometric mean {gmean(xs):.3f}, range {min(xs):.3f}-{max(xs):.3f} "
            f"over {len(xs)} inputs")
    if target:
        line += f" (target {target}: {'met' if holds(xs) else 'MISSED'})"
    return line


def within(bound):
    return lambda xs: max(xs) <= bound


def faster(mean, each):
    return lambda xs: gmean(xs) >= mean and min(xs) >= each


def inputs(groups, keys, min_products):
    """Input names present in any of the groups, by products, and
    {(key, name): row}."""
    rows, products = {}, {}
    for key in keys:
        for r in groups.get(key, []):
            p = num(r, "products")
            if math.isnan(p) or p < min_products:
                continue
            rows[key, r["name"]] = r
            products.setdefault(r["name"], p)
    return sorted(products, key=products.get), rows


def layout_tables(groups, min_products):
    for prec in PRECISIONS:
        keys = [(lay, prec) for lay in LAYOUTS if (lay, prec) in groups]
        if ("32/32", prec) not in groups or len(keys) < 2:
            continue
        names, rows = inputs(groups, keys, min_products)
        others = [k for k in keys if k[0] != "32/32"]
        base = ("32/32", prec)
        print(f"\nIndex layouts, {prec}: libspgemm's time over its 32/32 time (target: within 1.15)")
        head = f"{'input':24s} {'products':>10s} {'32 total':>9s} {'32 num2':>9s}"
        for k in others:
            head += f" {k[0] + ' tot':>10s} {k[0] + ' num2':>10s}"
        print(head)
        cols = {k: ([], []) for k in others}
        for n in names:
            b = rows.get((base, n))
            line = (f"{n[:24]:24s} {num(b, 'products') if b else math.nan:10.3g} "
                    f"{num(b, 'lib_total_ms') if b else math.nan:9.3f} "
                    f"{num(b, 'lib_numeric_again_ms') if b else math.nan:9.3f}")
            for k in others:
                t, a = total_and_again(rows.get((k, n)), b)
                cols[k][0].append(t), cols[k][1].append(a)
                line += f" {cell(t, 10)} {cell(a, 10)}"
            print(line)
        for k in others:
            print(summary(f"{k[0]} / 32/32 total", cols[k][0], "<= 1.15 on every input", within(1.15)))
            print(summary(f"{k[0]} / 32/32 num2 ", cols[k][1], "<= 1.15 on every input", within(1.15)))


def precision_tables(groups, min_products):
    for lay in LAYOUTS:
        base, fast = (lay, "double"), (lay, "float")
        extra = [(lay, p) for p in ("cdouble", "cfloat") if (lay, p) in groups]
        if base not in groups or (fast not in groups and not extra):
            continue
        keys = [base] + ([fast] if fast in groups else []) + extra
        names, rows = inputs(groups, keys, min_products)
        print(f"\nValue types, {lay}: libspgemm's fp64 time over its fp32 time (fp32's speedup; "
              f"target: >= 1.0 on every input, 1.15 in geometric mean); complex over fp64")
        head = f"{'input':24s} {'fp64 total':>10s} {'fp64 num2':>10s}"
        if fast in groups:
            head += f" {'f64/f32 tot':>11s} {'f64/f32 n2':>11s}"
        for k in extra:
            head += f" {k[1] + '/f64 tot':>13s} {k[1] + '/f64 n2':>13s}"
        print(head)
        speed = ([], [])
        slow = {k: ([], []) for k in extra}
        for n in names:
            b = rows.get((base, n))
            line = (f"{n[:24]:24s} {num(b, 'lib_total_ms') if b else math.nan:10.3f} "
                    f"{num(b, 'lib_numeric_again_ms') if b else math.nan:10.3f}")
            if fast in groups:
                t, a = total_and_again(b, rows.get((fast, n)))
                speed[0].append(t), speed[1].append(a)
                line += f" {cell(t, 11)} {cell(a, 11)}"
            for k in extra:
                t, a = total_and_again(rows.get((k, n)), b)
                slow[k][0].append(t), slow[k][1].append(a)
                line += f" {cell(t, 13)} {cell(a, 13)}"
            print(line)
        if fast in groups:
            print(summary("fp64 / fp32 total", speed[0], ">= 1.15, each >= 1.0", faster(1.15, 1.0)))
            print(summary("fp64 / fp32 num2 ", speed[1], ">= 1.15, each >= 1.0", faster(1.15, 1.0)))
        for k in extra:
            print(summary(f"{k[1]} / fp64 total", slow[k][0]))
            print(summary(f"{k[1]} / fp64 num2 ", slow[k][1]))


def cusparse_tables(groups, min_products):
    for prec in PRECISIONS:
        keys = [(lay, prec) for lay in LAYOUTS if (lay, prec) in groups]
        if not keys:
            continue
        names, rows = inputs(groups, keys, min_products)
        print(f"\nAgainst cuSPARSE, {prec}: cuSPARSE's time over libspgemm's, same layout "
              f"(plain: whole pipelines; setup: reuse family's first run / lib total; "
              f"re-run: reuse_compute / lib num2)")
        head = f"{'input':24s}"
        for k in keys:
            head += f" {k[0] + ' plain':>11s} {k[0] + ' setup':>11s} {k[0] + ' re-run':>12s}"
        print(head)
        cols = {k: ([], [], []) for k in keys}
        notes = {}
        for n in names:
            line = f"{n[:24]:24s}"
            for k in keys:
                r = rows.get((k, n))
                xs = (ratio(r, r, "cusparse_total_ms", "lib_total_ms"),
                      ratio(r, r, "cusparse_reuse_first_ms", "lib_total_ms"),
                      ratio(r, r, "cusparse_reuse_compute_ms", "lib_numeric_again_ms"))
                for col, x, note in zip(cols[k], xs, ("cusparse_note", "cusparse_reuse_note",
                                                      "cusparse_reuse_note")):
                    col.append(x)
                    if r is not None and r.get(note):
                        notes.setdefault((k[0], note), r[note])
                marks = ["n/a" if r is not None and r.get(note) else None
                         for note in ("cusparse_note", "cusparse_reuse_note", "cusparse_reuse_note")]
                for x, mark, width in zip(xs, marks, (11, 11, 12)):
                    line += f" {mark:>{width}s}" if mark else f" {cell(x, width)}"
            print(line)
        for k in keys:
            for label, col in zip(("plain", "setup", "re-run"), cols[k]):
                if any(not math.isnan(x) for x in col):  # else n/a: the notes below say why
                    print(summary(f"{k[0]} {label}", col))
        for (lay, field), note in sorted(notes.items()):
            print(f"  n/a, {lay} {'plain' if field == 'cusparse_note' else 'reuse'}: {note}")


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv", nargs="+")
    p.add_argument("--min-products", type=float, default=0)
    args = p.parse_args()
    groups = load(args.csv)
    print("combinations: " + ", ".join(f"{lay} {prec} ({len(rows)} inputs)"
                                        for (lay, prec), rows in groups.items()))
    layout_tables(groups, args.min_products)
    precision_tables(groups, args.min_products)
    cusparse_tables(groups, args.min_products)


if __name__ == "__main__":
    main()
