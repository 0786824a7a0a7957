#!/usr/bin/env bash
# Device run of the thread-block cluster schedules (issue 13, helper cluster):
# `cake run` (verify, lower, nvcc, harness, cuBLAS oracle, CUPTI timing) of
# the 2x1 cluster multicast GEMMs beside their non-cluster counterparts, at
# 4096^3 and 8192^3, in one call. Carry: .devcarry/cluster (bin/cake,
# lib/libz3.so.4 lib/libfmt.so.9, the schedules), prepared here by
# `bash bench/gpu/device_cluster.sh prepare`.
set -u
C=.devcarry/cluster
if [ "${1:-}" = prepare ]; then
  mkdir -p $C/bin $C/lib $C/sched
  cp build/cli/cake $C/bin/
  cp -L /usr/lib/x86_64-linux-gnu/libz3.so.4 /usr/lib/x86_64-linux-gnu/libfmt.so.9 $C/lib/
  cp corpus/cluster/sm90_multicast_b.cake corpus/gemm/sm90_basic_one_consumer.cake \
     bench/gpu/schedules/sm90_ws_bn256_cluster2.cake bench/gpu/schedules/sm90_ws_bn256.cake $C/sched/
  exit 0
fi
# the binary names its kernel ABI and harness folders by the path it was built in
[ -e /work/h-cluster ] || { mkdir -p /work && ln -s "$PWD" /work/h-cluster; }
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$C"
R="$OUT/cluster.jsonl"; : > "$R"
run() {
  echo "== cake run $*"
  timeout 240 $C/bin/cake run "$@" --format json --runs 50 --seed 3 --check-timeout 200 > "$OUT/one.json" 2> "$OUT/one.err"
  echo "rc=$?"; python3 - "$OUT/one.json" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("no json", e); sys.exit(0)
keys = ("schedule", "shape", "correct", "max_abs_err", "kernel_ms", "baseline_ms", "ratio", "speedup", "verdict", "detail")
print({k: d[k] for k in d if any(x in k for x in keys)})
PY
  tail -3 "$OUT/one.err"
  python3 -c "import json; d=json.load(open('$OUT/one.json')); print(json.dumps(d))" >> "$R" 2>/dev/null
}
# the clustered 128x256 schedule's verification takes about a minute of CPU
# (bounded check of 2 CTAs x 3 instances): --check-timeout 200
S4=M=4096,N=4096,K=4096; S8=M=8192,N=8192,K=8192
run $C/sched/sm90_ws_bn256_cluster2.cake --shape $S4
run $C/sched/sm90_ws_bn256.cake --shape $S4
run $C/sched/sm90_ws_bn256_cluster2.cake --shape $S8
run $C/sched/sm90_ws_bn256.cake --shape $S8
run $C/sched/sm90_multicast_b.cake --shape $S4
run $C/sched/sm90_basic_one_consumer.cake --shape $S4
