#!/usr/bin/env bash
# ONE device call (carry .devcarry/bar, prepared here by bench/gpu/build_bar_aligned.sh):
# aligned `bar.sync`/`bar.arrive` (today's lowering) against non-aligned
# `barrier.sync`/`barrier.arrive` on named barriers reached from different
# role branches: the SASS each becomes, compute-sanitizer synccheck (and
# racecheck on the small sm_80 kernel) on each, and same-run timing at 4096^3.
#   bash bench/gpu/device_bar_aligned.sh
set -u
D=.devcarry/bar
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
H="$D/cake_harness"
LIMIT=${LIMIT:-200}
gpu_line
for n in nb nb_na pp pp_na se se_na; do
  cuobjdump --dump-sass "$D/$n.so" > "$OUT/sass_$n.txt" 2>/dev/null
  echo "sass $n: $(grep -c 'BAR.SYNC' "$OUT/sass_$n.txt") BAR.SYNC $(grep -c 'BAR.ARV' "$OUT/sass_$n.txt") BAR.ARV $(grep -c 'WARPSYNC' "$OUT/sass_$n.txt") WARPSYNC; distinct: $(grep -o 'BAR\.[A-Z.]*\|WARPSYNC[A-Z.]*' "$OUT/sass_$n.txt" | sort | uniq -c | tr '\n' ' ')"
done
(cd "$OUT" && tar czf sass.tgz sass_*.txt && rm -f sass_*.txt)
log "synccheck"
for n in nb nb_na pp pp_na se se_na; do
  timeout -s KILL 60 compute-sanitizer --tool synccheck $H --kernel "$D/$n.so" --m 512 --n 512 --k 512 --no-time > "$OUT/synccheck_$n.txt" 2>&1
  echo "synccheck $n rc=$? $(grep -m1 'ERROR SUMMARY' "$OUT/synccheck_$n.txt") $(grep -o '"correct": [a-z]*' "$OUT/synccheck_$n.txt" | head -1)"
  grep -m3 -i 'barrier\|divergen' "$OUT/synccheck_$n.txt"
done
log "racecheck (sm_80 named barriers)"
for n in nb nb_na; do
  timeout -s KILL 60 compute-sanitizer --tool racecheck $H --kernel "$D/$n.so" --m 256 --n 256 --k 256 --no-time > "$OUT/racecheck_$n.txt" 2>&1
  echo "racecheck $n rc=$? $(grep -m1 'RACECHECK SUMMARY\|ERROR SUMMARY' "$OUT/racecheck_$n.txt")"
done
log "timing"
for round in 1 2 3; do
  for n in nb nb_na pp pp_na se se_na; do
    [ "$(left)" -gt 15 ] || break
    timeout -s KILL 60 $H --kernel "$D/$n.so" --m 4096 --n 4096 --k 4096 --runs 30 2>/dev/null | tail -1 > "$OUT/r.json"
    python3 "$TR" "$OUT/r.json" "$n" 4096 >> "$OUT/time.jsonl"
    tail -1 "$OUT/time.jsonl"
  done
done
log "done, $(left) s left"
