#!/bin/bash
# Z3-po labels of the corpus mutants, 16 shards (run from the repo root).
D=.devcarry/semantics
export LD_LIBRARY_PATH=$D
nproc
for i in $(seq 0 15); do
  $D/cake_bench_sync_engines corpus/mutants --shard=$i/16 --budget-s=${BUDGET:-235} --timeout-ms=10000 > $OUT/shard$i.txt 2>&1 &
done
wait
cd $OUT && grep -h -E "^(sync engines over|DISAGREE|INTERNAL)" shard*.txt | head -40
