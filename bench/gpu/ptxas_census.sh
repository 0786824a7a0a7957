#!/usr/bin/env bash
# Registers and spills of lowered kernels, as ptxas reports them (no GPU):
#   bash bench/gpu/ptxas_census.sh CAKE OUT.tsv [SCHEDULE.cake...]
# lowers each schedule with CAKE (`cake lower`, its own target), compiles the
# .cu for its target(s) with ptxas -v and writes one line per schedule and
# kernel entry: file, registers, spill stores (bytes), spill loads (bytes),
# stack frame (bytes). Without schedules: the sm_90a schedules of the corpus
# (bugs and known-bad cases left out) and of bench/gpu/schedules. A change to
# the lowering that must not add spills compares two runs (see docs/gpu.md,
# "Ping-pong epilogue: staging addresses").
set -u
CAKE=${1:?cake binary}
OUT=${2:?output .tsv}
shift 2
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
[ -x "$NVCC" ] || NVCC=$(command -v nvcc)
if [ $# -eq 0 ]; then
  # shellcheck disable=SC2046
  set -- $(grep -l 'target="sm_90a"' corpus/gemm/*.cake corpus/attention/*.cake corpus/kmeans/*.cake \
    corpus/cluster/*.cake corpus/splitk/*.cake corpus/moe/*.cake corpus/reduction/*.cake \
    corpus/normalization/*.cake bench/gpu/schedules/*.cake bench/gpu/schedules/attn_d128/*.cake 2>/dev/null |
    xargs grep -L 'expect: fail\|expect: error')
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
printf 'file\tregs\tspill_st\tspill_ld\tstack\n' > "$OUT"
for f in "$@"; do
  if ! "$CAKE" lower "$f" -o "$TMP/k.cu" --check-timeout 120 > "$TMP/lower.log" 2>&1; then
    printf '%s\tlower-failed\t\t\t\n' "$f" >> "$OUT"
    continue
  fi
  # shellcheck disable=SC2046
  nice "$NVCC" -std=c++17 -O3 -c -Irunner/harness -Iabi -Xptxas -v \
    $(grep -o '^// target sm_[0-9a]*: .*' "$TMP/k.cu" | grep -o '\-gencode[^ ]*') \
    "$TMP/k.cu" -o "$TMP/k.o" > "$TMP/ptxas.log" 2>&1 ||
    { printf '%s\tnvcc-failed\t\t\t\n' "$f" >> "$OUT"; continue; }
  # ptxas -v: "Function properties for K" / "N bytes stack frame, S bytes spill stores, L bytes spill loads" /
  # "Used R registers" per kernel entry
  awk -v f="$f" '
    /bytes stack frame/ { st=$1; ss=$5; sl=$9 }
    /Used [0-9]+ registers/ { for (i=1;i<=NF;i++) if ($i=="Used") r=$(i+1); printf "%s\t%s\t%s\t%s\t%s\n", f, r, ss, sl, st }
  ' "$TMP/ptxas.log" >> "$OUT"
done
column -t -s "$(printf '\t')" "$OUT"
