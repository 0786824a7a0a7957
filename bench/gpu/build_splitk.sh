#!/usr/bin/env bash
# Build here (no GPU needed) the GEMM shape suite of issue 13 with split-K
# (helper `gemm`, docs/benchmarks.md "Split-K"): every candidate schedule
# `cake check`ed and built by build_perf.sh into $DEST (default .devcarry/gemm),
# then the plan the device runs (PLAN mode of shape_suite.sh): per suite shape
# its candidates, one line "KERNEL.so ARGS" each; a split-K pair's arguments
# come from `cake run FILE --split-k S --dry-run` (its binding: the grids, the
# workspace W[S, M, N], each kernel's parameters), which verifies both kernels
# first. Then on the device:
#   STEPS="splitedge plan" D=.devcarry/gemm bash .devcarry/gemm/device_decode.sh
# Usage: bash bench/gpu/build_splitk.sh [BUILD_DIR]   (PLAN_D: $DEST as the device sees it, the
# plan's paths; e.g. DEST=/work/main/.devcarry/gemm PLAN_D=.devcarry/gemm)
set -eu
B=${1:-build}
D=${DEST:-.devcarry/gemm}
SPLIT=${SPLIT-"sm90_decode_splitk_bn128_s8 sm90_decode_splitk_bn256_s4 sm90_decode_splitk_bn64_s12
  sm90_decode_splitk_bn224_s4 sm90_decode_splitk_bn96_s10"}
# PDL=1 (default): each pair's twin chained with programmatic dependent launch (gen.py "_pdl")
# is built, planned beside it and edge-checked too
[ "${PDL:-1}" = 1 ] && SPLIT="$SPLIT $(for s in $SPLIT; do echo ${s}_pdl; done)"
# and each pair's twin with the 32-column swizzled reduce (gen.py "_r32"), where gen.py writes one
SPLIT="$SPLIT $(for s in $SPLIT; do r=${s%_pdl}_r32${s#${s%_pdl}}; [ -f bench/gpu/schedules/decode/$r.cake ] && echo $r; done)"
# and each PDL pair's twins with the reduce of plain global loads (gen.py "_rg{RBN}_pdl")
SPLIT="$SPLIT $(for s in $SPLIT; do case $s in *_r32*) ;; *_pdl) for f in bench/gpu/schedules/decode/${s%_pdl}_rg*_pdl.cake; do
  [ -f $f ] && basename $f .cake; done;; esac; done)"
# the plain decode kernels that were the best or near it per shape in the last suite
# (bench/gpu/results/decode/session7_smoke_call), and the prefill kernel
PLAIN=${PLAIN-"sm90_small_m16 sm90_ws_bn256_s4 decode/sm90_decode_bn32_s16_w2 decode/sm90_decode_bn32_s18_w1_r
  decode/sm90_decode_bn112_s9_w1_r decode/sm90_decode_bn112_s8_w2 decode/sm90_decode_bn64_s12_w2_r
  decode/sm90_decode_bn32_s16_w2_r decode/sm90_decode_m128_bn32_s10 decode/sm90_decode_m128_bn112_s6"}
BENCH="$PLAIN $(for s in $SPLIT; do echo decode/$s; done)"
# SKIP_BUILD=1: the libraries are there, write the plan only
[ "${SKIP_BUILD:-0}" = 1 ] || CORPUS="" HAND=0 BENCH="$BENCH" DEST=$D bash bench/gpu/build_perf.sh $B > /dev/null
cp bench/gpu/shape_suite.sh bench/gpu/suite_table.py bench/gpu/device_decode.sh bench/gpu/device_env.sh $D/
# TESTS=1: the runner's test binary and the sources its split-K tests read (CAKE_SOURCE_DIR=$D/src)
if [ "${TESTS:-0}" = 1 ]; then
  cp $B/tests/cake_tests_runner $D/
  mkdir -p $D/src/corpus/splitk $D/src/bench/gpu/schedules/decode
  cp corpus/splitk/*.cake $D/src/corpus/splitk/
  cp bench/gpu/schedules/decode/sm90_decode_splitk_*.cake $D/src/bench/gpu/schedules/decode/
fi

PD=${PLAN_D:-$D}
lib() { echo "$PD/$(basename $1).so"; }
plain() {  # kernel m n k: a plan line (a kernel that was not built is left out)
  if [ -f "$D/$(basename $1).so" ]; then echo "$(lib $1) --m $2 --n $3 --k $4"; fi
}
split() {  # pair-file S m n k: a plan line (and its _pdl twin's with PDL=1, and the _r32 twins'), the arguments bound by cake
  local p=$1 v; shift
  for v in $p ${p}_r32 ${p}_pdl ${p}_r32_pdl $(cd bench/gpu/schedules/decode && ls ${p}_rg*_pdl.cake 2>/dev/null | sed 's/\.cake$//'); do
    case $v in *_pdl) [ "${PDL:-1}" = 1 ] || continue;; esac
    [ $v = $p ] || [ -f bench/gpu/schedules/decode/$v.cake ] || continue
    one_split $v "$@"
  done
}
one_split() {
  local f=bench/gpu/schedules/decode/$1.cake
  local defs=($(sed -n 's/^def \([A-Za-z0-9_]*\)(.*/\1/p' $f))
  local args
  args=$("$B/cli/cake" run $f --split-k $2 --shape $3x$4x$5 --dry-run --format json --check-timeout 120 |
         python3 -c 'import json,sys; r=json.load(sys.stdin); assert r["result"]=="dry_run", r; print(r["detail"])')
  echo "$(lib ${defs[0]}) --reduce $(lib ${defs[1]}) $args"
}
# FOCUS=SUITE.jsonl or RECORDS.jsonl.gz (with FOCUS_PLAN=its plan.txt; FOCUS_PAIRS: focus_plan.py's
# PAIR_SUBSTR; SKIP_BUILD=1, the libraries built by hand or
# earlier): a short plan instead of the suite, bench/gpu/focus_plan.py's lines (the last call's best
# kernel per shape and best PDL pair per decode shape) and, for each such pair P, the twins
# P%_pdl_rg*_pdl (gen.py's global-load reduce) bound here, and the EXTRA pairs; splitedge.txt then
# holds those twins and pairs only
if [ -n "${FOCUS:-}" ]; then
  P=$D/plan.txt; : > $P; E=$D/splitedge.txt; : > $E
  python3 bench/gpu/focus_plan.py "$FOCUS" "$FOCUS_PLAN" "$PD" ${FOCUS_PAIRS:-} | while read -r first rest; do
    if [ "$first" != twin ]; then echo "$first $rest" >> $P; continue; fi
    set -- $rest
    for f in bench/gpu/schedules/decode/${1%_pdl}_rg*_pdl.cake; do
      [ -f "$f" ] || continue
      t=$(basename $f .cake); one_split $t $2 $3 $4 $5 >> $P
      grep -q "/$t.so .*--split 5 --m 200 " $E || { one_split $t 5 200 264 1000; one_split $t 3 1 8 8
                                                    one_split $t 4 100 4104 1000; } >> $E
    done
  done
  # EXTRA="FILE:S:M:N:K ..." (FILE: a pair under bench/gpu/schedules/decode without .cake): more
  # pairs bound at those shapes, each file's edge cases once
  for x in ${EXTRA:-}; do
    IFS=: read -r t s m n k <<< "$x"
    one_split $t $s $m $n $k >> $P
    grep -q "/$t.so .*--split 5 --m 200 " $E || { one_split $t 5 200 264 1000; one_split $t 3 1 8 8
                                                  one_split $t 4 100 4104 1000; } >> $E
  done
  wc -l $P $E; exit 0
fi
P=$D/plan.txt; : > $P
for m in 1 8 16 32 64 128; do
  if [ $m -le 64 ]; then
    for k in sm90_small_m16 sm90_decode_bn32_s16_w2 sm90_decode_bn32_s18_w1_r; do plain $k $m 4096 4096 >> $P; done
    for k in sm90_decode_bn112_s9_w1_r sm90_decode_bn112_s8_w2; do plain $k $m 14336 4096 >> $P; done
    for k in sm90_small_m16 sm90_decode_bn64_s12_w2_r sm90_decode_bn32_s16_w2_r sm90_decode_bn32_s18_w1_r; do
      plain $k $m 4096 14336 >> $P; done
    # split-K: about one wave of 128 CTAs (N / BN tiles x S slices)
    for nk in "4096 4096" "4096 14336"; do
      split sm90_decode_splitk_bn128_s8 4 $m $nk >> $P
      split sm90_decode_splitk_bn256_s4 8 $m $nk >> $P
      split sm90_decode_splitk_bn64_s12 2 $m $nk >> $P
      split sm90_decode_splitk_bn96_s10 3 $m $nk >> $P   # 43 tiles x 3 = 129 CTAs
    done
    split sm90_decode_splitk_bn256_s4 2 $m 14336 4096 >> $P
    split sm90_decode_splitk_bn224_s4 2 $m 14336 4096 >> $P  # 64 tiles x 2
  else
    for nk in "4096 4096" "14336 4096" "4096 14336"; do
      for k in sm90_decode_m128_bn32_s10 sm90_decode_m128_bn112_s6 sm90_decode_bn112_s9_w1_r; do plain $k $m $nk >> $P; done
    done
    for nk in "4096 4096" "4096 14336"; do
      split sm90_decode_splitk_bn128_s8 2 $m $nk >> $P
      split sm90_decode_splitk_bn256_s4 4 $m $nk >> $P
    done
  fi
done
for m in 4096 16384; do for nk in "4096 4096" "14336 4096" "4096 14336"; do plain sm90_ws_bn256_s4 $m $nk >> $P; done; done
# correctness of each pair at partial tiles and an empty last K slice (no timing)
E=$D/splitedge.txt; : > $E
for s in $SPLIT; do
  one_split $s 5 200 264 1000 >> $E
  one_split $s 3 1 8 8 >> $E
  one_split $s 4 100 4104 1000 >> $E
done
wc -l $P $E
