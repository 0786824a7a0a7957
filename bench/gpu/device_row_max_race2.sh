#!/usr/bin/env bash
# Device call 2 of the row_max_two_wg investigation (docs/gpu-ground-truth.md "row_max_two_wg"):
# racecheck on a reduced named-barrier exchange and on variant v1.
# Run: OUT=$OUT bash .devcarry/stale/device2.sh   (carry .devcarry/stale)
C=.devcarry/stale
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$C"
for k in 0 1; do
  timeout 60 compute-sanitizer --tool racecheck "$C"/racecheck_named_barrier $k > "$OUT"/rc_nb_$k.txt 2>&1
  echo "named-barrier test stay=$k rc=$?: $(grep -E '^\{' "$OUT"/rc_nb_$k.txt) $(grep 'RACECHECK SUMMARY' "$OUT"/rc_nb_$k.txt)"
done
timeout 100 compute-sanitizer --tool racecheck "$C"/row_max_stress --kernel "$C"/row_max_v1.so --m 1024 --n 2048 --launches 1 --flush 0 > "$OUT"/rc_v1.txt 2>&1
echo "row_max v1 racecheck rc=$?: $(grep 'RACECHECK SUMMARY' "$OUT"/rc_v1.txt) $(grep -oE 'Potential [A-Z]+ hazard' "$OUT"/rc_v1.txt | sort | uniq -c | tr '\n' ' ')"
grep -m1 -A3 "hazard detected" "$OUT"/rc_v1.txt
