#!/usr/bin/env bash
# ONE device call: is corpus/reduction/sm90_row_max_two_wg.cake racy on the H200?
# (docs/costmodel.md: wrong after the timed runs at M=65536, N=2048.)
# Prepared here (see docs/gpu-ground-truth.md "row_max_two_wg"):
#   cake-runner --cake corpus/reduction/sm90_row_max_two_wg.cake --workload row-max \
#       --shape M=65536,N=2048 --emit $C/row_max.cu; variants v1 (a second xchg
#   bar.sync after instance 0's read) and v2 (an instance bar.sync before the
#   per-warp empty arrive); nvcc -shared sm_90a; bench/gpu/row_max_stress.cu.
# Run: bash .devcarry/stale/device_row_max_race.sh   (carry .devcarry/stale)
set -u
C=${C:-.devcarry/stale}
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$C"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
st() {  # so m n launches seed flush
  local f="$OUT/stress_$1_m$2_n$3_s$5_f$6.json"
  timeout 90 "$C"/row_max_stress --kernel "$C/$1.so" --m "$2" --n "$3" --launches "$4" --seed "$5" --flush "$6" > "$f" 2>&1
  log "$1 M=$2 N=$3 L=$4 seed=$5 flush=$6 rc=$? $(head -c 400 "$f")"
}
for seed in 1 2 3; do st row_max 65536 2048 300 $seed 1; done
st row_max 65536 2048 300 4 0
st row_max 16384 8192 200 1 1
for v in row_max_v1 row_max_v2; do for seed in 1 2; do st $v 65536 2048 300 $seed 1; done; done
log "racecheck"
timeout 150 compute-sanitizer --tool racecheck --racecheck-report all "$C"/row_max_stress --kernel "$C"/row_max.so \
    --m 1024 --n 2048 --launches 1 --flush 0 > "$OUT"/racecheck.txt 2>&1
log "racecheck rc=$? $(grep -c -i hazard "$OUT"/racecheck.txt) hazard lines"; tail -5 "$OUT"/racecheck.txt
timeout 60 compute-sanitizer --tool synccheck "$C"/row_max_stress --kernel "$C"/row_max.so \
    --m 1024 --n 2048 --launches 1 --flush 0 > "$OUT"/synccheck.txt 2>&1
log "synccheck rc=$?"; tail -3 "$OUT"/synccheck.txt
