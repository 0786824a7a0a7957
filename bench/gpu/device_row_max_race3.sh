#!/usr/bin/env bash
# Device call 3 of the row_max_two_wg investigation (docs/gpu-ground-truth.md "row_max_two_wg"):
# the sweep's library (row_max_0512.so) and the pre-c92cb88 schedule vs today's, stressed.
# Run: OUT=$OUT bash .devcarry/stale/device3.sh   (carry .devcarry/stale)
C=.devcarry/stale
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$C"
st() {
  timeout 60 "$C"/row_max_stress --kernel "$C/$1.so" --m 65536 --n 2048 --launches "$2" --seed "$3" --flush "$4" > "$OUT/s3_$1_s$3_f$4.json" 2>&1
  echo "$1 L=$2 seed=$3 flush=$4 rc=$? $(head -c 500 "$OUT/s3_$1_s$3_f$4.json")"
}
for s in 1 2 3; do st row_max_0512 500 $s 1; done; st row_max_0512 500 4 0
for s in 1 2 3; do st row_max_nofence 500 $s 1; done; st row_max_nofence 500 4 0
for s in 5 6; do st row_max 500 $s 1; done
timeout 60 compute-sanitizer --tool racecheck "$C"/racecheck_named_barrier 0 1 > "$OUT"/rc_nb_reg.txt 2>&1
echo "named-barrier test reg=1 rc=$?: $(grep -E '^\{' "$OUT"/rc_nb_reg.txt) $(grep 'RACECHECK SUMMARY' "$OUT"/rc_nb_reg.txt)"
