#!/bin/bash
# The standard 4-stage mainloop's proof time (issue 11's target: proved in
# <= 0.3 s per `cake check` process), and the proof's deterministic counters
# (work units, states: the same on every run of one binary, so a change that
# only makes the proof faster leaves them equal).
#
#   bench/proof_4stage.sh [CAKE=build/cli/cake] [RUNS=5] [ENGINE=explicit] [FILE=corpus/gemm/sm90_ws_4stage.cake]
#   bench/proof_4stage.sh "CAKE_A CAKE_B" ...   # two binaries, runs interleaved (the same load for both)
#
# Per binary one line: the least user / user+sys CPU of the RUNS processes
# (/usr/bin/time; the least is the one the machine's other load disturbed
# least), the least proof CPU (the proof thread's, CAKE_PROOF_STATS), and
# the proof's outcome, work units and states (docs/benchmarks.md "The
# 4-stage proof's reducer").
set -u
BINS=${1:-build/cli/cake}
RUNS=${2:-5}
ENG=${3:-explicit}
FILE=${4:-corpus/gemm/sm90_ws_4stage.cake}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for ((i = 0; i < RUNS; ++i)); do
  j=0
  for b in $BINS; do
    CAKE_PROOF_STATS=1 /usr/bin/time -f "time %U %S" -o "$TMP/t" "$b" check --engine "$ENG" "$FILE" \
      > /dev/null 2> "$TMP/e"
    { cat "$TMP/t"; grep '^proof-stats' "$TMP/e"; } >> "$TMP/out.$j"
    j=$((j + 1))
  done
done
j=0
for b in $BINS; do
  awk -v bin="$b" '
    /^time / { u = $2; us = $2 + $3; if (n == 0 || u < mu) mu = u; if (n == 0 || us < mus) mus = us; ++n }
    /^proof-stats/ {
      for (i = 2; i <= NF; ++i) { split($i, kv, "="); f[kv[1]] = kv[2] }
      if (np == 0 || f["cpu_s"] + 0 < mp) mp = f["cpu_s"] + 0
      ++np
      key = sprintf("outcome=%s work=%s states=%s", f["outcome"], f["work"], f["states"])
      if (keys !~ key) keys = keys (keys == "" ? "" : "; ") key
    }
    END {
      printf "%s: 4-stage proof: user %.2f s, user+sys %.2f s (least of %d processes), proof cpu %.3f s; %s\n",
             bin, mu, mus, n, mp, keys
    }' "$TMP/out.$j"
  j=$((j + 1))
done
