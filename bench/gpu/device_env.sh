# The set-up every GPU script of bench/gpu/ repeats, in one place (sourced,
# not run). The device scripts (device_*.sh) run on the device in the root
# of a copy of the repository, some from a carry folder they were copied
# into; each sources this file with its carry folder (the one whose lib/
# holds the shared libraries the device lacks: libz3.so.4, libfmt.so.9):
#
#   E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" CARRY
#
# It sets
#   OUT              where results go (the device's $OUT; /tmp/out when unset), created
#   CUPTI            the folder of libcupti.so.13 on this machine: under
#                    /usr/local, else anywhere but the carry folders and /proc,
#                    else CUDA's usual place
#   LD_LIBRARY_PATH  CARRY/lib, CUPTI, the CUDA runtime, then what it was
#   PYTHONUNBUFFERED 1 (the logs of python steps arrive in order)
#   T0               the start (seconds), for log and left
#   TR               bench/gpu/time_record.py beside the calling script, else in the checkout
#   NVCC, SM90A      the compiler (/usr/local/cuda/bin/nvcc unless set) and the
#                    gencode flags of the H200 (sm_90a), for the scripts that build
# and the functions log MESSAGE (seconds since T0; appended to $L when L is
# set), left (seconds left of $LIMIT), gpu_line (one nvidia-smi line: the
# GPU, its driver, clocks, temperature and power) and lowered_so CU SO [FLAGS...]
# (a kernel library from a lowered .cu, for the targets its header names),
# mma_sync_metrics (the ncu metric list of the sm_80 profiles), carry_kernel_names (the kernels of $D), sm80_edges NAME...
# (the sm_80 edge shapes of $D/NAME.so), sass_tgz NAME... (their SASS in $OUT/sass.tgz),
# edge_shapes SO "M N K"... (the harness $H on SO at each shape, untimed:
# correctness only; each record appended to $OUT/results.jsonl, a line
# printed).
_carry=${1:-.}
TR=$(dirname "$0")/time_record.py; [ -f "$TR" ] || TR=bench/gpu/time_record.py
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
CUPTI=$(dirname "$(find /usr/local -name 'libcupti.so.13' 2>/dev/null | head -1)" 2>/dev/null)
if [ "$CUPTI" = . ] || [ -z "$CUPTI" ]; then
  CUPTI=$(dirname "$(find / -name 'libcupti.so.13' -not -path '*/.devcarry/*' -not -path '/proc/*' 2>/dev/null | head -1)" 2>/dev/null)
  { [ "$CUPTI" = . ] || [ -z "$CUPTI" ]; } && CUPTI=/usr/local/cuda/extras/CUPTI/lib64
fi
export LD_LIBRARY_PATH=$_carry/lib:$CUPTI:/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
T0=$(date +%s)
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
[ -x "$NVCC" ] || NVCC=$(command -v nvcc || echo "$NVCC")
SM90A="-gencode=arch=compute_90a,code=sm_90a"
unset _carry

log() { echo "[$(( $(date +%s) - T0 ))s] $*" | tee -a "${L:-/dev/null}"; }
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
gpu_line() { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader; }
edge_shapes() {
  local so=$1 shp rc
  shift
  for shp in "$@"; do
    # shellcheck disable=SC2086
    set -- $shp
    $H --kernel "$so" --m $1 --n $2 --k $3 --no-time > "$OUT/run.txt" 2>&1; rc=$?
    tail -1 "$OUT/run.txt" >> "$OUT/results.jsonl"
    echo "   $(basename "$so") ${1}x${2}x${3} rc=$rc $(grep -o '"correct": [a-z]*, "rel_error": [^,]*, "max_rel_error": [^,]*' "$OUT/run.txt")"
  done
}
# Times NAME.so and, where built from an earlier lowering, base_NAME.so in
# alternation at each size given (square M=N=K), against cuBLAS (the harness
# interleaves, L2 flushed); one line per run in $OUT/time.jsonl. Needs D, H,
# TR (time_record.py) and NAMES.
# The kernel names of the carry folder $D: NAME for each NAME.so and base_NAME.so, once each.
carry_kernel_names() {
  ls $D/*.so | xargs -n1 basename | sed 's/\.so$//; s/^base_//' | sort -u
}
time_base_and_new() {
  local s n v
  for s in "$@"; do
    for n in $NAMES; do
      for v in base_$n $n; do
        [ -f $D/$v.so ] || continue
        timeout -s KILL 60 $H --kernel $D/$v.so --m $s --n $s --k $s --runs ${RUNS:-30} 2>/dev/null | tail -1 > "$OUT/r.json"
        python3 "$TR" "$OUT/r.json" "$v" $s >> "$OUT/time.jsonl"
      done
    done
    log "size $s done, $(left) s left"
  done
}
# The sm_80 scripts' edge shapes (partial tiles, K not a multiple of the k-block, tiny) for each
# $D/NAME.so given, while more than 10 s of $LIMIT are left (device_sm80ks.sh, device_sm80e.sh).
# EXTRA_SHAPES="M N K;M N K": more correctness-only shapes for each NAME (session 15: K = 192 and 320,
# 3 and 5 k-blocks of 64, the loop unrolled by 3 with no and with two remaining iterations)
sm80_edges() {
  local n xs
  IFS=';' read -r -a xs <<< "${EXTRA_SHAPES-}"
  for n in "$@"; do
    [ "$(left)" -gt 10 ] || break
    edge_shapes "$D/$n.so" "3000 2056 1000" "1400 2056 200" "200 264 72" "1 8 8" "4096 1000 64" "136 128 48" "${xs[@]}"
  done
  log "edge done, $(left) s left"
}
# cuobjdump --dump-sass of each $D/NAME.so given (a line of HMMA / LDSM / LDGSTS / BAR.SYNC / local
# memory counts each), all in $OUT/sass.tgz
sass_tgz() {
  local n f
  for n in "$@"; do
    [ -f "$D/$n.so" ] || continue
    f="$OUT/sass_$n.txt"
    cuobjdump --dump-sass "$D/$n.so" > "$f" 2>/dev/null
    echo "sass $n: $(grep -c 'HMMA' "$f") HMMA $(grep -c 'LDSM' "$f") LDSM $(grep -c 'LDGSTS' "$f") LDGSTS $(grep -c 'BAR.SYNC' "$f") BAR.SYNC $(grep -c 'LDL\|STL' "$f") LDL/STL"
  done
  ls "$OUT"/sass_*.txt >/dev/null 2>&1 && (cd "$OUT" && tar czf sass.tgz sass_*.txt && rm -f sass_*.txt) || true
}
# A Nsight Compute profile of $D/NAME.so at 4096^3 (the mma.sync metrics, warp states and source counters;
# kernels matching $KRE), its source page as $OUT/ncu_src_NAME.csv.gz, the headline metrics and the
# per-opcode census (ncu_src_census.py beside the carry): ncu_src_profile NAME [MAX_SECONDS (50)]
ncu_src_profile() {
  local n=$1 mx=${2:-50} t
  [ "$(left)" -gt 15 ] || return 0
  t=$(( $(left) - 4 )); [ $t -gt "$mx" ] && t=$mx
  timeout -s KILL $t ncu --metrics "$(mma_sync_metrics)" --section WarpStateStats --section SourceCounters --clock-control none \
    -k regex:"$KRE" -c 1 -o "$OUT/prof_$n" $H --kernel $D/$n.so --m 4096 --n 4096 --k 4096 --no-time 2>&1 | grep -v '^==PROF' | tail -3
  ncu -i "$OUT/prof_$n.ncu-rep" --page source --csv --print-source sass > "$OUT/ncu_src_$n.csv" 2>/dev/null
  gzip -f "$OUT/ncu_src_$n.csv"
  echo "== ncu $n"
  ncu -i "$OUT/prof_$n.ncu-rep" --page raw --csv 2>/dev/null | python3 -c "
import csv, sys
rows = list(csv.reader(sys.stdin))
if len(rows) >= 3:
    for k, x in zip(rows[0], rows[2]):
        if ('stalled' in k and 'per_issue_active' in k) or 'hmma' in k or k.startswith('smsp__inst_executed.sum') or 'warps_active.avg.pct' in k or 'issue_active.avg.pct' in k or 'registers' in k or k == 'gpu__time_duration.sum':
            print(f'   {k} = {x}')
"
  rm -f "$OUT/prof_$n.ncu-rep"
  python3 "$D/ncu_src_census.py" "$OUT/ncu_src_$n.csv.gz" | head -30
}
# The Nsight Compute metrics of the sm_80 (mma.sync) profiles, comma-separated: tensor-pipe activity,
# warp instructions, occupancy, registers, issue activity and the warp stall reasons per issued
# instruction (device_sm80ks.sh, device_sm80e.sh).
mma_sync_metrics() {
  local m=sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,smsp__issue_active.avg.pct_of_peak_sustained_active x
  for x in wait short_scoreboard long_scoreboard barrier math_pipe_throttle mio_throttle lg_throttle dispatch_stall not_selected selected no_instruction branch_resolving; do
    m="$m,smsp__average_warps_issue_stalled_${x}_per_issue_active.ratio"
  done
  echo "$m"
}
# The kernel of $OUT/time.jsonl whose name starts with PREFIX with the highest median ratio at SIZE^3
# (empty when none): best_kernel PREFIX SIZE
best_kernel() {
  [ -s "$OUT/time.jsonl" ] || return 0
  python3 -c "
import json
rs=[json.loads(l) for l in open('$OUT/time.jsonl')]
rs=[r for r in rs if r['size']==$2 and r['kernel'].startswith('$1') and r.get('ratio')]
print(max(rs,key=lambda r:r['ratio'])['kernel'] if rs else '')"
}
# Nsight Compute's mma_sync_metrics of each $D/NAME.so given at 4096^3 (the first launch of a kernel whose
# name matches REGEX), while more than 12 s of $LIMIT are left: $OUT/ncu_NAME.txt and its metric lines.
# ncu_mma_profiles REGEX NAME...
ncu_mma_profiles() {
  local re=$1 n t m
  shift
  command -v ncu >/dev/null || return 0
  m=$(mma_sync_metrics)
  for n in "$@"; do
    [ "$(left)" -gt 12 ] || break
    t=$(( $(left) - 2 )); [ $t -gt 45 ] && t=45
    timeout -s KILL $t ncu --metrics $m --clock-control none -k regex:"$re" -c 1 $H --kernel $D/$n.so --m 4096 --n 4096 --k 4096 --no-time > "$OUT/ncu_$n.txt" 2>&1
    echo "== ncu $n"; grep -E 'sm__|smsp__|launch__' "$OUT/ncu_$n.txt"
  done
}
lowered_so() {
  local cu=$1 so=$2
  shift 2
  # shellcheck disable=SC2046
  nice "$NVCC" -std=c++17 -O3 -shared -Xcompiler -fPIC -cudart shared -Irunner/harness -Iabi -lineinfo \
    $(grep -o '^// target sm_[0-9a]*: .*' "$cu" | grep -o '\-gencode[^ ]*') "$@" "$cu" -o "$so"
}
