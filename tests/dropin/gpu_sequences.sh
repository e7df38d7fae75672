#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# NVIDIA's documented SpGEMM sequences (dropin_sequence.c), each run on the
# real cuSPARSE and again under LD_PRELOAD of the drop-in, compared: C's
# structure identical, values and a real cusparseSpMV with C within the
# type's tolerance, the same status where cuSPARSE refuses. For every matrix
# given, value type, index type and sequence (plain, reuse). The drop-in's log
# must show libspgemm deciding to compute what it takes (plain: every type;
# reuse: 32-bit indices).
# Usage: gpu_sequences.sh DROPIN_SEQUENCE LIBSPGEMM_CUSPARSE OUTDIR MATRIX...
#   MATRIX: .mtx/.mtx.gz files or gen:N. Exit 77 without a GPU.
#   Writes OUTDIR/dropin_sequences_log.txt (the drop-in's log of every run).
# Environment: DROPIN_TYPES (sdcz), DROPIN_INDICES (32,64), DROPIN_MODES
#   (plain reuse); DROPIN_SMALL_TYPES/DROPIN_SMALL_INDICES for matrices named
#   in DROPIN_BIG (default landmark G3_circuit: d, 32).
set -uo pipefail
bin=$1 lib=$2 out=$3
shift 3
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
name_of() { case $1 in s) echo R_32F;; d) echo R_64F;; c) echo C_32F;; z) echo C_64F;; esac; }
for matrix in "$@"; do
  name=$(basename "$matrix"); name=${name%.gz}; name=${name%.mtx}
  types=${DROPIN_TYPES:-sdcz} indices=${DROPIN_INDICES:-32,64}
  case " ${DROPIN_BIG:-landmark G3_circuit} " in
    *" $name "*) types=${DROPIN_SMALL_TYPES:-d} indices=${DROPIN_SMALL_INDICES:-32} ;;
  esac
  for mode in ${DROPIN_MODES:-plain reuse}; do
    rm -f "$work"/*.bin
    "$bin" "$mode" "$matrix" "$types" "$indices" "$work/real" > "$work/real.txt" 2>&1
    rc=$?
    if [ $rc -eq 77 ]; then cat "$work/real.txt"; exit 77; fi
    log="$work/dropin.log"; rm -f "$log"
    LD_PRELOAD="$lib" SPGEMM_CUSPARSE_LOG="$log" \
      "$bin" "$mode" "$matrix" "$types" "$indices" "$work/dropin" > "$work/dropin.txt" 2>&1
    rc2=$?
    { echo "== $name $mode: real run"; cat "$work/real.txt"; echo "== drop-in run";
      cat "$work/dropin.txt"; echo "== drop-in log"; cat "$log" 2>/dev/null; } \
      >> "$out/dropin_sequences_log.txt"
    for ((k = 0; k < ${#types}; ++k)); do
      t=${types:k:1}
      for bits in 32 64; do
        case ",$indices," in *",$bits,"*|*"$bits"*) ;; *) continue ;; esac
        tag="$name $mode $t$bits"
        verdict=$("$bin" compare "$work/real-$t$bits.bin" "$work/dropin-$t$bits.bin")
        ok=$?
        taken=$(grep -c -- "decided: $(name_of "$t") $bits-bit indices" "$log" 2>/dev/null)
        expect=1
        if [ "$mode" = reuse ] && [ "$bits" = 64 ]; then expect=0; fi
        status=ok
        if [ $rc -ne 0 ] || [ $rc2 -ne 0 ] || [ $ok -ne 0 ]; then status=FAILED; fi
        if [ "$expect" = 1 ] && [ "${taken:-0}" -eq 0 ]; then status="FAILED (not on libspgemm)"; fi
        if [ "$expect" = 0 ] && [ "${taken:-0}" -ne 0 ]; then status="FAILED (taken)"; fi
        [ "$status" = ok ] || failures=$((failures + 1))
        where=$([ "${taken:-0}" -ne 0 ] && echo libspgemm || echo cuSPARSE)
        echo "$tag: $status | $verdict | drop-in computed on $where"
      done
    done
  done
done
echo "sequences failed: $failures"
[ "$failures" -eq 0 ]
