#!/usr/bin/env bash
# One device call for issue 13 (docs/gpu.md "Where the time goes"): built here by
# bench/gpu/build_perf.sh into .devcarry/perf, copied there with this script and
# shape_suite.sh. Steps (each skippable: STEPS="time edge ncu sass suite";
# KERNELS, EDGE_KERNELS, NCU_KERNELS, DECODE_KERNELS, PREFILL_KERNELS pick .so files):
#  time:  every kernel at 4096^3 and 8192^3 vs cuBLAS (interleaved, L2 flushed)
#  edge:  correctness at edge shapes (partial tiles, partial raster groups)
#  ncu:   Nsight Compute --set full on one launch of each corpus GEMM (4096^3),
#         exported as CSV (details page, raw metrics, per-SASS-instruction source
#         page with the warp-stall samples) + a text summary. NCU_CLOCK=base locks
#         the clocks as ncu does by default; the default here is none (the boost
#         clocks the timed runs see; the device notes ask to leave them alone)
#  ncu_cublas: the same for cuBLAS's kernel (which algorithm it picked)
#  sass:  SASS of the lowered corpus GEMMs (mainloop census)
#  suite: the 24-shape suite (shape_suite.sh) for SUITE_KERNELS
set -u
D=${D:-.devcarry/perf}
STEPS=${STEPS:-time edge ncu sass suite}
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
H="$D/cake_harness"
gpu_line
KERNELS=${KERNELS:-$(ls $D/*.so | sort)}
has() { case " $STEPS " in *" $1 "*) return 0;; esac; return 1; }
if has time; then
  for s in 4096 8192; do
    for so in $KERNELS; do
      timeout -s KILL 120 $H --kernel $so --m $s --n $s --k $s --runs ${RUNS:-30} 2>/dev/null | tail -1 > "$OUT/r.json"
      cat "$OUT/r.json" >> "$OUT/time.jsonl"
      python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('%-40s %5d^3 %-6s ratio %.3f  kernel %.4f ms  cublas %.4f ms  rel_err %s' % (sys.argv[2], $s, r.get('result'), r.get('ratio') or 0, r.get('median_ms') or 0, r.get('baseline_ms') or 0, r.get('rel_error')))" "$OUT/r.json" "$(basename $so)" 2>/dev/null || echo "$(basename $so) $s: $(head -c 300 $OUT/r.json)"
    done
  done
fi
if has edge; then
  for so in ${EDGE_KERNELS:-$KERNELS}; do
    res=""
    for shp in "3000 2056 1000" "1400 2056 200" "200 264 72" "1 8 8" "4096 1000 64"; do
      set -- $shp
      timeout -s KILL 60 $H --kernel $so --m $1 --n $2 --k $3 --no-time 2>/dev/null | tail -1 > "$OUT/r.json"
      cat "$OUT/r.json" >> "$OUT/edge.jsonl"
      res="$res $1x$2x$3:$(grep -o '"result": "[a-z_]*"' $OUT/r.json | cut -d'"' -f4)"
    done
    echo "edge $(basename $so):$res"
  done
fi
if has ncu && command -v ncu >/dev/null; then
  for so in ${NCU_KERNELS:-$KERNELS}; do
    n=$(basename $so .so)
    timeout -s KILL 90 ncu --set full --import-source yes --clock-control ${NCU_CLOCK:-none} -k regex:'^(cake_gemm|gemm_kernel)' -c 1 -o "$OUT/ncu_$n" -f \
      $H --kernel $so --m 4096 --n 4096 --k 4096 --no-time > "$OUT/ncu_$n.log" 2>&1
    [ -s "$OUT/ncu_$n.ncu-rep" ] || echo "ncu $n: no report ($(tail -1 $OUT/ncu_$n.log))"
    ncu -i "$OUT/ncu_$n.ncu-rep" --csv --page details > "$OUT/ncu_${n}_details.csv" 2>/dev/null
    ncu -i "$OUT/ncu_$n.ncu-rep" --csv --page raw > "$OUT/ncu_${n}_raw.csv" 2>/dev/null
    ncu -i "$OUT/ncu_$n.ncu-rep" --print-summary per-kernel > "$OUT/ncu_${n}_summary.txt" 2>/dev/null
    ncu -i "$OUT/ncu_$n.ncu-rep" --csv --page source --print-source sass > "$OUT/ncu_${n}_sass.csv" 2>"$OUT/ncu_${n}_sass.err"
    rm -f "$OUT/ncu_$n.ncu-rep"
    python3 $D/ncu_summary.py "$OUT/ncu_${n}_raw.csv"
  done
fi
# cuBLAS's own kernel at 4096^3 (its name says tile, stages, cluster: nvjet_..._256x128_64x4_2x1_...)
if has ncu_cublas && command -v ncu >/dev/null; then
  so=$(echo ${NCU_KERNELS:-$KERNELS} | cut -d' ' -f1)
  timeout -s KILL 90 ncu --set full --clock-control ${NCU_CLOCK:-none} -k regex:'nvjet|xmma|cutlass' -c 1 \
    -o "$OUT/ncu_cublas" -f $H --kernel $so --m 4096 --n 4096 --k 4096 --no-time > "$OUT/ncu_cublas.log" 2>&1
  ncu -i "$OUT/ncu_cublas.ncu-rep" --csv --page raw > "$OUT/ncu_cublas_raw.csv" 2>/dev/null
  ncu -i "$OUT/ncu_cublas.ncu-rep" --csv --page details > "$OUT/ncu_cublas_details.csv" 2>/dev/null
  rm -f "$OUT/ncu_cublas.ncu-rep"
  echo "cublas kernel: $(grep -o '"[^"]*\(nvjet\|xmma\|cutlass\)[^"]*"' "$OUT/ncu_cublas_details.csv" | head -1)"
  python3 $D/ncu_summary.py "$OUT/ncu_cublas_raw.csv"
fi
if has sass && command -v cuobjdump >/dev/null; then
  for so in ${SASS_KERNELS:-$KERNELS}; do
    n=$(basename $so .so)
    cuobjdump --dump-sass $so > "$OUT/sass_$n.txt" 2>/dev/null
    echo "sass $n: $(grep -c HGMMA $OUT/sass_$n.txt) HGMMA $(grep -c HMMA $OUT/sass_$n.txt) HMMA $(grep -c 'STS' $OUT/sass_$n.txt) STS $(grep -c 'LDL\|STL' $OUT/sass_$n.txt) LDL/STL $(grep -c 'WARPGROUP.DEPBAR\|WARPGROUP.ARRIVE' $OUT/sass_$n.txt) WG-sync $(grep -c 'SYNCS' $OUT/sass_$n.txt) SYNCS"
  done
fi
if has suite; then
  bash $D/shape_suite.sh $H "${DECODE_KERNELS:-$D/sm90_small_m.so $D/sm90_pingpong_128.so}" \
    "${PREFILL_KERNELS:-$D/sm90_ws_bn256_persistent.so $D/sm90_pingpong_128.so}"
fi
# the run tool returns a few files only: everything goes back as one tarball
(cd "$OUT" && tar czf perf.tgz --remove-files $(ls | grep -v '^perf.tgz$'))
