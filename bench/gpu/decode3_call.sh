#!/usr/bin/env bash
# One device call of helper `decode3` (issue 13, docs/benchmarks.md "Split-K:
# wider reduce rows, 128-row partial tiles, two partial CTAs per SM"): split-K
# edge correctness of the new pairs, the focus suite (the last call's best
# kernel per shape and its best pairs beside the new pairs, same run, L2
# flushed, RUNS interleaved runs each; raw CUPTI records kept), Nsight Compute
# of our partial kernel against cuBLAS's split-K kernel at 1x4096x4096 and of
# the new partial kernels, then the runner's split-K GPU tests. Built here by
#   python3 bench/gpu/schedules/decode/gen.py bench/gpu/schedules/decode
#   (the new .so lowered and built with device_env.sh's lowered_so, the rest reused; docs/benchmarks.md)
#   SKIP_BUILD=1 FOCUS=... FOCUS_PLAN=... EXTRA="..." DEST=$D PLAN_D=.devcarry/decode3 bash bench/gpu/build_splitk.sh build
# then (run tool, carry [".devcarry/decode3"]) `bash .devcarry/decode3/run_all.sh`.
# NCU=0 / GPUTEST=0 leave those steps out; NCU_LINES: a file of plan lines to profile (default ncu.txt).
# What comes back (at most 8 files): decode3_all.tgz (the logs, plan, ncu reports), suite.jsonl,
# splitedge.jsonl, records.jsonl.gz; call the script with `| tee $OUT/log.txt` for the console.
D=${D:-.devcarry/decode3}
E=$D/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
O=$OUT/decode; mkdir -p $O
export D
gpu_line | tee $O/gpu.txt
STEPS="splitedge" OUT=$O bash $D/device_decode.sh 2>&1 | tee $O/edge_log.txt | tail -5
ok=$(python3 -c "import json;rs=[json.loads(l) for l in open('$O/splitedge.jsonl') if l.startswith('{')];print(int(len(rs)==len(open('$D/splitedge.txt').read().split(chr(10)))-1 and all(r.get('result')=='ok' for r in rs)))" 2>/dev/null || echo 0)
echo "split-K edge all ok: $ok"
# a pair that failed an edge case is left out of the suite (by its partial library)
python3 - "$O/splitedge.jsonl" "$D/plan.txt" "$O/plan.txt" <<'EOF'
import json, sys
bad = {json.loads(l)["kernel_lib"] for l in open(sys.argv[1]) if l.startswith("{") and json.loads(l).get("result") != "ok"}
lines = [l for l in open(sys.argv[2]) if l.split()[0] not in bad]
open(sys.argv[3], "w").writelines(lines)
print(f"edge failures: {sorted(bad)}; plan lines kept {len(lines)}")
EOF
date +%s > $O/t0
CAKE_TIMING_RECORDS=$O/records.jsonl PLAN=$O/plan.txt OUT=$O RUNS=${RUNS:-30} RUN_TIMEOUT=15 \
  bash $D/shape_suite.sh $D/cake_harness > $O/suite_log.txt 2>&1
date +%s > $O/t1
gzip -f $O/records.jsonl
python3 $D/suite_table.py $O/suite.jsonl | tail -1
grep -c '"result": "ok"' $O/suite.jsonl; grep -v '"result": "ok"' $O/suite.jsonl | cut -c1-300
# per shape the best, with and without the pairs new in this call (NEW: substrings of their labels)
python3 $D/records_suite.py $O/records.jsonl.gz $(for x in ${NEW:-_ar_}; do echo --new $x; done) | sed -n '/^$/,$p'
if [ "${GPUTEST:-1}" = 1 ]; then
# the test binary's compiled-in -I path for the lowered kernels' ABI header; the tests' sources from $D/src
mkdir -p /work/h-decode3 && cp -r abi /work/h-decode3/ 2>/dev/null
CAKE_HARNESS=$PWD/$D/cake_harness CAKE_SOURCE_DIR=$PWD/$D/src timeout -s KILL 120 $D/cake_tests_runner \
  --gtest_filter="${GTEST_FILTER:-RunnerGpu.SplitKPdlGlobalLoadReduceIsCorrect:RunnerSplitK.*:RunTiming.*}" 2>&1 | tail -25 | tee $O/gputest_log.txt
fi
# Nsight Compute: each line of ncu.txt is a plan line; the harness runs the pair (or kernel) and
# cuBLAS once untimed, ncu profiles every kernel whose name matches (ours and cuBLAS's split-K GEMM)
if [ "${NCU:-1}" = 1 ] && command -v ncu >/dev/null; then
  i=0
  while read -r l; do
    [ -n "$l" ] || continue; i=$((i + 1))
    timeout -s KILL 40 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
      --section LaunchStats --section Occupancy --section SchedulerStats -k 'regex:cake_sm90|nvjet|splitKreduce' -c 4 \
      $D/cake_harness --kernel $l --no-time > $O/ncu_$i.txt 2>&1 </dev/null
    echo "== ncu $i: $l" | cut -c1-200
    grep -E '^  [a-zA-Z_]|Duration|DRAM Throughput|Registers Per|Dynamic Shared|Block Limit Shared|Achieved Occupancy|Grid Size|Cluster Size|SM Active' $O/ncu_$i.txt | head -60
  done < ${NCU_LINES:-$D/ncu.txt}
fi
# the device returns at most 8 files: everything in one archive, the suite's records beside it
tar czf $OUT/decode3_all.tgz -C $O . && for f in suite.jsonl splitedge.jsonl records.jsonl.gz; do
  [ -f $O/$f ] && mv $O/$f $OUT/; done && rm -rf $O
