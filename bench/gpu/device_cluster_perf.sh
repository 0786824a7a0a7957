#!/usr/bin/env bash
# Where the time of the clustered (TMA multicast) GEMMs goes, and the
# persistent 2x1 cluster version of the best schedule (issue 13, helper
# cluster; docs/gpu.md "Thread-block clusters: where the time went").
#
#   bash bench/gpu/device_cluster_perf.sh prepare   # here: check, lower, nvcc into $D
#   bash bench/gpu/device_cluster_perf.sh           # on the device (carry $D)
#
# prepare: `cake check` of every schedule (the verdict lines go to
# $D/check.txt; a schedule whose check does not exit 0 is not lowered),
# `cake lower --check-timeout` (verified lowering), nvcc to one .so each with
# the flags the .cu names, the harness, the libraries the device lacks.
# BASE_CAKE=path/to/older/cake also lowers the cluster schedules with that
# binary as base_NAME.so (the lowering before a change, same schedule).
# device: (1) every .so against cuBLAS at 4096^3 and 8192^3 (the harness:
# interleaved runs, each after an L2 flush, CUPTI kernel times, same process);
# (2) correctness at edge shapes (device_perf.sh's edge step); (3) Nsight Compute --set full with the
# source page on one 4096^3 launch of each NCU kernel, summarised with
# ncu_summary.py / ncu_hotspots.py and the launch / L2 / cluster metrics;
# (4) a SASS census of the fences around the cluster synchronisation.
set -u
D=${D:-.devcarry/cluster}
SCHEDULES=${SCHEDULES:-"bench/gpu/schedules/sm90_ws_bn256_s4.cake bench/gpu/schedules/sm90_ws_bn256_s4_cluster2.cake
  bench/gpu/schedules/sm90_ws_bn256_cluster2.cake corpus/cluster/sm90_multicast_b.cake
  corpus/gemm/sm90_basic_one_consumer.cake"}
if [ "${1:-}" = prepare ]; then
  set -e
  B=${B:-build}
  . "$(dirname "$0")/device_env.sh" "$D"  # NVCC, SM90A, lowered_so
  CT=${CHECK_TIMEOUT:-1800}
  mkdir -p "$D/lib" "$D/cu"
  : > "$D/check.txt"
  for f in $SCHEDULES; do
    n=$(basename "$f" .cake)
    rc=0; /usr/bin/time -f "$n: check %e s wall, %U s user" nice "$B/cli/cake" check --timeout "$CT" "$f" \
      > "$D/check_$n.txt" 2>> "$D/check.txt" || rc=$?
    grep -E "sync:|result:" "$D/check_$n.txt" >> "$D/check.txt" || true
    echo "$n: cake check exit $rc" >> "$D/check.txt"
    [ $rc = 0 ] || continue
    "$B/cli/cake" lower --check-timeout "$CT" "$f" -o "$D/cu/$n.cu"
    lowered_so "$D/cu/$n.cu" "$D/$n.so" &
    if [ -n "${BASE_CAKE:-}" ] && grep -q 'cluster=' "$f"; then
      "$BASE_CAKE" lower --allow-unverified "$f" -o "$D/cu/base_$n.cu" 2>/dev/null
      lowered_so "$D/cu/base_$n.cu" "$D/base_$n.so" &
    fi
  done
  NVH="$NVCC -std=c++17 -O3 -cudart shared $SM90A -Irunner/harness -Iabi"
  [ -x "$D/cake_harness" ] || nice $NVH runner/harness/cake_harness.cu -o "$D/cake_harness" -lcublas -lcupti -ldl
  wait
  cp bench/gpu/ncu_summary.py bench/gpu/ncu_hotspots.py bench/gpu/device_perf.sh bench/gpu/device_env.sh "$0" "$D/"
  cp -L /usr/local/cuda/lib/libcupti.so.13 /usr/lib/x86_64-linux-gnu/libfmt.so.9 "$D/lib/"
  cat "$D/check.txt"; ls -la "$D"
  exit 0
fi
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
H="$D/cake_harness"
STEPS=${STEPS:-time edge ncu sass}
has() { case " $STEPS " in *" $1 "*) return 0;; esac; return 1; }
gpu_line
KERNELS=${KERNELS:-$(ls $D/*.so | sort)}
cp "$D/check.txt" "$OUT/" 2>/dev/null
if has time; then
  for s in ${SIZES:-4096 8192}; do
    for so in $KERNELS; do
      timeout -s KILL 120 $H --kernel $so --m $s --n $s --k $s --runs ${RUNS:-30} --seed 3 2>/dev/null | tail -1 > "$OUT/r.json"
      python3 -c "import json,sys; r=json.load(open(sys.argv[1])); r['kernel_file']=sys.argv[2]; print(json.dumps(r))" \
        "$OUT/r.json" "$(basename $so)" >> "$OUT/time.jsonl" 2>/dev/null
      python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('%-36s %5d^3 %-6s ratio %.3f  kernel %.4f ms  cublas %.4f ms  min-ratio %.3f  rel_err %s' % (sys.argv[2], $s, r.get('result'), r.get('ratio') or 0, r.get('median_ms') or 0, r.get('baseline_ms') or 0, (r.get('baseline_min_ms') or 0) / (r.get('min_ms') or 1), r.get('rel_error')))" "$OUT/r.json" "$(basename $so)" 2>/dev/null || echo "$(basename $so) $s: $(head -c 300 $OUT/r.json)"
    done
  done
fi
if has edge; then  # device_perf.sh's edge shapes (partial tiles and pairs, partial raster groups, M=1)
  mkdir -p "$OUT/edge"
  OUT="$OUT/edge" D="$D" STEPS=edge KERNELS="${EDGE_KERNELS:-$KERNELS}" bash "$D/device_perf.sh" | grep '^edge'
fi
if has ncu && command -v ncu >/dev/null; then
  for so in ${NCU_KERNELS:-$KERNELS}; do
    n=$(basename $so .so)
    timeout -s KILL 90 ncu --set full --import-source yes --clock-control none -k regex:'^cake_gemm' -c 1 \
      -o "$OUT/ncu_$n" -f $H --kernel $so --m 4096 --n 4096 --k 4096 --no-time --no-baseline > "$OUT/ncu_$n.log" 2>&1
    [ -s "$OUT/ncu_$n.ncu-rep" ] || { echo "ncu $n: no report ($(tail -2 $OUT/ncu_$n.log))"; continue; }
    ncu -i "$OUT/ncu_$n.ncu-rep" --csv --page raw > "$OUT/ncu_${n}_raw.csv" 2>/dev/null
    ncu -i "$OUT/ncu_$n.ncu-rep" --csv --page source --print-source sass > "$OUT/ncu_${n}_sass.csv" 2>/dev/null
    rm -f "$OUT/ncu_$n.ncu-rep"
    python3 $D/ncu_summary.py "$OUT/ncu_${n}_raw.csv"
    python3 - "$OUT/ncu_${n}_raw.csv" <<'PY'
import csv, re, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r]
h, u, v = rows[0], rows[1], rows[2]
want = re.compile(r"^(launch__grid_size|launch__cluster.*|launch__occupancy_cluster.*|launch__waves_per_multiprocessor|"
                  r"lts__t_bytes\.sum|lts__t_sectors_op_read\.sum|lts__t_sectors_srcunit_tex_op_read\.sum|"
                  r"dram__bytes_read\.sum|sm__ctas_launched\.sum|smsp__inst_executed\.sum|"
                  r"sm__pipe_tensor_cycles_active\.avg\.pct_of_peak_sustained_elapsed)$")
print("  " + "  ".join("%s=%s%s" % (k, x, "" if un in ("", "none") else " " + un) for k, un, x in zip(h, u, v) if want.match(k)))
PY
    python3 $D/ncu_hotspots.py "$OUT/ncu_${n}_sass.csv" 12
  done
fi
# the fences the compiler put around the cluster synchronisation: per .so, how
# many of each (MEMBAR.ALL.GPU / ERRBAR before a remote arrive is what a
# cluster-scope release costs)
if has sass && command -v cuobjdump >/dev/null; then
  for so in ${SASS_KERNELS:-$KERNELS}; do
    cuobjdump --dump-sass $so > "$OUT/sass.txt" 2>/dev/null
    echo "sass $(basename $so .so): $(grep -c 'SYNCS.ARRIVE.TRANS64.RED' $OUT/sass.txt) remote-arrive $(grep -c 'MEMBAR.ALL.GPU' $OUT/sass.txt) MEMBAR.ALL.GPU $(grep -c ' ERRBAR' $OUT/sass.txt) ERRBAR $(grep -c 'UCGABAR_ARV' $OUT/sass.txt) cluster-barrier $(grep -c 'HGMMA' $OUT/sass.txt) HGMMA $(grep -c 'LDL\|STL' $OUT/sass.txt) LDL/STL"
  done
  rm -f "$OUT/sass.txt"
fi
# the run tool returns a few files only: everything goes back as one tarball
(cd "$OUT" && tar czf cluster_perf.tgz --remove-files $(ls | grep -v '^cluster_perf.tgz$'))
