#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One call on the device machine: an A/B of two libraries under one
# spgemm-bench. Builds this tree's library and spgemm-bench (build/, the
# default preset, so a later full build there is incremental), then runs
# the bench ROUNDS times with the base library and with this tree's, in
# turn, each run's CSV tagged with its name, and prints bench/ab_table.py's
# table of both libraries' medians. The base library comes as an xz'd
# libspgemm.so.0 (built elsewhere for sm_90 from the base commit).
# AB_BUILD_ALL=1 builds every target (the tests too, for a later ctest);
# AB_MATRIX_DIR is the tests' matrix folder then. AB_NEW_DIR, a folder with
# this tree's libspgemm.so.0 and spgemm-bench built elsewhere
# (bench/pack_binaries.sh), takes the place of the build.
# Usage (device tool, carry [".devstage/prefix", <base.xz's folder>, <matrices>]):
#   bench/device_ab.sh BASE_LIB_XZ ROUNDS SPGEMM_BENCH_ARGS...
set -uo pipefail
base_xz=${1:?usage: bench/device_ab.sh BASE_LIB_XZ ROUNDS ARGS...}
rounds=${2:?usage: bench/device_ab.sh BASE_LIB_XZ ROUNDS ARGS...}
shift 2
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
root=$(cd "$(dirname "$0")/.." && pwd); cd "$root"
prefix="$root/.devstage/prefix/usr"
export PATH="$PATH:/usr/local/cuda/bin"

mkdir -p /tmp/ab/base
xz -dc "$base_xz" > /tmp/ab/base/libspgemm.so.0 &
bench=build/bench/spgemm-bench
mkdir -p /tmp/ab/new
if [ -n "${AB_NEW_DIR:-}" ]; then
  cp -L "$AB_NEW_DIR/libspgemm.so.0" /tmp/ab/new/ && bench="$AB_NEW_DIR/spgemm-bench"
else
  start=$(date +%s)
  targets=(--target spgemm spgemm-bench)
  [ -n "${AB_BUILD_ALL:-}" ] && targets=()
  fortran=$(command -v gfortran || command -v gfortran-13 || true)  # (as device_run.sh)
  cmake --preset default -DCMAKE_PREFIX_PATH="$prefix" ${fortran:+-DCMAKE_Fortran_COMPILER="$fortran"} \
    ${AB_MATRIX_DIR:+-DSPGEMM_MATRIX_DIR="$AB_MATRIX_DIR"} > "$OUT/ab-build.log" 2>&1 &&
    cmake --build --preset default -j 16 "${targets[@]}" >> "$OUT/ab-build.log" 2>&1 ||
    { tail -30 "$OUT/ab-build.log"; exit 1; }
  echo "build: $(($(date +%s) - start)) s"
  cp -L build/libspgemm.so.0 /tmp/ab/new/
fi
wait

fmt_dir=$(dirname "$(find "$prefix" -name 'libfmt.so*' | head -1)")
for r in $(seq 1 "$rounds"); do
  for lib in base new; do
    LD_LIBRARY_PATH="/tmp/ab/$lib:$fmt_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      "$bench" "$@" --csv "/tmp/ab/$lib$r.csv" > "/tmp/ab/$lib$r.txt" 2>&1 ||
      { echo "run $lib$r failed"; tail -20 "/tmp/ab/$lib$r.txt"; }
  done
done
for r in $(seq 1 "$rounds"); do
  for lib in base new; do
    awk -v t="$lib$r" 'NR==1{print "run," $0; next}{print t "," $0}' "/tmp/ab/$lib$r.csv"
  done
done > "$OUT/ab.csv"
cp /tmp/ab/new1.txt "$OUT/ab-new1.txt"
fields=()
for f in analyze symbolic numeric numeric_again numeric_unordered total; do fields+=(--field "lib_${f}_ms"); done
python3 bench/ab_table.py "$OUT/ab.csv" "${fields[@]}" > "$OUT/ab-table.txt"
python3 bench/ab_table.py "$OUT/ab.csv" --medians "${fields[@]}"
# the speed guard of a change that must keep it (total time, peak workspace)
python3 bench/ab_table.py "$OUT/ab.csv" --guard base new | tee "$OUT/ab-guard.txt"
# registers, stack and local memory of the numeric and symbolic kernels, base against new
for lib in base new; do
  cuobjdump -res-usage "/tmp/ab/$lib/libspgemm.so.0" 2>/dev/null |
    awk '/Function/{f=$2} /REG:/{print f, $1 "_" $2 "_" $4}' | grep -E "(numeric|symbolic)_kernel" |
    LC_ALL=C sort > "/tmp/ab/res-$lib.txt"
done
LC_ALL=C join /tmp/ab/res-base.txt /tmp/ab/res-new.txt | awk '$2 != $3' > "$OUT/ab-res-changed.txt"
echo "numeric and symbolic kernels whose resources changed: $(wc -l < "$OUT/ab-res-changed.txt") of $(wc -l < /tmp/ab/res-new.txt)"
