#!/usr/bin/env bash
# Device run (docs/gpu.md "Programmatic dependent launch"): a pair of
# lowered PDL GEMMs (C1 = A.B1^T, C2 = C1.B2^T on one stream), checked
# against an fp32 reference and timed with and without the PDL launch
# attribute (CAKE_PDL=0), alternating, 3 rounds per shape (SHAPES="M N K;..."). One JSON line
# per run in $OUT/pdl.jsonl.
set -u
D=${D:-.devcarry/tmempdl}
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
gpu_line | tee "$OUT/gpu.txt"
IFS=';' read -ra LIST <<< "${SHAPES:-128 4096 4096;1024 4096 4096;4096 4096 4096}"  # M N K;M N K;...
for shp in "${LIST[@]}"; do
  set -- $shp
  for round in 1 2 3; do
    for pdl in 1 0; do
      CAKE_PDL=$pdl timeout -s KILL 60 "$D/pdl_pair" "$D/pdl_gemm.so" $1 $2 $3 ${ITERS:-200} >> "$OUT/pdl.jsonl" 2>> "$OUT/pdl.err"
      echo "rc=$? M=$1 N=$2 K=$3 pdl=$pdl round=$round: $(tail -1 "$OUT/pdl.jsonl")"
    done
  done
done
