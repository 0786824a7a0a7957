#!/usr/bin/env bash
# Device smoke test of the merged tree: `cake run` end to end (verify, bind,
# lower, nvcc on the device, harness under the watchdog, oracle, CUPTI timing)
# on one corpus schedule per workload family, plus the runner's GPU tests.
# Carry: .devcarry/smokez (smoke.tar.xz: .devcarry/smoke's bin/cake,
# bin/cake_tests_runner, lib/ with libz3.so.4 and libfmt.so.9, stripped and
# compressed: the tree and the carry must stay under 64 MiB together),
# prepared by `bash bench/gpu/device_smoke.sh prepare` here. Device command:
#   tar xJf .devcarry/smokez/smoke.tar.xz && bash bench/gpu/device_smoke.sh
# The whole list runs past one call's 420-600 s: PART=1 runs the first
# FIRST cases (default 15), PART=2 the rest, the mma.sync peak and the runner
# tests; no PART runs everything.
set -u
PART=${PART:-} FIRST=${FIRST:-15} N=0
C=.devcarry/smoke
if [ "${1:-}" = prepare ]; then
  rm -rf $C .devcarry/smokez
  mkdir -p $C/bin $C/lib .devcarry/smokez
  cp build/cli/cake build/tests/cake_tests_runner $C/bin/
  strip $C/bin/*
  cp -L /usr/lib/x86_64-linux-gnu/libz3.so.4 /usr/lib/x86_64-linux-gnu/libfmt.so.9 $C/lib/
  tar cJf .devcarry/smokez/smoke.tar.xz $C
  exit 0
fi
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$C"
R="$OUT/smoke.jsonl"; : > "$R"
run() {
  N=$((N + 1))
  if [ "$PART" = 1 ] && [ $N -gt "$FIRST" ]; then return; fi
  if [ "$PART" = 2 ] && [ $N -le "$FIRST" ]; then return; fi
  echo "== cake run $*"
  local t0=$SECONDS
  timeout 120 $C/bin/cake run "$@" --format json --runs 20 --seed 3 > "$OUT/one.json" 2> "$OUT/one.err"
  echo "rc=$? ($((SECONDS - t0)) s)"; tail -c 1500 "$OUT/one.json"; echo; tail -5 "$OUT/one.err"
  python3 -c "import json,sys; d=json.load(open('$OUT/one.json')); print(json.dumps(d))" >> "$R" 2>/dev/null
}
run corpus/gemm/sm90_ws_4stage.cake --shape M=4096,N=4096,K=4096
run corpus/gemm/sm90_persistent_ws.cake --shape M=4096,N=4096,K=4096
run bench/gpu/schedules/sm90_ws_bn256_s4.cake --shape M=4096,N=4096,K=4096
run corpus/gemm/sm80_cp_async_multistage.cake --shape M=2048,N=2048,K=2048
run corpus/kmeans/sm90_assign_k256_ws.cake --workload kmeans-assign --shape N=65536,K=256,D=128,B=8
run corpus/attention/sm90_fa3_fwd.cake --workload attention-fwd --shape S=4096,D=64,B=1,H=16
run corpus/reduction/sm90_row_max_two_wg.cake --workload row-max --shape M=65536,N=2048
# Schedules of session 6 (issue 13): k-means at the target shape, the D=128
# attention schedule, the 2x1 cluster multicast GEMM.
run corpus/kmeans/sm90_assign_streamed_centroids.cake --workload kmeans-assign --shape N=65536,K=1024,D=128,B=32 --check-timeout 120
run bench/gpu/schedules/attn_d128/fa3_d128_fold.cake --workload attention-fwd --shape S=8192,D=128,B=4,H=32 --check-timeout 120
run corpus/cluster/sm90_multicast_b.cake --shape M=4096,N=4096,K=4096 --check-timeout 120
# Session 8: the two-launch split-K binding at a decode shape, and the 128x192
# ping-pong (ping-pong >= cooperative).
run bench/gpu/schedules/decode/sm90_decode_splitk_bn128_s8.cake --shape M=1,N=4096,K=14336 --split-k 4
run bench/gpu/schedules/sm90_pingpong_128x192_r240.cake --shape M=8192,N=8192,K=8192 --check-timeout 120
# Session 9: the PDL split-K pair with the 32-column reduce at the worst
# decode shape, the ping-pong without epilogue spills at 4096^3, the sm_80
# 128x128 k64 schedule with hoisted cp.async addresses.
run bench/gpu/schedules/decode/sm90_decode_splitk_bn64_s12_r32_pdl.cake --shape M=1,N=4096,K=4096 --split-k 2
run bench/gpu/schedules/sm90_pingpong_128x192_r240.cake --shape M=4096,N=4096,K=4096 --check-timeout 120
run bench/gpu/schedules/sm80/sm80_128x128_k64_s3.cake --shape M=4096,N=4096,K=4096
# Session 11: the transposed-wgmma split-K pair (weights on wgmma's 64-row
# side) at the worst decode shape, and the 128x208 ping-pong at 4096^3.
run bench/gpu/schedules/decode/sm90_decode_splitk_t8_bn64_s20_rg128_pdl.cake --shape M=1,N=4096,K=4096 --split-k 2
run bench/gpu/schedules/sm90_pingpong_128x208.cake --shape M=4096,N=4096,K=4096 --check-timeout 120
# Session 12: the 64x64 tile with a 13-slot ring at M=128 (cuBLAS's tile at
# this shape), and a 32-row transposed split-K pair whose 32-register
# accumulator takes the block-by-block wgmma issue order.
run bench/gpu/schedules/decode/sm90_decode_bn64_s13_w1.cake --shape M=128,N=4096,K=4096 --check-timeout 120
run bench/gpu/schedules/decode/sm90_decode_splitk_t32_bn128_s10_rg256_pdl.cake --shape M=32,N=4096,K=14336 --split-k 4 --check-timeout 120
# Session 13: ping-pong with tiles of 208, 200 and 192 columns (sliced
# accumulator) at 4096^3, and the split-K pair whose reduce loads 4 slices
# together at the suite's worst shape.
run bench/gpu/schedules/sm90_pingpong_128xvar.cake --shape M=4096,N=4096,K=4096 --check-timeout 120
run bench/gpu/schedules/decode/sm90_decode_splitk_t32_bn128_s10_rg256u4_pdl.cake --shape M=32,N=4096,K=14336 --split-k 4 --check-timeout 120
# Session 14: the sm_80 fragment schedules after the lowering's mma.sync
# changes (fragpre: the fastest in the helper's call; fragsp01 / fragsp12:
# the copies spread over the k-steps, not timed before), and the 16/32-row
# transposed split-K partials with shallower rings.
run bench/gpu/schedules/sm80/frag/fragpre_128x128_k64_s3.cake --shape M=4096,N=4096,K=4096
run bench/gpu/schedules/sm80/frag/fragsp01_128x128_k64_s3.cake --shape M=4096,N=4096,K=4096
run bench/gpu/schedules/sm80/frag/fragsp12_128x128_k64_s3.cake --shape M=4096,N=4096,K=4096
# Session 20: the serpentine mma.sync order and the A/B refill after k-steps 0/2 (helper sm80).
run bench/gpu/schedules/sm80/frag/fragsp13_128x128_k64_s3.cake --shape M=4096,N=4096,K=4096
run bench/gpu/schedules/decode/sm90_decode_splitk_t16_bn64_s10_rg1024_pdl.cake --shape M=16,N=4096,K=4096 --split-k 2 --check-timeout 120
run bench/gpu/schedules/decode/sm90_decode_splitk_t32_bn64_s8_rg256_pdl.cake --shape M=32,N=4096,K=4096 --split-k 2 --check-timeout 120
# Session 15: the unsplit transposed 16-row tile that now serves the
# suite's weakest shape (16 x 14336 x 4096; bf16 conversion on the bits, so
# ptxas keeps the wgmma asynchronous).
run bench/gpu/schedules/decode/sm90_decode_t16_bn128_s8.cake --shape M=16,N=14336,K=4096 --check-timeout 120
# Session 16: the var-width ping-pong with Y strips and grouped order at the
# suite's 4096 x 14336 x 4096 line, and the grouped cooperative var-width
# kernel at 16384 x 4096 x 4096.
run bench/gpu/schedules/sm90_pingpong_128xvar_g8_yw.cake --shape M=4096,N=14336,K=4096 --check-timeout 120
run bench/gpu/schedules/sm90_coop_128xvar_g8.cake --shape M=16384,N=4096,K=4096 --check-timeout 120
# Session 22: the sm_80 FlashAttention-2 forward through the attention
# contract (the sm_80 epilogue's 16-byte stores reach it too; helper sm80).
run corpus/attention/sm80_flash_attn2_fwd.cake --workload attention-fwd --shape S=4096,D=64,B=1,H=16 --check-timeout 120
[ "$PART" = 1 ] && exit 0
# mma.sync throughput (bench/gpu/kernels/hmma_peak.cu), built on the device.
if command -v nvcc >/dev/null; then
  nvcc -O3 -gencode=arch=compute_90a,code=sm_90a bench/gpu/kernels/hmma_peak.cu -o "$OUT/hmma_peak" &&
    "$OUT/hmma_peak" | tee "$OUT/hmma_peak.json"; rm -f "$OUT/hmma_peak"
fi
echo "== runner GPU tests"
timeout -s KILL 240 $C/bin/cake_tests_runner --gtest_brief=1 2>&1 | tail -15
