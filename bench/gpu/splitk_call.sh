#!/usr/bin/env bash
# One device call for the issue-13 suite with split-K (helper `gemm`, docs/benchmarks.md
# "Split-K over CTAs"): built here by bench/gpu/build_splitk.sh into .devcarry/gemmsk
# (copy this file there as run_all.sh; cp build/tests/cake_tests_runner there too), then
# `bash .devcarry/gemmsk/run_all.sh` with carry [".devcarry/gemmsk"]. Steps: split-K edge
# correctness; the planned suite (its split-K lines dropped if any edge case failed);
# the runner's split-K tests, RunnerGpu.SplitKGemmIsCorrect among them.
D=.devcarry/gemmsk; O=$OUT/decode; mkdir -p $O
export D
CUPTI=$(dirname "$(find /usr/local -name 'libcupti.so.13' 2>/dev/null | head -1)")
export LD_LIBRARY_PATH=$D/lib:$CUPTI:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
STEPS="splitedge" OUT=$O bash $D/device_decode.sh 2>&1 | tee $O/edge_log.txt
ok=$(python3 -c "import json;rs=[json.loads(l) for l in open('$O/splitedge.jsonl') if l.startswith('{')];print(int(len(rs)==len(open('$D/splitedge.txt').read().split(chr(10)))-1 and all(r.get('result')=='ok' for r in rs)))" 2>/dev/null || echo 0)
echo "split-K edge all ok: $ok"
if [ "$ok" != 1 ]; then grep -v -- '--reduce' $D/plan.txt > $O/plan.txt; else cp $D/plan.txt $O/plan.txt; fi
date +%s > $O/t0
PLAN=$O/plan.txt OUT=$O RUNS=${RUNS:-30} RUN_TIMEOUT=15 bash $D/shape_suite.sh $D/cake_harness 2>&1 | tee $O/suite_log.txt
date +%s > $O/t1
# the end-to-end GPU test of the binding (cake's runner lowers, compiles with nvcc and runs the corpus pair)
mkdir -p /work/h-gemm && cp -r abi /work/h-gemm/ 2>/dev/null   # the test binary's compiled-in -I path
CAKE_HARNESS=$PWD/$D/cake_harness CAKE_SOURCE_DIR=$PWD timeout -s KILL 100 $D/cake_tests_runner \
  --gtest_filter='RunnerGpu.SplitK*:RunnerSplitK.*' 2>&1 | tail -25 | tee $O/gputest_log.txt
