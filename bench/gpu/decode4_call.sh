#!/usr/bin/env bash
# One device call of helper `decode` (issue 13, docs/benchmarks.md "Decode: reduce residency, wide
# transposed tiles"): the sweep, then the suite of the chosen kernels, in one call.
#  1. bench/gpu/decode3_call.sh (NCU / GPUTEST off unless set): the edge correctness of every new
#     pair and kernel (splitedge.txt: partial tiles, an empty last K slice, one row), then every
#     line of the plan (the last call's best kernel per shape and the new candidates at their
#     shapes; same run, L2 flushed, RUNS interleaved runs each, each checked against the oracle
#     before and after the timed runs), the raw CUPTI records kept; a line whose library failed
#     an edge case is left out.
#  2. focus_plan.py: the best line per shape of step 1 (final_plan.txt), run again as the suite
#     (final/suite.jsonl, final/records.jsonl.gz): the figure reported, free of the upward bias of
#     picking the maximum of noisy ratios in step 1.
# Built here by bench/gpu/build_smallm.sh (its header); on the device (carry .devcarry/decode):
#   D=.devcarry/decode NEW="_t16_ _t32_ ..." bash .devcarry/decode/decode4_call.sh 2>&1 | tee $OUT/log.txt
# A second call with FINAL_PLAN=FILE runs the edge cases of $D/splitedge.txt and step 2 on FILE only.
# What comes back: decode3_all.tgz, suite.jsonl, splitedge.jsonl, records.jsonl.gz (step 1),
# final_plan.txt, final/suite.jsonl, final/records.jsonl.gz (step 2), and the log.
set -u
D=${D:-.devcarry/decode}
export D
E=$D/device_env.sh; . "$E" "$D" > /dev/null
if [ -n "${FINAL_PLAN:-}" ]; then
  # a second call: step 2 alone on FINAL_PLAN (a plan file in $D, e.g. the first call's choice
  # with libraries lowered again), after the edge cases of $D/splitedge.txt
  gpu_line
  STEPS=splitedge OUT=$OUT bash $D/device_decode.sh
  cp $D/$FINAL_PLAN $OUT/final_plan.txt
else
  NCU=${NCU:-0} GPUTEST=${GPUTEST:-0} RUNS=${RUNS:-30} bash $D/decode3_call.sh
  # FINAL_EXCLUDE: a regex of libraries left out of the choice (e.g. the kernels lowered by the
  # lowering before a change, timed beside it in step 1 but not what the tree now produces)
  grep -Ev "${FINAL_EXCLUDE:-^\$}" $OUT/suite.jsonl > $OUT/final_choice.jsonl
  python3 $D/focus_plan.py $OUT/final_choice.jsonl $D/plan.txt $D __none__ > $OUT/final_plan.txt ||
    { echo "no final plan"; exit 1; }
fi
echo "final plan: $(wc -l < $OUT/final_plan.txt) lines"
mkdir -p $OUT/final
CAKE_TIMING_RECORDS=$OUT/final/records.jsonl PLAN=$OUT/final_plan.txt OUT=$OUT/final RUNS=${FINAL_RUNS:-30} RUN_TIMEOUT=15 \
  bash $D/shape_suite.sh $D/cake_harness > $OUT/final/suite_log.txt 2>&1
gzip -f $OUT/final/records.jsonl; rm -f $OUT/final/suite_log.txt $OUT/final_choice.jsonl
grep -c '"result": "ok"' $OUT/final/suite.jsonl; grep -v '"result": "ok"' $OUT/final/suite.jsonl | cut -c1-300
python3 $D/suite_table.py $OUT/final/suite.jsonl | tail -4
python3 $D/records_suite.py $OUT/final/records.jsonl.gz | tail -1
