#!/bin/bash
# Two `cake` binaries side by side on a list of files, alternating per file
# (so that both meet the same load on a shared machine), and whether their
# reports agree (docs/benchmarks.md "Session 32 (helper perf32)").
#
#   bench/check_cpu_ab.sh BEFORE AFTER FILELIST OUTDIR [extra cake check options]
#
# Prints "NAME BEFORE_S AFTER_S SAME" per file: user + sys seconds of
# `cake check --format jsonl` (/usr/bin/time) and whether the two jsonl
# reports are equal once their "seconds" fields are stripped.
set -u
B=$1; A=$2; LIST=$3; OUT=$4; shift 4
mkdir -p "$OUT"
while read -r f; do
  n=$(basename "$f" .cake)
  for side in before after; do
    bin=$B; [ "$side" = after ] && bin=$A
    /usr/bin/time -f "%U %S" -o "$OUT/$n.$side.time" "$bin" check --format jsonl "$@" "$f" > "$OUT/$n.$side.jsonl" 2> /dev/null
  done
  same=no
  cmp -s <(sed 's/"seconds":[0-9.e+-]*//g' "$OUT/$n.before.jsonl") <(sed 's/"seconds":[0-9.e+-]*//g' "$OUT/$n.after.jsonl") && same=yes
  secs() { tail -1 "$1" | awk '{printf "%.2f", $1 + $2}'; }
  echo "$n $(secs "$OUT/$n.before.time") $(secs "$OUT/$n.after.time") $same"
done < "$LIST"
