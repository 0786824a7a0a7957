#!/usr/bin/env bash
# Second device call for issue 13 (helper pingpong, session 12): where the
# 2x1-cluster ping-pong GEMM loses (0.73x cuBLAS at 4096^3 against 0.865x for
# the same schedule without a cluster, call 1). Nsight Compute at 4096^3
# (--clock-control none) on the clustered and the unclustered 128x128 and
# 128x192 ping-pong kernels: per-SM balance, tensor pipe, L2 sectors read by
# the TMA unit, memory workload tables, stall reasons and SASS hot spots.
# Carry [".devcarry/pp3"] (bench/gpu/pp3/prepare.sh).
#   LIMIT=80 bash .devcarry/pp3/device_pp3_ncu.sh
set -u
D=.devcarry/pp3
. bench/gpu/device_env.sh "$D"
. bench/gpu/gemm_sweep_lib.sh
sweep_start 80
for g in ${G:-sm90_pingpong_128_cluster2 sm90_pingpong_128_s5 sm90_pingpong_128x192_cluster2 sm90_pingpong_128x192_r240}; do
  [ "$(left)" -gt 12 ] || { log "skip ncu $g (time)"; continue; }
  NCU_EXTRA_METRICS=lts__t_sectors_srcunit_tex_op_read.sum ncu_profile "$g" "$D/so/$g.so" \
    --section MemoryWorkloadAnalysis_Tables --section MemoryWorkloadAnalysis_Chart
  python3 -c "
import csv,sys
r=[x for x in csv.reader(open(sys.argv[1])) if x]
m=dict(zip(r[0],r[2])); u=dict(zip(r[0],r[1]))
for k in sorted(m):
    if k.startswith(('lts__t_sectors_srcunit_tex_op_read.sum','l1tex__m_xbar2l1tex_read_bytes')): print(k, m[k], u[k])
" "$OUT/ncu_${g}_raw.csv" 2>&1 | head -12 | tee -a "$L"
done
log "done, $(left) s left"
(cd "$OUT" && tar czf ncu.tgz --remove-files ncu_* 2>/dev/null); ls "$OUT"
