#!/usr/bin/env bash
# One device call for issue 13 (helper pp2): where the ping-pong GEMM loses
# at 4096^3. `cake run --workload gemm` (verify, bind, lower, compile, run
# against cuBLAS in the same process, L2 flushed, 30 runs) on the ping-pong
# schedules 128x192 (the last smoke's), 128x176 and 128x208 and the
# cooperative sm90_ws_bn256_s4, at 4096^3 and 8192^3, 4096^3 twice; then
# Nsight Compute at 4096^3 (per-SM busy cycles and tensor-pipe cycles: min,
# mean, max over the 132 SMs, which is what wave quantization moves; the
# stall reasons and SASS hot spots) on the fastest ping-pong, the 128x192
# ping-pong and the cooperative schedule.
# Carry [".devcarry/pp2"], filled here by bench/gpu/pp2/prepare.sh: bin/cake
# (built in /work/h-pp2, whose path it has compiled in for the ABI header),
# bin/cake_harness, lib/ (libz3, libfmt), the schedules, nvcc_cached.sh and
# its socache/ (the kernel libraries of the same lowered sources, nvcc 13.0
# here; a device with another nvcc misses and compiles).
#   bash .devcarry/pp2/device_pp2.sh
set -u
D=.devcarry/pp2
. bench/gpu/device_env.sh "$D"
LIMIT=${LIMIT:-220}
L=$OUT/log.txt
log "$(gpu_line)"
log "$(nvcc --version 2>/dev/null | grep release)"
[ -e /work/h-pp2 ] || { mkdir -p /work && ln -s "$PWD" /work/h-pp2; }
export CAKE_HARNESS=$D/bin/cake_harness CAKE_NVCC=$D/nvcc_cached.sh NVCC_CACHE=$D/socache NVCC_CACHE_LOG=$OUT/nvcc_cache.log
R=$OUT/runs.jsonl; : > "$R"
run() {  # run FILE SIZE REP
  local f=$1 s=$2 rep=$3
  [ "$(left)" -gt 25 ] || { log "skip $f $s (time)"; return; }
  timeout -s KILL 100 $D/bin/cake run "$D/$f.cake" --workload gemm --shape M=$s,N=$s,K=$s --check-timeout 60 \
    --format json --runs 30 --seed 3 > "$OUT/one.json" 2> "$OUT/one.err"
  local rc=$?
  python3 - "$OUT/one.json" "$f" "$s" "$rep" "$rc" >> "$R" <<'PY' 2>> "$L"
import json, sys
p, f, s, rep, rc = sys.argv[1:]
try:
    d = json.load(open(p))
except Exception:
    d = {"result": "no_output"}
h = d.get("harness") or {}
d.update(schedule=f, size=int(s), rep=int(rep), rc=int(rc))
m, bm = h.get("min_ms"), h.get("baseline_min_ms")
d["min_ratio"] = bm / m if m and bm else None
print(json.dumps(d))
sys.stderr.write("%-28s %5s^3 rep %s rc %s %-6s verified %s ratio %.3f (min-to-min %.3f) kernel %.4f ms cublas %.4f ms rel_err %s\n" % (
    f, s, rep, rc, d.get("result"), d.get("verified"), d.get("ratio") or 0, d["min_ratio"] or 0,
    d.get("median_ms") or 0, d.get("baseline_ms") or 0, d.get("rel_error")))
PY
  tail -1 "$L"; tail -1 "$OUT/nvcc_cache.log" 2>/dev/null; grep -h 'error' "$OUT/one.err" | head -3
}
G="sm90_ws_bn256_s4 sm90_pingpong_128x192_r240 sm90_pingpong_128x176 sm90_pingpong_128x208"
for g in $G; do run $g 4096 1; done
for g in $G; do run $g 8192 1; done
for g in $G; do run $g 4096 2; done
log "timing done, $(left) s left"
# correctness at edge shapes (partial tiles in M, N, K; tiny), untimed, the two new schedules
H=$CAKE_HARNESS
for g in sm90_pingpong_128x176 sm90_pingpong_128x208; do
  [ "$(left)" -gt 60 ] && edge_shapes $D/so/$g.so "3000 2056 1000" "1400 2056 200" "200 264 72" "1 8 8" 2>&1 | tee -a "$L"
done
# Nsight Compute at 4096^3: the fastest ping-pong by median ratio, the 128x192 one and the cooperative one
best=$(python3 -c "
import json
rs=[json.loads(l) for l in open('$R')]
rs=[r for r in rs if r['size']==4096 and 'pingpong' in r['schedule'] and r.get('result')=='ok']
print(max(rs,key=lambda r:r.get('ratio') or 0)['schedule'] if rs else '')")
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max
M=$M,sm__pipe_tensor_cycles_active.min,sm__pipe_tensor_cycles_active.avg,sm__pipe_tensor_cycles_active.max
M=$M,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active
M=$M,lts__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct
for g in $(echo "$best sm90_pingpong_128x192_r240 sm90_ws_bn256_s4" | tr ' ' '\n' | awk 'NF && !seen[$0]++'); do
  [ "$(left)" -gt 20 ] || { log "skip ncu $g (time)"; continue; }
  so=$D/so/$g.so
  timeout -s KILL 60 ncu --clock-control none -k regex:cake_gemm -c 1 --metrics $M --section WarpStateStats --section SourceCounters \
    -o "$OUT/ncu_$g" -f $CAKE_HARNESS --kernel $so --m 4096 --n 4096 --k 4096 --no-time > "$OUT/ncu_$g.log" 2>&1
  ncu -i "$OUT/ncu_$g.ncu-rep" --csv --page raw > "$OUT/ncu_${g}_raw.csv" 2>/dev/null
  ncu -i "$OUT/ncu_$g.ncu-rep" --csv --page source --print-source sass > "$OUT/ncu_${g}_sass.csv" 2>/dev/null
  rm -f "$OUT/ncu_$g.ncu-rep"
  echo "== ncu $g" | tee -a "$L"
  python3 $D/ncu_balance.py "$OUT/ncu_${g}_raw.csv" 2>&1 | tee -a "$L"
  python3 bench/gpu/ncu_summary.py "$OUT/ncu_${g}_raw.csv" 2>&1 | tee -a "$L"
  python3 bench/gpu/ncu_hotspots.py "$OUT/ncu_${g}_sass.csv" 12 2>&1 | tee -a "$L"
  tail -3 "$OUT/ncu_$g.log"
done
log "done, $(left) s left"
(cd "$OUT" && rm -f one.json one.err run.txt && tar czf ncu.tgz --remove-files ncu_* 2>/dev/null); ls "$OUT"
