#!/usr/bin/env bash
# `cake run` on a list of cases, one per line of CASES ("file args...";
# '#' lines skipped), each REPEAT times, on the device, with the smoke's
# carry (bench/gpu/device_smoke.sh prepare). Device command:
#   tar xJf .devcarry/smokez/smoke.tar.xz && bash bench/gpu/device_cases.sh CASES [REPEAT]
# Records (one JSON per run) in $OUT/cases.jsonl, the log on stdout.
set -u
C=.devcarry/smoke
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$C"
CASES=$1 REPEAT=${2:-1}
R="$OUT/cases.jsonl"; : > "$R"
gpu_line
while read -r line; do
  case "$line" in ''|'#'*) continue ;; esac
  for i in $(seq "$REPEAT"); do
    echo "== cake run $line (run $i)"
    # shellcheck disable=SC2086
    timeout 150 $C/bin/cake run $line --format json --runs 20 --seed 3 > "$OUT/one.json" 2> "$OUT/one.err"
    echo "rc=$?"; tail -c 800 "$OUT/one.json"; echo; tail -3 "$OUT/one.err"
    python3 -c "import json; print(json.dumps(json.load(open('$OUT/one.json'))))" >> "$R" 2>/dev/null
  done
done < "$CASES"
