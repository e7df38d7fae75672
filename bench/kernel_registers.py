#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Registers of libspgemm's kernels by index layout, from cuobjdump.

  cuobjdump -res-usage build/libspgemm.so.0 | bench/kernel_registers.py

For each kernel template, over its instances that differ only in the index
layout (the last two template arguments: 32/32 int/int, 64/32 long/int,
64/64 long/long), the mean registers of the 32/32 instances and of the same
instances in 64/32 and 64/64, and how many of them take more. (cuobjdump
comes with the CUDA Toolkit, or from PyPI: nvidia-cuda-cuobjdump.)
"""
import collections
import re
import sys

LAYOUTS = {"ii": "32/32", "li": "64/32", "ll": "64/64"}


def main():
    lines = sys.stdin.read().splitlines()
    regs = collections.defaultdict(dict)  # (kernel, other arguments) -> layout -> registers
    for line, usage in zip(lines, lines[1:]):
        m = re.search(r"Function \S*?\d+([a-z_]+_kernel)I(\S*?)EEvN", line)
        r = re.search(r"REG:(\d+)", usage)
        # the layout: two integer type codes ending the arguments or before
        # a literal (the numeric kernels' block size)
        layout = m and re.search(r"(ii|li|ll)(?=L|E|$)", m.group(2))
        if layout and r:
            rest = m.group(2)[:layout.start()] + "_" + m.group(2)[layout.end():]
            regs[(m.group(1), rest)][layout.group(1)] = int(r.group(1))
    print(f"{'kernel':28} {'layout':6} {'instances':>9} {'regs 32/32':>10} {'regs':>6} {'more':>5}")
    for kernel in sorted({k for k, _ in regs}):
        for layout in ("li", "ll"):
            pairs = [(v["ii"], v[layout]) for (k, _), v in regs.items()
                     if k == kernel and "ii" in v and layout in v]
            if pairs:
                print(f"{kernel:28} {LAYOUTS[layout]:6} {len(pairs):9} "
                      f"{sum(a for a, _ in pairs) / len(pairs):10.1f} "
                      f"{sum(b for _, b in pairs) / len(pairs):6.1f} "
                      f"{sum(b > a for a, b in pairs):5}")


if __name__ == "__main__":
    main()
