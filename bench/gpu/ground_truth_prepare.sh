#!/usr/bin/env bash
# GPU ground truth, step 1 of 2 (here, no GPU needed): for every GPU-runnable
# corpus bug -- the GEMM-shaped schedules under corpus/bugs/ and the mutants
# of the corpus's bf16 GEMMs (corpus/mutants/gemm/) for sm_90a and sm_80 --
#   * record what `cake check` predicts (its error rules and exit status),
#   * lower it as `cake run --allow-unverified` does (lowering::lowerToCuda,
#     the GEMM ABI cake_gemm_launch; through cake-runner --emit, which skips
#     the second verification `cake lower --allow-unverified` would run),
#   * pick the problem size: 4096^3, K = 32 too for sm_80 (short-K bugs), and
#     for a schedule without a K parameter the K it computes (`cake run`
#     reports it as unsupported_shape before any GPU work).
# Writes $D/cu/*.cu and $D/manifest.tsv; step 2 (bench/gpu/device_ground_truth.sh)
# compiles and runs them on the device under the runner's watchdog.
#   usage: bench/gpu/ground_truth_prepare.sh [BUILD_DIR] [DEST] [JOBS]   (default: build, .devcarry/onesem, 3)
set -u
B=${1:-build}
D=${2:-.devcarry/onesem}
export B D
mkdir -p "$D/cu" "$D/lib" "$D/rows"
prepare() {
  local f=$1 rel name json rc rules target shapes k
  rel=${f#corpus/}
  name=$(echo "${rel%.cake}" | tr '/.' '__')
  json=$($B/cli/cake check --format json --proof-timeout 0 "$f" 2>/dev/null); rc=$?
  rules=$(echo "$json" | python3 -c '
import json, sys
try: j = json.load(sys.stdin)
except Exception: print("-"); sys.exit()
r = sorted({f["rule"] for fl in j["files"] for s in fl["schedules"] for f in s["findings"] if f["severity"] == "error"}
           | {f["rule"] for fl in j["files"] for f in fl["findings"] if f["severity"] == "error"})
print(",".join(r) or "pass")')
  $B/runner/cake-runner --cake "$f" --emit "$D/cu/$name.cu" >/dev/null 2>&1 || { rm -f "$D/cu/$name.cu"; return; }
  grep -q "cake_gemm_launch" "$D/cu/$name.cu" || { rm -f "$D/cu/$name.cu"; return; }
  target=$(grep -m1 -o "^// target sm_[0-9a]*" "$D/cu/$name.cu" | grep -o "sm_[0-9a]*")
  [ "$target" = sm_100a ] && { rm -f "$D/cu/$name.cu"; return; }   # no sm_100a device
  shapes="4096,4096,4096"
  [ "$target" = sm_80 ] && shapes="4096,4096,32 4096,4096,4096"
  if ! grep -q "K: LM.i32" "$f"; then
    k=$($B/cli/cake run --allow-unverified --format json --shape M=4096,N=4096,K=4096 "$f" 2>/dev/null |
        grep -o "it computes K = [0-9]*" | grep -o "[0-9]*$")
    [ -n "$k" ] && shapes="4096,4096,$k"
  fi
  printf "%s\t%s\t%s\t%s\t%s\t%s\n" "$name" "$f" "$target" "$shapes" "$rules" "$rc" > "$D/rows/$name.tsv"
}
export -f prepare
{ ls corpus/bugs/*/*.cake
  for o in sm90_ws_4stage sm90_basic_one_consumer sm80_cp_async_multistage sm80_single_stage; do
    ls corpus/mutants/gemm/$o/*.cake; done; } | xargs -P "${3:-3}" -I{} bash -c 'prepare {}'
cat "$D"/rows/*.tsv | sort > "$D/manifest.tsv"
wc -l "$D/manifest.tsv"
