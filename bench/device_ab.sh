#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One call on the device machine: an A/B of two libraries under one
# spgemm-bench. Builds this tree's library and spgemm-bench (build/, the
# default preset, so a later full build there is incremental), then runs
# the bench ROUNDS times with the base library and with this tree's, in
# turn, each run's CSV tagged with its name, and prints bench/ab_table.py's
# table of both libraries' medians. The base library comes as an xz'd
# libspgemm.so.0 (built elsewhere for sm_90 from the base commit), or as
# the base commit's sources (`git archive BASE | xz > base.tar.xz`), built
# here first with the same preset and targets: then both builds are timed
# one after the other and both libraries' fatbins measured.
# AB_BUILD_ALL=1 builds every target (the tests too, for a later ctest);
# AB_MATRIX_DIR is the tests' matrix folder then. AB_NEW_DIR, a folder with
# this tree's libspgemm.so.0 and spgemm-bench built elsewhere
# (bench/pack_binaries.sh), takes the place of the build.
# AB_VARIANTS="NAME:KNOBS ...": more runs of this tree's library, each with
# SPGEMM_TEST_GPU_CHOICE=KNOBS (docs/testing.md), tagged NAME, and the guard
# of each against this tree's default: what a kernel path the knobs turn
# off gains, measured without a rebuild (e.g. "nolean:lean=never").
# AB_LIBS="NAME:LIB_XZ ...": more libraries in the rounds, each an xz'd
# libspgemm.so.0, and the guard of this tree's against each (a step's own
# cost, beside the base's guard).
# Usage (device tool, carry [".devstage/prefix", <base.xz's folder>, <matrices>]):
#   bench/device_ab.sh BASE_LIB_XZ ROUNDS SPGEMM_BENCH_ARGS...
set -uo pipefail
base_xz=${1:?usage: bench/device_ab.sh BASE_LIB_XZ|BASE_SRC.tar.xz ROUNDS ARGS...}
rounds=${2:?usage: bench/device_ab.sh BASE_LIB_XZ|BASE_SRC.tar.xz ROUNDS ARGS...}
shift 2
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
root=$(cd "$(dirname "$0")/.." && pwd); cd "$root"
prefix="$root/.devstage/prefix/usr"
export PATH="$PATH:/usr/local/cuda/bin"

targets=(--target spgemm spgemm-bench)
[ -n "${AB_BUILD_ALL:-}" ] && targets=()
fortran=$(command -v gfortran || command -v gfortran-13 || true)  # (as device_run.sh)
# build NAME: configures and builds the tree in the current folder (build/,
# the default preset), timed
build() {
  local start; start=$(date +%s)
  cmake --preset default -DCMAKE_PREFIX_PATH="$prefix" ${fortran:+-DCMAKE_Fortran_COMPILER="$fortran"} \
    ${AB_MATRIX_DIR:+-DSPGEMM_MATRIX_DIR="$AB_MATRIX_DIR"} > "/tmp/ab/build-$1.log" 2>&1 &&
    cmake --build --preset default -j 16 "${targets[@]}" >> "/tmp/ab/build-$1.log" 2>&1 ||
    { tail -30 "/tmp/ab/build-$1.log"; exit 1; }
  echo "build $1 (${targets[*]:-all targets}, 16 jobs): $(($(date +%s) - start)) s"
}
fatbin() {  # bytes of a library's .nv_fatbin section
  printf "%d" "0x$(readelf -S -W "$1" | awk '$2 == ".nv_fatbin" {print $6}')"
}

mkdir -p /tmp/ab/base /tmp/ab/new
if [[ "$base_xz" == *.tar.xz ]]; then
  rm -rf /tmp/ab/base-src && mkdir -p /tmp/ab/base-src && tar -xJf "$base_xz" -C /tmp/ab/base-src
  ln -s "$root/.devstage" /tmp/ab/base-src/.devstage
  (cd /tmp/ab/base-src && build base) || exit 1
  cp -L /tmp/ab/base-src/build/libspgemm.so.0 /tmp/ab/base/
else
  xz -dc "$base_xz" > /tmp/ab/base/libspgemm.so.0 &
fi
bench=build/bench/spgemm-bench
if [ -n "${AB_NEW_DIR:-}" ]; then
  cp -L "$AB_NEW_DIR/libspgemm.so.0" /tmp/ab/new/ && bench="$AB_NEW_DIR/spgemm-bench"
else
  build new
  cp -L build/libspgemm.so.0 /tmp/ab/new/
fi
wait
for lib in base new; do
  echo "$lib: libspgemm.so.0 $(stat -c %s /tmp/ab/$lib/libspgemm.so.0) bytes, fatbin $(fatbin /tmp/ab/$lib/libspgemm.so.0) bytes"
done | tee "$OUT/ab-sizes.txt"

fmt_dir=$(dirname "$(find "$prefix" -name 'libfmt.so*' | head -1)")
read -r -a variants <<< "${AB_VARIANTS:-}"
read -r -a libs <<< "${AB_LIBS:-}"
names=(base new)
for v in "${variants[@]}" "${libs[@]}"; do names+=("${v%%:*}"); done
for l in "${libs[@]}"; do
  mkdir -p "/tmp/ab/${l%%:*}" && xz -dc "${l#*:}" > "/tmp/ab/${l%%:*}/libspgemm.so.0"
done
for r in $(seq 1 "$rounds"); do
  for name in "${names[@]}"; do
    lib=$name knobs=
    for v in "${variants[@]}"; do [ "${v%%:*}" = "$name" ] && lib=new knobs=${v#*:}; done
    SPGEMM_TEST_GPU_CHOICE="$knobs" \
      LD_LIBRARY_PATH="/tmp/ab/$lib:$fmt_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      "$bench" "$@" --csv "/tmp/ab/$name$r.csv" > "/tmp/ab/$name$r.txt" 2>&1 ||
      { echo "run $name$r failed"; tail -20 "/tmp/ab/$name$r.txt"; }
  done
done
for r in $(seq 1 "$rounds"); do
  for name in "${names[@]}"; do
    awk -v t="$name$r" 'NR==1{print "run," $0; next}{print t "," $0}' "/tmp/ab/$name$r.csv"
  done
done > "$OUT/ab.csv"
cp /tmp/ab/new1.txt "$OUT/ab-new1.txt"
fields=()
for f in analyze symbolic numeric numeric_again total; do fields+=(--field "lib_${f}_ms"); done
python3 bench/ab_table.py "$OUT/ab.csv" "${fields[@]}" > "$OUT/ab-table.txt"
python3 bench/ab_table.py "$OUT/ab.csv" --medians "${fields[@]}"
# the speed guard of a change that must keep it (total time, peak workspace)
python3 bench/ab_table.py "$OUT/ab.csv" --guard base new | tee "$OUT/ab-guard.txt"
for l in "${libs[@]}"; do
  echo "new against ${l%%:*} (${l#*:}):"
  python3 bench/ab_table.py "$OUT/ab.csv" --guard "${l%%:*}" new "${fields[@]}" | tee -a "$OUT/ab-guard.txt"
done
for v in "${variants[@]}"; do
  echo "variant ${v%%:*} (SPGEMM_TEST_GPU_CHOICE=${v#*:}) against new:"
  python3 bench/ab_table.py "$OUT/ab.csv" --guard new "${v%%:*}" "${fields[@]}" | tee -a "$OUT/ab-guard.txt"
done
# registers, stack and local memory of the numeric and symbolic kernels, base against new
for lib in base new; do
  cuobjdump -res-usage "/tmp/ab/$lib/libspgemm.so.0" 2>/dev/null |
    awk '/Function/{f=$2} /REG:/{print f, $1 "_" $2 "_" $4}' | grep -E "(numeric|symbolic)_kernel" |
    LC_ALL=C sort > "/tmp/ab/res-$lib.txt"
done
LC_ALL=C join /tmp/ab/res-base.txt /tmp/ab/res-new.txt | awk '$2 != $3' > "$OUT/ab-res-changed.txt"
cp /tmp/ab/res-new.txt "$OUT/ab-res-new.txt"
echo "numeric and symbolic kernels: base $(wc -l < /tmp/ab/res-base.txt), new $(wc -l < /tmp/ab/res-new.txt); of those in both, resources changed: $(wc -l < "$OUT/ab-res-changed.txt")"
