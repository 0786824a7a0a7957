#!/usr/bin/env bash
# One device call for the issue-13 suite with split-K, the pairs plain and
# chained with programmatic dependent launch (helper `splitk`,
# docs/benchmarks.md "Split-K with programmatic dependent launch"). Built here by
#   python3 bench/gpu/schedules/decode/gen.py bench/gpu/schedules/decode
#   DEST=/work/main/.devcarry/splitk PLAN_D=.devcarry/splitk bash bench/gpu/build_splitk.sh build
#   cp bench/gpu/splitk_pdl_call.sh /work/main/.devcarry/splitk/run_all.sh
#   cp build/tests/cake_tests_runner /work/main/.devcarry/splitk/   (build_splitk.sh copies it when TESTS=1)
# then (run tool, carry [".devcarry/splitk"]) `bash .devcarry/splitk/run_all.sh`.
# Steps: split-K edge correctness (plain and PDL pairs); the planned suite
# (RUNS=30; its split-K lines dropped if any edge case failed), with the raw
# CUPTI records of every run in records.jsonl (CAKE_TIMING_RECORDS); the
# runner's split-K tests (RunnerGpu.SplitKPdlGemmIsCorrect lowers, compiles and runs the
# PDL pair through cake's own runner). NCU=0 / GPUTEST=0 leave those steps out.
D=${D:-.devcarry/splitk}
E=$D/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
O=$OUT/decode; mkdir -p $O
export D
gpu_line
STEPS="splitedge" OUT=$O bash $D/device_decode.sh 2>&1 | tee $O/edge_log.txt
ok=$(python3 -c "import json;rs=[json.loads(l) for l in open('$O/splitedge.jsonl') if l.startswith('{')];print(int(len(rs)==len(open('$D/splitedge.txt').read().split(chr(10)))-1 and all(r.get('result')=='ok' for r in rs)))" 2>/dev/null || echo 0)
echo "split-K edge all ok: $ok"
if [ "$ok" != 1 ]; then grep -v -- '--reduce' $D/plan.txt > $O/plan.txt; else cp $D/plan.txt $O/plan.txt; fi
date +%s > $O/t0
CAKE_TIMING_RECORDS=$O/records.jsonl PLAN=$O/plan.txt OUT=$O RUNS=${RUNS:-30} RUN_TIMEOUT=15 \
  bash $D/shape_suite.sh $D/cake_harness 2>&1 | tee $O/suite_log.txt
date +%s > $O/t1
python3 $D/suite_table.py $O/suite.jsonl | tail -30
python3 $D/suite_table.py $O/suite.jsonl --sum | tail -1
python3 $D/suite_table.py $O/suite.jsonl --exclude _pdl | tail -1
# Nsight Compute of both kernels of the PDL pair bn64 S=2 at 1x4096x4096 (ncu runs them one
# after the other, caches flushed before each): where the partial kernel's time goes
l=$(grep -m1 -- "sm90_decode_splitk_bn64_s12_pdl.so .*--split 2 --m 1 --n 4096 --k 4096 " $O/plan.txt)
if [ "${NCU:-1}" = 1 ] && [ -n "$l" ] && command -v ncu >/dev/null; then
  timeout -s KILL 60 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section LaunchStats --section Occupancy -k regex:splitk -c 2 $D/cake_harness --kernel $l --no-time \
    > $O/ncu_bn64_s12_pdl_1x4096x4096.txt 2>&1
  grep -E 'splitk|Duration|DRAM Throughput|Memory Throughput|Registers Per|Achieved Occupancy|Stall' \
    $O/ncu_bn64_s12_pdl_1x4096x4096.txt | head -40
fi
# the test binary's compiled-in -I path for the lowered kernels' ABI header; the
# tests' sources from $D/src (build_splitk.sh copies them: this checkout may lack the PDL pair)
[ "${GPUTEST:-1}" = 1 ] || exit 0
mkdir -p /work/h-splitk && cp -r abi /work/h-splitk/ 2>/dev/null
CAKE_HARNESS=$PWD/$D/cake_harness CAKE_SOURCE_DIR=$PWD/$D/src timeout -s KILL 100 $D/cake_tests_runner \
  --gtest_filter='RunnerGpu.SplitKPdl*:RunnerSplitK.*:RunTiming.*' 2>&1 | tail -25 | tee $O/gputest_log.txt
