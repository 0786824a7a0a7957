#!/usr/bin/env bash
# Build here (no GPU) what bench/gpu/decode3_call.sh runs on the device for helper
# `smallm` (docs/benchmarks.md "Transposed wgmma for decode tiles"): the best
# kernel per shape of decode3's last call (bench/gpu/results/decode/decode3_call2)
# and the transposed-wgmma split-K pairs of gen.py (sm90_decode_splitk_t*),
# each `cake check`ed (report in $D/check.txt; one with errors is not built),
# lowered and built with device_env.sh's lowered_so; the harness; the plan
# (decode3_call2's 24 best lines, then the new pairs at the decode shapes, each
# bound by `cake run --split-k S --dry-run`) and the pairs' edge cases.
# Usage: PLAN_NEW="PAIR:S:M:N:K ..." bash bench/gpu/build_smallm.sh [BUILD_DIR]
#   (DEST: default /work/main/.devcarry/smallm); then on the device (carry .devcarry/smallm):
#   D=.devcarry/smallm NEW="_t8_ _t16_ _t32_" GPUTEST=0 bash .devcarry/smallm/decode3_call.sh
# Helper `decode` (docs/benchmarks.md "Decode: reduce residency, wide transposed tiles") runs it with
#   FROM=bench/gpu/results/decode/smallm_call1 (the last call whose best lines start the plan),
#   PLAN_D=.devcarry/decode, NEW="<schedule files>", PLAIN_NEW="KERNEL:M:N:K ..." (kernels without
#   split-K, timed at those shapes and checked at the edge shapes) and DEVICE_SCRIPT=bench/gpu/decode4_call.sh
set -eu
B=${1:-build}
D=${DEST:-/work/main/.devcarry/smallm}
PD=${PLAN_D:-.devcarry/smallm}
. bench/gpu/device_env.sh "$D"
mkdir -p "$D/cu" "$D/lib"
R=${FROM:-bench/gpu/results/decode/decode3_call2}
if [ -f $R/plan.txt ]; then cp $R/plan.txt "$D/decode3_plan.txt"
else tar xzf $R/decode3_all.tgz -O ./plan.txt > "$D/decode3_plan.txt"; fi
python3 bench/gpu/focus_plan.py $R/suite.jsonl "$D/decode3_plan.txt" $PD __none__ > "$D/best.txt"
NEW=${NEW-$(cd bench/gpu/schedules/decode && ls sm90_decode_splitk_t*.cake | sed 's/\.cake$//')}
: > "$D/check.txt"
# the schedules to build: every library the best lines name (file: its bench schedule) and the new pairs
jobs=()
add() {  # FILE SCHEDULE SO (SCHEDULE empty: the file's one schedule)
  [ -f "$D/$3.so" ] && return 0
  case " ${built:-} " in *" $3 "*) return 0;; esac; built="${built:-} $3"
  "$B/cli/cake" lower "$1" ${2:+--schedule "$2"} -o "$D/cu/$3.cu" && jobs+=("$D/cu/$3.cu")
}
for so in $(awk '{print $1; for (i = 1; i <= NF; i++) if ($i == "--reduce") print $(i + 1)}' "$D/best.txt" | sort -u); do
  n=$(basename $so .so)
  f=$(grep -l "^def $n(" bench/gpu/schedules/*.cake bench/gpu/schedules/decode/*.cake | head -1)
  if [ -n "$f" ]; then add "$f" "$n" "$n"; else add bench/gpu/schedules/$n.cake "" "$n"; fi
done
for p in $NEW; do
  f=bench/gpu/schedules/decode/$p.cake
  /usr/bin/time -f "cake check $p: %e s wall, %U s user" "$B/cli/cake" check $f >> "$D/check.txt" 2>&1 ||
    { echo "cake check failed: $p"; continue; }
  for s in $(sed -n 's/^def \([A-Za-z0-9_]*\)(.*/\1/p' $f); do add "$f" "$s" "$s"; done
done
printf '%s\n' "${jobs[@]}" | xargs -P ${JOBS:-3} -I{} bash -c '. bench/gpu/device_env.sh '"$D"' >/dev/null; lowered_so {} $(dirname {})/../$(basename {} .cu).so' 
[ -f "$D/cake_harness" ] || $NVCC -std=c++17 -O3 -cudart shared $SM90A -Irunner/harness -Iabi runner/harness/cake_harness.cu \
  -o "$D/cake_harness" -lcublas -lcupti -ldl
cp -L /usr/local/cuda/lib/libcupti.so.13 /usr/lib/x86_64-linux-gnu/libfmt.so.9 "$D/lib/"
cp bench/gpu/records_suite.py bench/gpu/timing_records.py bench/gpu/decode3_call.sh ${DEVICE_SCRIPT:-} "$D/"
# the plan and the edge cases: build_splitk.sh's focus mode (decode3_call2's best line per shape, no
# twins) with the new pairs bound at the decode shapes (PLAN_NEW: "PAIR:S:M:N:K ...")
SKIP_BUILD=1 FOCUS=$R/suite.jsonl FOCUS_PLAN="$D/decode3_plan.txt" FOCUS_PAIRS=__none__ EXTRA="${PLAN_NEW:-}" \
  DEST="$D" PLAN_D=$PD bash bench/gpu/build_splitk.sh "$B"
# PLAIN_NEW="KERNEL:M:N:K ...": kernels without split-K (built above from NEW) timed at those shapes,
# and each checked once at the edge shapes (partial tiles, a K tail, one row) with the pairs
for x in ${PLAIN_NEW:-}; do
  IFS=: read -r t m n k <<< "$x"
  echo "$PD/$t.so --m $m --n $n --k $k" >> "$D/plan.txt"
  grep -q "^$PD/$t.so --m 200 " "$D/splitedge.txt" || printf "$PD/$t.so --m %s --n %s --k %s\n" 200 264 1000 1 8 8 100 4104 1000 >> "$D/splitedge.txt"
done
wc -l "$D/plan.txt" "$D/splitedge.txt"
du -sh "$D"
