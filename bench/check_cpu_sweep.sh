#!/bin/bash
# Per-file CPU of `cake check` over a list of files, one process per file
# (docs/benchmarks.md "Per-file CPU of cake check --engine z3 over the whole corpus").
#
#   bench/check_cpu_sweep.sh CAKE OUTDIR ENGINE FILELIST [extra cake check options]
#
# OUTDIR/times.tsv: "FILE USER SYS" (seconds, /usr/bin/time) per line;
# OUTDIR/<file>.jsonl: the jsonl report (verdicts) and the exit code.
set -u
BIN=$1; OUT=$2; ENG=$3; LIST=$4; shift 4
mkdir -p "$OUT"
: > "$OUT/times.tsv"
while read -r f; do
  n=$(echo "$f" | tr '/' '_')
  /usr/bin/time -f "%U %S" "$BIN" check --engine "$ENG" --format jsonl "$@" "$f" > "$OUT/$n.jsonl" 2> "$OUT/$n.err"
  echo "rc=$?" >> "$OUT/$n.jsonl"
  echo "$f $(tail -1 "$OUT/$n.err")" >> "$OUT/times.tsv"
done < "$LIST"
