#!/usr/bin/env bash
# Device run of the generalised lowering (docs/gpu.md "Measurements"):
#  * corpus/gemm/sm90_ws_4stage.cake at 4096^3 and 8192^3 against cuBLAS
#    (kernel and cuBLAS interleaved, 50 runs each) and edge shapes;
#  * corpus/gemm/sm80_cp_async_multistage.cake: correctness (4096^3 and edge shapes);
#  * three non-GEMM schedules through the generic launcher against CPU
#    references (bench/gpu/generic_check.cu): a row sum, a column sum with a
#    cross-warp reduction, and the FA3-style attention (RS wgmma, softmax).
# Built here beforehand into .devcarry/low2 (see docs/gpu.md "Reproducing").
set -u
D=.devcarry/low2
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
gpu_line
H="timeout -s KILL 120 $D/cake_harness"
json() { grep -o "\"$2\": [^,}]*" "$1" | head -1; }
for so in $D/sm90_ws_4stage.so; do
  for s in 4096 8192; do
    $H --kernel "$so" --m $s --n $s --k $s --runs ${RUNS:-50} > "$OUT/run.txt" 2>&1; rc=$?
    tail -1 "$OUT/run.txt" >> "$OUT/results.jsonl"
    echo "== $(basename $so) $s^3 rc=$rc"; grep -E "^(gemm|cublas|correct)" "$OUT/run.txt"
    echo "   $(json $OUT/run.txt min_ms) $(json $OUT/run.txt baseline_min_ms) $(json $OUT/run.txt cublas_min_ms)"
    [ $rc -gt 1 ] && tail -3 "$OUT/run.txt"
  done
done
for so in $D/sm80_cp_async_multistage.so; do
  $H --kernel "$so" --m 4096 --n 4096 --k 4096 --runs 20 > "$OUT/run.txt" 2>&1; rc=$?
  tail -1 "$OUT/run.txt" >> "$OUT/results.jsonl"
  echo "== $(basename $so) 4096^3 rc=$rc"; grep -E "^(gemm|cublas|correct)" "$OUT/run.txt"
done
for so in $D/sm90_ws_4stage.so $D/sm80_cp_async_multistage.so; do
  edge_shapes "$so" "3000 2056 1000" "128 256 64" "200 264 72" "1 8 8"
done
for k in "rowsum explicit_phase" "colsum sm90_self_prefetch" "attn sm90_fa3_fwd"; do
  set -- $k
  timeout -s KILL 60 $D/generic_check --kernel $D/$2.so --kind $1 2>&1 | tee -a "$OUT/results.jsonl"
done
if command -v cuobjdump >/dev/null; then
  cuobjdump --dump-sass $D/sm90_ws_4stage.so > "$OUT/gemm.sass" 2>&1
  echo "sm90_ws_4stage.so: $(grep -c HGMMA $OUT/gemm.sass) HGMMA, $(grep -c UTMALDG $OUT/gemm.sass) UTMALDG, $(grep -cE 'LDL|STL' $OUT/gemm.sass) LDL/STL, $(grep -c USETMAXREG $OUT/gemm.sass) USETMAXREG"
  rm -f "$OUT/gemm.sass"
fi
