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
#   NVCC, SM90A      the compiler (/usr/local/cuda/bin/nvcc unless set) and the
#                    gencode flags of the H200 (sm_90a), for the scripts that build
# and the functions log MESSAGE (seconds since T0; appended to $L when L is
# set), left (seconds left of $LIMIT), gpu_line (one nvidia-smi line: the
# GPU, its driver, clocks, temperature and power) and lowered_so CU SO [FLAGS...]
# (a kernel library from a lowered .cu, for the targets its header names),
# edge_shapes SO "M N K"... (the harness $H on SO at each shape, untimed:
# correctness only; each record appended to $OUT/results.jsonl, a line
# printed).
_carry=${1:-.}
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
lowered_so() {
  local cu=$1 so=$2
  shift 2
  # shellcheck disable=SC2046
  nice "$NVCC" -std=c++17 -O3 -shared -Xcompiler -fPIC -cudart shared -Irunner/harness -Iabi -lineinfo \
    $(grep -o '^// target sm_[0-9a]*: .*' "$cu" | grep -o '\-gencode[^ ]*') "$@" "$cu" -o "$so"
}
