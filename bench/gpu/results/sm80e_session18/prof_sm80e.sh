#!/usr/bin/env bash
# Second device call of issue 13, session 18 (helper sm80e): why paired cp.async rows are slower. Builds
# base_/paired .so of fragsp12_128x128_k64_s3 and the corpus sm80_cp_async_multistage from $D/cu (as
# run_sm80e.sh), then Nsight Compute's memory sections (L1/shared wavefronts and bank conflicts of the
# LDGSTS, L2, DRAM) of each at 4096^3, and of base_fragsp12 at 8192^3 (the 8192^3 drop); the details page
# of each as $OUT/mem_NAME_SIZE.txt.
#   D=.devcarry/sm80e LIMIT=200 bash .devcarry/sm80e/prof_sm80e.sh 2>&1 | tee $OUT/run2.log
set -u
D=${D:-.devcarry/sm80e} LIMIT=${LIMIT:-200}
. "$D/device_env.sh" "$D"
H="$D/cake_harness"
K="fragsp12_128x128_k64_s3 sm80_cp_async_multistage"
for n in $K; do for v in base_$n $n; do
  "$NVCC" -std=c++17 -O3 -shared -Xcompiler -fPIC -cudart shared -Irunner/harness -Iabi -lineinfo \
    -gencode=arch=compute_80,code=sm_90 "$D/cu/$v.cu" -o "$D/$v.so" &
done; done
wait
log "build done"
prof() {  # prof NAME SIZE
  [ "$(left)" -gt 25 ] || { echo "skip $1 $2"; return; }
  local t=$(( $(left) - 5 )); [ $t -gt 60 ] && t=60
  timeout -s KILL $t ncu --section SpeedOfLight --section MemoryWorkloadAnalysis_Tables --section MemoryWorkloadAnalysis_Chart \
    --section LaunchStats --clock-control none -k regex:'cake_(frag|sm80)' -c 1 -o "$OUT/p" \
    $H --kernel $D/$1.so --m $2 --n $2 --k $2 --no-time > /dev/null 2>&1
  ncu -i "$OUT/p.ncu-rep" --page details --print-details all > "$OUT/mem_$1_$2.txt" 2>&1 ||
    ncu -i "$OUT/p.ncu-rep" --page details > "$OUT/mem_$1_$2.txt" 2>&1
  echo "== raw" >> "$OUT/mem_$1_$2.txt"
  ncu -i "$OUT/p.ncu-rep" --page raw --csv 2>/dev/null | python3 -c "
import csv, sys
rows = list(csv.reader(sys.stdin))
if len(rows) >= 3:
    for k, u, x in zip(rows[0], rows[1], rows[2]):
        print(k, u, x)" >> "$OUT/mem_$1_$2.txt"
  rm -f "$OUT/p.ncu-rep"
  log "== $1 $2"
  grep -E '^(gpu__time_duration.sum|dram__bytes_read.sum |lts__t_sector_hit_rate.pct|l1tex__data_bank_conflicts_pipe_lsu_mem_shared[a-z_]*.sum |l1tex__data_pipe_lsu_wavefronts_mem_shared[a-z_]*.sum |l1tex__t_(requests|sectors)_pipe_lsu_mem_global_op_ldgsts[a-z_]*.sum |lts__t_sectors_srcunit_tex_op_read.sum |smsp__inst_executed_op_ldgsts.sum )' "$OUT/mem_$1_$2.txt" | head -40
}
for n in $K; do prof base_$n 4096; prof $n 4096; done
prof base_fragsp12_128x128_k64_s3 8192
log "all done"
