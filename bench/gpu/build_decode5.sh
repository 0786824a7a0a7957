#!/usr/bin/env bash
# Build here (no GPU) what bench/gpu/decode4_call.sh runs on the device for helper `decode`,
# session 13 (docs/benchmarks.md "Decode, session 13: a split-K reduce that loads its slices
# together"): the last suite's 24 lines (bench/gpu/results/decode/decode4_call2/final_plan.txt),
# every library they name lowered again from this tree, beside the new pairs of gen.py's
# U_SPLITK_VARIANTS at the shapes of UPLAN ("PAIR:S:M:N:K ...", each bound by
# `cake run --split-k S --dry-run`), each `cake check`ed first (report in $D/check.txt; a
# schedule with errors is not built), and their edge cases (S = 5 200x264x1000, S = 3 1x8x8,
# S = 4 100x4104x1000). NCU_PLAN ("PAIR:S:M:N:K ..."): the lines Nsight Compute profiles.
# PLAIN ("KERNEL:M:N:K ..."): kernels without split-K timed at those shapes, checked at the edge shapes.
# A library already built in $D is not lowered or built again.
# CHECK_TIMEOUT: the verification budget of `cake check`, `cake lower` and `cake run --dry-run` (s; default
# 30, 10 and 120: the clustered partials of session 14 need more, their bounded check models both CTAs).
# LOWER_AFTER_CHECK=1: `cake lower --allow-unverified` for a file that `cake check` (above) passed, so
# the (long) verification is not done twice.
# Usage: UPLAN="..." PLAIN="..." NCU_PLAN="..." bash bench/gpu/build_decode5.sh [BUILD_DIR]
#   (DEST: default /work/main/.devcarry/dec5; the device path PLAN_D: .devcarry/dec5); then
#   run tool, carry [".devcarry/dec5"]:
#   D=.devcarry/dec5 NCU=1 GPUTEST=0 NEW="u4_ u2_" bash .devcarry/dec5/decode4_call.sh 2>&1 | tee $OUT/log.txt
set -eu
B=${1:-build}
D=${DEST:-/work/main/.devcarry/dec5}
PD=${PLAN_D:-.devcarry/dec5}
R=${FROM:-bench/gpu/results/decode/decode4_call2}
. bench/gpu/device_env.sh "$D" > /dev/null
mkdir -p "$D/cu" "$D/lib"
: > "$D/check.txt"
jobs=()
built=" "
lower() {  # FILE SCHEDULE: check the file once, lower SCHEDULE into $D/cu (once; not again when built)
  case "$built" in *" $2 "*) return 0;; esac; built="$built$2 "
  [ -f "$D/$2.so" ] && return 0
  case "${checked:-}" in *" $1 "*) ;; *)
    checked="${checked:-} $1 "
    # CHECK_DONE=FILE: lines "NAME rc=N" of `cake check` runs made beforehand (their output in
    # $(dirname FILE)/NAME.txt): a file checked there with rc 0 is not checked again, its output kept
    if [ -n "${CHECK_DONE:-}" ] && grep -qx "$(basename $1 .cake) rc=0" "$CHECK_DONE"; then
      cat "$(dirname $CHECK_DONE)/$(basename $1 .cake).txt" >> "$D/check.txt"
    else /usr/bin/time -f "cake check $1: %e s wall, %U s user" "$B/cli/cake" check --timeout ${CHECK_TIMEOUT:-30} "$1" >> "$D/check.txt" 2>&1 ||
      { echo "cake check failed: $1"; return 1; }; fi;;
  esac
  "$B/cli/cake" lower "$1" --schedule "$2" $([ "${LOWER_AFTER_CHECK:-0}" = 1 ] && echo --allow-unverified --check-timeout 1 || echo --check-timeout ${CHECK_TIMEOUT:-10}) -o "$D/cu/$2.cu" && jobs+=("$D/cu/$2.cu")
}
file_of() {  # SCHEDULE -> the .cake file that defines it
  grep -l "^def $1(" bench/gpu/schedules/*.cake bench/gpu/schedules/decode/*.cake | head -1
}
# 1. the last suite's lines, libraries renamed into $PD (sm90_small_m16, sm90_ws_bn256_s4: the file's name)
sed "s#\.devcarry/[a-z0-9]*/#$PD/#g" $R/final_plan.txt > "$D/plan.txt"
for so in $(awk '{print $1; for (i = 1; i <= NF; i++) if ($i == "--reduce") print $(i + 1)}' "$D/plan.txt" | sort -u); do
  n=$(basename $so .so)
  f=$(file_of $n)
  if [ -z "$f" ]; then
    [ -f "$D/$n.so" ] && continue
    f=bench/gpu/schedules/$n.cake; n=$(sed -n 's/^def \([A-Za-z0-9_]*\)(.*/\1/p' $f | head -1)
    lower $f $n; mv "$D/cu/$n.cu" "$D/cu/$(basename $so .so).cu"; jobs[${#jobs[@]}-1]="$D/cu/$(basename $so .so).cu"
  else lower $f $n; fi
done
# 2. the new pairs: plan lines and edge cases
one_split() {  # PAIR S M N K -> a plan line
  local f=bench/gpu/schedules/decode/$1.cake
  local defs=($(sed -n 's/^def \([A-Za-z0-9_]*\)(.*/\1/p' $f))
  lower $f ${defs[0]} >&2; lower $f ${defs[1]} >&2
  local args want="--split $2 --m $3 --n $4 --k $5 --tensor A:$3,$5 --tensor B:$4,$5 --tensor W:$2,$3,$4 --i32 $3 --i32 $4 --i32 $5 --rtensor W:$2,$3,$4 --rtensor C:$3,$4 --ri32 $2"
  # DRY_ONCE=1: `cake run --dry-run` (which verifies the pair again) once per pair; its binding must be
  # the formula above, which then gives the pair's other lines (a check of a clustered partial is long)
  case "${DRY_ONCE:-0}:$dried" in 1:*" $1 "*) echo "$PD/${defs[0]}.so --reduce $PD/${defs[1]}.so $want"; return 0;; esac
  # LOWER_AFTER_CHECK=1: the dry run binds without verifying again (the file's `cake check` passed above)
  args=$("$B/cli/cake" run $f --split-k $2 --shape $3x$4x$5 --dry-run --format json \
         $([ "${LOWER_AFTER_CHECK:-0}" = 1 ] && echo --allow-unverified --check-timeout 1 || echo --check-timeout ${CHECK_TIMEOUT:-120}) |
         python3 -c 'import json,sys; r=json.load(sys.stdin); assert r["result"]=="dry_run", r; print(r["detail"])')
  [ "${DRY_ONCE:-0}" = 0 ] || { [ "$args" = "$want" ] || { echo "dry-run binding differs: $args" >&2; return 1; }; dried="$dried$1 "; }
  echo "$PD/${defs[0]}.so --reduce $PD/${defs[1]}.so $args"
}
E="$D/splitedge.txt"; : > "$E"
dried=" "
for x in ${UPLAN:-}; do
  IFS=: read -r t s m n k <<< "$x"
  one_split $t $s $m $n $k >> "$D/plan.txt"
  grep -q "/$t.so .*--split 5 --m 200 " "$E" || { one_split $t 5 200 264 1000; one_split $t 3 1 8 8
                                                  one_split $t 4 100 4104 1000; } >> "$E"
done
# PLAIN: "KERNEL:M:N:K ..." kernels without split-K (the schedule KERNEL of bench/gpu/schedules/ or
# its decode/ folder) at those shapes,
# each also run once at the edge shapes (partial tiles, a K tail, one row)
for x in ${PLAIN:-}; do
  IFS=: read -r t m n k <<< "$x"
  lower $(file_of $t) $t
  echo "$PD/$t.so --m $m --n $n --k $k" >> "$D/plan.txt"
  grep -q "^$PD/$t.so --m 200 " "$E" || printf "$PD/$t.so --m %s --n %s --k %s\n" 200 264 1000 1 8 8 100 4104 1000 >> "$E"
done
: > "$D/ncu.txt"
for x in ${NCU_PLAN:-}; do
  IFS=: read -r t s m n k <<< "$x"
  one_split $t $s $m $n $k >> "$D/ncu.txt"
done
# 3. build (device_env.sh's lowered_so), the harness (unchanged since .devcarry/decode's), the scripts
[ ${#jobs[@]} = 0 ] || printf '%s\n' "${jobs[@]}" | xargs -P ${JOBS:-2} -I{} bash -c '. bench/gpu/device_env.sh '"$D"' >/dev/null; lowered_so {} $(dirname {})/../$(basename {} .cu).so'
[ -f "$D/cake_harness" ] || $NVCC -std=c++17 -O3 -cudart shared $SM90A -Irunner/harness -Iabi runner/harness/cake_harness.cu \
  -o "$D/cake_harness" -lcublas -lcupti -ldl
cp -L /usr/local/cuda/lib/libcupti.so.13 /usr/lib/x86_64-linux-gnu/libfmt.so.9 "$D/lib/"
cp bench/gpu/records_suite.py bench/gpu/timing_records.py bench/gpu/decode3_call.sh bench/gpu/decode4_call.sh ${DEVICE_SCRIPT:-} \
  bench/gpu/focus_plan.py bench/gpu/shape_suite.sh bench/gpu/suite_table.py bench/gpu/device_decode.sh \
  bench/gpu/device_env.sh "$D/"
wc -l "$D/plan.txt" "$E" "$D/ncu.txt"
du -sh "$D"
