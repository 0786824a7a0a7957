#!/usr/bin/env bash
# GEMM shape suite (issue 13): 24 LLM shapes, C[M,N] = A[M,K] . B[N,K]^T in
# bf16, each kernel library against cuBLAS in the same harness run (interleaved,
# L2 flushed). M in {1,8,16,32,64,128} (decode) and {4096,16384} (prefill),
# N x K in {4096x4096, 14336x4096, 4096x14336} (Llama-3-8B attention out /
# MLP up / MLP down). Prints each ratio (cuBLAS ms / kernel ms; > 1 is faster
# than cuBLAS), the geometric mean per kernel and of the best kernel per shape
# (choosing among verified schedules per shape is what a tuner does).
# Usage: bash bench/gpu/shape_suite.sh HARNESS "DECODE.so..." "PREFILL.so..."
# (the first list runs at M <= 128, the second at M >= 4096; RUNS=20, OUT=dir)
# or     PLAN=FILE bash bench/gpu/shape_suite.sh HARNESS: one harness run per
# line of FILE, "KERNEL.so ARGS..." (what bench/gpu/build_splitk.sh writes:
# per shape its candidate kernels, split-K pairs with the arguments
# `cake run --split-k S --dry-run` binds). The table: suite_table.py.
set -u
H=$1; DEC=${2:-}; PRE=${3:-}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
J="$OUT/suite.jsonl"
if [ -n "${PLAN:-}" ]; then
  while read -r so args; do
    [ -n "$so" ] && timeout -s KILL ${RUN_TIMEOUT:-30} "$H" --kernel "$so" $args --runs ${RUNS:-20} 2>/dev/null </dev/null | tail -1 >> "$J"
  done < "$PLAN"
  DEC=""; PRE=""
fi
for m in 1 8 16 32 64 128 4096 16384; do
  for nk in "4096 4096" "14336 4096" "4096 14336"; do
    set -- $nk; n=$1; k=$2
    if [ $m -le 128 ]; then ks=$DEC; else ks=$PRE; fi
    for so in $ks; do
      timeout -s KILL 120 "$H" --kernel "$so" --m $m --n $n --k $k --runs ${RUNS:-20} 2>/dev/null | tail -1 >> "$J"
    done
  done
done
python3 "$(dirname "$0")/suite_table.py" "$J"
