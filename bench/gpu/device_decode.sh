#!/usr/bin/env bash
# One device call for the decode shapes of the issue-13 suite (helper `gemm`,
# docs/benchmarks.md "Decode shapes"): built here by
#   CORPUS="" HAND=0 BENCH="decode/... sm90_small_m16 ..." DEST=/work/main/.devcarry/gemm bash bench/gpu/build_perf.sh build
# (every schedule `cake check`ed there first; the reports are in check.txt), then on the device
#   D=.devcarry/gemm bash .devcarry/gemm/device_decode.sh
# Steps (STEPS="edge screen ncu suite square"):
#  edge:   correctness of every kernel at partial-tile shapes (no timing)
#  screen: SCREEN_KERNELS at M in SCREEN_M (<= 64) and M128_KERNELS at M = 128, for the three
#          N x K of the suite, each against cuBLAS in the same harness run (interleaved, L2 flushed)
#  ncu:    Nsight Compute (speed of light, memory, warp states) of NCU_KERNELS at 1 x 4096 x 4096
#  suite:  shape_suite.sh with DECODE_KERNELS / PREFILL_KERNELS (the 24 shapes)
#  square: SQUARE_KERNELS at 4096^3 and 8192^3 (ping-pong vs cooperative in one run)
#  splitedge: correctness of the split-K pairs of $D/splitedge.txt (no timing)
#  plan:   the suite as planned in $D/plan.txt (bench/gpu/build_splitk.sh: per shape its candidates,
#          split-K pairs included), table by suite_table.py
set -u
D=${D:-.devcarry/gemm}
STEPS=${STEPS:-edge screen ncu}
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
H="$D/cake_harness"
RUNS=${RUNS:-20}
has() { case " $STEPS " in *" $1 "*) return 0;; esac; return 1; }
one() {  # kernel m n k [harness flags] -> one JSON line appended to $J, a summary line printed
  local so=$1 m=$2 n=$3 k=$4; shift 4
  timeout -s KILL 60 $H --kernel $so --m $m --n $n --k $k "$@" 2>/dev/null | tail -1 > "$OUT/r.json"
  cat "$OUT/r.json" >> "$J"
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('%-28s %6dx%5dx%5d %-6s ratio %.3f kernel %.4f cublas %.4f rel %s' % (sys.argv[2], $m, $n, $k, r.get('result'), r.get('ratio') or 0, r.get('median_ms') or 0, r.get('baseline_ms') or 0, r.get('rel_error')))" "$OUT/r.json" "$(basename $so .so)" 2>/dev/null || echo "$(basename $so) ${m}x${n}x${k}: $(head -c 300 $OUT/r.json)"
}
gpu_line
ALL=$(ls $D/*.so | sort)
if has edge; then
  J="$OUT/edge.jsonl"
  for so in ${EDGE_KERNELS:-$ALL}; do
    for shp in "3000 2056 1000" "200 264 72" "1 8 8" "100 4104 1000"; do one $so $shp --no-time; done
  done
fi
if has screen; then
  J="$OUT/screen.jsonl"
  for nk in "4096 4096" "14336 4096" "4096 14336"; do
    for m in ${SCREEN_M:-1 64}; do for so in $SCREEN_KERNELS; do one $so $m $nk --runs $RUNS; done; done
    for so in ${M128_KERNELS:-}; do one $so 128 $nk --runs $RUNS; done
  done
fi
if has ncu && command -v ncu >/dev/null; then
  for so in ${NCU_KERNELS:-}; do
    n=$(basename $so .so)
    timeout -s KILL 60 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
      --section Occupancy --section LaunchStats --clock-control none -k regex:'^cake_.*_kernel$' -c 1 \
      $H --kernel $so --m ${NCU_M:-1} --n 4096 --k 4096 --no-time > "$OUT/ncu_$n.txt" 2>&1
    grep -E 'Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|Registers Per|Achieved Occupancy|Stall|Warp Cycles' "$OUT/ncu_$n.txt" | head -20 | sed "s/^/$n: /"
  done
fi
if has suite; then
  OUT=$OUT RUNS=$RUNS bash $D/shape_suite.sh $H "$DECODE_KERNELS" "$PREFILL_KERNELS"
fi
if has splitedge; then
  while read -r so args; do
    timeout -s KILL 10 $H --kernel $so $args --no-time 2>/dev/null </dev/null | tail -1 | tee -a "$OUT/splitedge.jsonl" |
      python3 -c "import json,sys; r=json.load(sys.stdin); print('%-60s %dx%dx%d s%s %s rel %s %s' % (r.get('kernel'), r.get('M',0), r.get('N',0), r.get('K',0), r.get('split'), r.get('result'), r.get('rel_error'), r.get('error','')))" 2>/dev/null || echo "splitedge failed: $so $args"
  done < $D/splitedge.txt
fi
if has plan; then
  PLAN=$D/plan.txt OUT=$OUT RUNS=$RUNS bash $D/shape_suite.sh $H
fi
if has square; then
  J="$OUT/square.jsonl"
  for s in 4096 8192; do for so in $SQUARE_KERNELS; do one $so $s $s $s --runs 30; done; done
fi
