#!/usr/bin/env bash
# One device call of helper `decode2` (issue 13, session 15; docs/benchmarks.md "Decode, session 15"):
#  1. bench/gpu/decode4_call.sh (the runner's GPU tests off; NCU=1: Nsight Compute of $D/ncu.txt): the edge correctness of
#     $D/splitedge.txt, the sweep of $D/plan.txt (session 14's 24 suite lines and the new
#     candidates, same run, L2 flushed, RUNS interleaved runs each, each checked against the oracle
#     before and after), then the best line per shape run again as the suite (final/).
#  2. the same final plan run a second time (final/suite2.jsonl, final/records2.jsonl.gz): the two
#     suites' per-shape ratios are the call's noise band, printed side by side.
# Built here by (DEST /work/main/.devcarry/decode2, PLAN_D .devcarry/decode2)
#   FROM=bench/gpu/results/decode_session14 UPLAN=... PLAIN=... DEVICE_SCRIPT=bench/gpu/decode15_call.sh \
#   bash bench/gpu/build_decode5.sh build
# then (run tool, carry [".devcarry/decode2"]):
#   D=.devcarry/decode2 NEW="..." bash .devcarry/decode2/decode15_call.sh 2>&1 | tee $OUT/log.txt
# What comes back (8 files): log.txt, decode3_all.tgz (the sweep's logs and plan, splitedge.jsonl,
# final_plan.txt), suite.jsonl and records.jsonl.gz (the sweep), final/suite.jsonl,
# final/records.jsonl.gz, final/suite2.jsonl, final/records2.jsonl.gz.
set -u
D=${D:-.devcarry/decode2}
export D
NCU=${NCU:-0} GPUTEST=0 bash $D/decode4_call.sh
. $D/device_env.sh "$D" > /dev/null
mkdir -p $OUT/f2
CAKE_TIMING_RECORDS=$OUT/f2/records.jsonl PLAN=$OUT/final_plan.txt OUT=$OUT/f2 RUNS=${FINAL_RUNS:-30} RUN_TIMEOUT=15 \
  bash $D/shape_suite.sh $D/cake_harness > /dev/null 2>&1
gzip -f $OUT/f2/records.jsonl
mv $OUT/f2/suite.jsonl $OUT/final/suite2.jsonl; mv $OUT/f2/records.jsonl.gz $OUT/final/records2.jsonl.gz; rm -rf $OUT/f2
echo "== second run of the final plan"
python3 $D/suite_table.py $OUT/final/suite2.jsonl | tail -2
# the two runs side by side: per shape the ratio of each, their difference; geomean and minimum of each
python3 - $OUT/final/suite.jsonl $OUT/final/suite2.jsonl <<'EOF'
import json, math, sys
runs = []
for f in sys.argv[1:]:
    d = {}
    for l in open(f):
        if l.startswith("{"):
            r = json.loads(l)
            if r.get("result") == "ok" and r.get("correct"):
                d[(r["M"], r["N"], r["K"])] = r["ratio"]
    runs.append(d)
shapes = sorted(set(runs[0]) & set(runs[1]))
for s in shapes:
    a, b = runs[0][s], runs[1][s]
    print("  %-18s %.3f  %.3f  %+.3f" % ("x".join(map(str, s)), a, b, b - a))
for i, d in enumerate(runs):
    v = [d[s] for s in shapes]
    print("run %d: geomean %.4f over %d shapes, min %.3f" % (i + 1, math.exp(sum(map(math.log, v)) / len(v)), len(v), min(v)))
print("largest per-shape difference between the runs: %.3f" % max(abs(runs[0][s] - runs[1][s]) for s in shapes))
EOF
# at most 8 files come back: splitedge.jsonl and final_plan.txt into the archive
if [ -f $OUT/decode3_all.tgz ]; then
  gunzip -f $OUT/decode3_all.tgz && tar rf $OUT/decode3_all.tar -C $OUT splitedge.jsonl final_plan.txt &&
    gzip -f $OUT/decode3_all.tar && mv $OUT/decode3_all.tar.gz $OUT/decode3_all.tgz && rm -f $OUT/splitedge.jsonl $OUT/final_plan.txt
fi
ls -la $OUT $OUT/final
