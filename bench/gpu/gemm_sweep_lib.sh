# Shared pieces of the GEMM sweep scripts (sourced, not run; bench/gpu/pp2,
# bench/gpu/pp3). Needs device_env.sh sourced first on the device (log,
# left, OUT, L).
#
#   sweep_start LIMIT0 [LINK]
#                           on the device, after D is set: LIMIT (LIMIT0 unless set), the log $L,
#                           the GPU and nvcc lines logged, CAKE_HARNESS; with LINK (the
#                           worktree path the kernels were lowered in, linked to the checkout)
#                           also the nvcc cache of $D/socache and an empty $R (runs.jsonl)
#   sweep_sizes NAME...     `run NAME SIZE REP` (the script's own run) on every NAME at 4096^3,
#                           8192^3 and 4096^3 again (rep 2): interleaved reps against drift
#   sweep_ncu_pack MIN NAME...
#                           ncu_profile at 4096^3 on the fastest ping-pong of $R and each NAME
#                           (each once, while more than MIN s are left), then the "done" line
#                           and $OUT/ncu.tgz of the profiles
#   carry_base W C          here: cake, libz3/libfmt and the harness into carry C from worktree W
#   gemm_run D F S REP RUNS [ARGS...]
#                           `cake run D/F.cake --workload gemm` at S^3 (RUNS timed runs, seed 3,
#                           ARGS added), one JSON record appended to $R with schedule, size, rep,
#                           rc and min_ratio (cuBLAS min / kernel min), one line logged
#   best_pingpong           the ping-pong schedule of $R with the best median ratio at 4096^3 (ok runs)
#   NCU_BALANCE_METRICS     the ncu metrics of the per-SM balance and summary lines
#   ncu_profile NAME SO [NCU_ARGS...]
#                           Nsight Compute on SO at 4096^3 (--clock-control none, first
#                           cake_gemm launch, NCU_BALANCE_METRICS, warp states, source
#                           counters, NCU_EXTRA_METRICS and NCU_ARGS added): $OUT/ncu_NAME_{raw,sass}.csv and
#                           _details.txt, the balance / summary / hot-spot lines logged

sweep_start() {
  LIMIT=${LIMIT:-$1}
  L=$OUT/log.txt
  log "$(gpu_line)"
  log "$(nvcc --version 2>/dev/null | grep release)"
  export CAKE_HARNESS=$D/bin/cake_harness
  [ -n "${2:-}" ] || return 0
  [ -e "$2" ] || { mkdir -p "$(dirname "$2")" && ln -s "$PWD" "$2"; }
  export CAKE_NVCC=$D/nvcc_cached.sh NVCC_CACHE=$D/socache NVCC_CACHE_LOG=$OUT/nvcc_cache.log
  R=$OUT/runs.jsonl; : > "$R"
}

sweep_sizes() {
  local g
  for g in "$@"; do run "$g" 4096 1; done
  for g in "$@"; do run "$g" 8192 1; done
  for g in "$@"; do run "$g" 4096 2; done
}

sweep_ncu_pack() {
  local min=$1 g
  shift
  for g in $(echo "$(best_pingpong) $*" | tr ' ' '\n' | awk 'NF && !seen[$0]++'); do
    [ "$(left)" -gt "$min" ] || { log "skip ncu $g (time)"; continue; }
    ncu_profile "$g" "$D/so/$g.so"
  done
  log "done, $(left) s left"
  (cd "$OUT" && rm -f one.json one.err run.txt && tar czf ncu.tgz --remove-files ncu_* 2>/dev/null); ls "$OUT"
}

carry_base() {
  local W=$1 C=$2
  mkdir -p "$C/bin" "$C/lib" "$C/so" "$C/socache"
  cp "$W/build/cli/cake" "$C/bin/"
  cp -L /usr/lib/x86_64-linux-gnu/libz3.so.4 /usr/lib/x86_64-linux-gnu/libfmt.so.9 "$C/lib/"
  # the harness of another sweep's carry (same runner/harness sources) when present, else built
  [ -x "$C/bin/cake_harness" ] || cp /work/main/.devcarry/pp2/bin/cake_harness "$C/bin/" 2>/dev/null ||
    nice /usr/local/cuda/bin/nvcc -std=c++17 -O2 -cudart shared \
      -gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90 -I"$W/runner/harness" -I"$W/abi" \
      "$W/runner/harness/cake_harness.cu" -o "$C/bin/cake_harness" -lcublas -lcupti -ldl \
      -L/usr/local/cuda/extras/CUPTI/lib64 -L/usr/local/cuda/lib64
}

gemm_run() {
  local D=$1 f=$2 s=$3 rep=$4 runs=$5
  shift 5
  timeout -s KILL 100 "$D/bin/cake" run "$D/$f.cake" --workload gemm --shape M=$s,N=$s,K=$s "$@" \
    --format json --runs "$runs" --seed 3 > "$OUT/one.json" 2> "$OUT/one.err"
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
sys.stderr.write("%-30s %5s^3 rep %s rc %s %-6s verified %s ratio %.3f (min-to-min %.3f) kernel %.4f ms cublas %.4f ms rel_err %s\n" % (
    f, s, rep, rc, d.get("result"), d.get("verified"), d.get("ratio") or 0, d["min_ratio"] or 0,
    d.get("median_ms") or 0, d.get("baseline_ms") or 0, d.get("rel_error")))
PY
  tail -1 "$L"; grep -h 'error' "$OUT/one.err" | grep -v allow-unverified | head -3
}

best_pingpong() {
  python3 - "$R" <<'PY'
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
rs = [r for r in rs if r["size"] == 4096 and "pingpong" in r["schedule"] and r.get("result") == "ok"]
print(max(rs, key=lambda r: r.get("ratio") or 0)["schedule"] if rs else "")
PY
}

NCU_BALANCE_METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max
NCU_BALANCE_METRICS=$NCU_BALANCE_METRICS,sm__pipe_tensor_cycles_active.min,sm__pipe_tensor_cycles_active.avg,sm__pipe_tensor_cycles_active.max
NCU_BALANCE_METRICS=$NCU_BALANCE_METRICS,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active
NCU_BALANCE_METRICS=$NCU_BALANCE_METRICS,lts__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct

ncu_profile() {
  local g=$1 so=$2 here
  shift 2
  here=$(dirname "${BASH_SOURCE[0]}")
  timeout -s KILL 60 ncu --clock-control none -k regex:cake_gemm -c 1 --metrics "$NCU_BALANCE_METRICS${NCU_EXTRA_METRICS:+,$NCU_EXTRA_METRICS}" \
    --section WarpStateStats --section SourceCounters "$@" \
    -o "$OUT/ncu_$g" -f "$CAKE_HARNESS" --kernel "$so" --m 4096 --n 4096 --k 4096 --no-time > "$OUT/ncu_$g.log" 2>&1
  ncu -i "$OUT/ncu_$g.ncu-rep" --csv --page raw > "$OUT/ncu_${g}_raw.csv" 2>/dev/null
  ncu -i "$OUT/ncu_$g.ncu-rep" --csv --page source --print-source sass > "$OUT/ncu_${g}_sass.csv" 2>/dev/null
  ncu -i "$OUT/ncu_$g.ncu-rep" --page details > "$OUT/ncu_${g}_details.txt" 2>/dev/null
  rm -f "$OUT/ncu_$g.ncu-rep"
  echo "== ncu $g" | tee -a "$L"
  python3 "$here/pp2/ncu_balance.py" "$OUT/ncu_${g}_raw.csv" 2>&1 | tee -a "$L"
  python3 "$here/ncu_summary.py" "$OUT/ncu_${g}_raw.csv" 2>&1 | tee -a "$L"
  python3 "$here/ncu_hotspots.py" "$OUT/ncu_${g}_sass.csv" 12 2>&1 | tee -a "$L"
  tail -2 "$OUT/ncu_$g.log"
}
