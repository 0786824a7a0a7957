#!/usr/bin/env bash
# One device call for the ping-pong epilogue fix (issue 13, helper pingpong;
# docs/gpu.md "Ping-pong epilogue: staging addresses"): the GEMMs whose
# epilogue the lowering change touches, lowered before (base_) and after,
# timed against cuBLAS at 4096^3 and 8192^3 by device_sm80pp.sh (same harness
# runs, edge shapes, SASS LDL/STL census; no ncu), then the D = 128 attention
# schedule before and after through the attention workload's harness arguments
# (`cake run --dry-run`'s detail).
# Built here (no GPU): see docs/benchmarks.md "Ping-pong epilogue without
# spills" for the commands. Run with carry [".devcarry/pingpong"]:
#   bash .devcarry/pingpong/device_pingpong.sh
set -u
D=${D:-.devcarry/pingpong}
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
G="sm90_pingpong_128x192_r240 sm90_ws_bn256_s4 sm90_ws_4stage sm90_persistent_ws"
K=""; for n in $G; do K="$K $D/base_$n.so $D/$n.so"; done
# GEMMs: time (4096^3, 8192^3), edge shapes of the two fastest, SASS census; results stay in $OUT/gemm
mkdir -p "$OUT/gemm"
OUT=$OUT/gemm D=$D KERNELS="$K" EDGE_KERNELS="$D/sm90_pingpong_128x192_r240.so $D/sm90_ws_bn256_s4.so" NCU_KERNELS=" " \
  bash "$D/device_sm80pp.sh"
# attention B=4, H=32, S=8192, D=128 (non-causal), before and after, twice each, interleaved
ARGS="--workload attention-fwd --dim B=4 --dim D=128 --dim H=32 --dim S=8192 --dim causal=0 --tensor Q:128,8192,128
  --tensor K:128,8192,128 --tensor VT:128,128,8192 --tensor O:128,8192,128 --i32 8192 --i32 8192 --launches 1"
for rep in 1 2; do
  for n in base_fa3_d128_fold fa3_d128_fold; do
    # shellcheck disable=SC2086
    timeout -s KILL 120 "$D/cake_harness" --kernel "$D/$n.so" $ARGS --runs 50 --warmup 5 --seed 7 2>/dev/null | tail -1 > "$OUT/r.json"
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); r['kernel']=sys.argv[2]; r['rep']=int(sys.argv[3]); print(json.dumps(r))" \
      "$OUT/r.json" "$n" "$rep" >> "$OUT/attention.jsonl" 2>/dev/null || echo "$n: $(head -c 300 "$OUT/r.json")"
    tail -1 "$OUT/attention.jsonl"
  done
done
for n in base_fa3_d128_fold fa3_d128_fold; do
  echo "sass $n: $(cuobjdump --dump-sass "$D/$n.so" 2>/dev/null | grep -c 'LDL\|STL') LDL/STL"
done
rm -f "$OUT/r.json"
