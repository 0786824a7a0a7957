#!/usr/bin/env bash
# The GEMM dispatcher's evaluation and the ablation's measured arms
# (docs/search.md, "The dispatcher on the H200" and "The ablation"), in one
# device call.
#
#   bench/gpu/tune_dispatch_ablate.sh prepare   # here: gate + rank, emit the batches, stage the carry
#   run (device): bash .devcarry/search/tune_dispatch_ablate.sh device
#   bench/gpu/tune_dispatch_ablate.sh ingest DIR # here: unpack the device's runs, ingest, print the tables
#   bench/gpu/tune_dispatch_ablate.sh tables     # the tables again from bench/gpu/results/dispatch_ablate
#
# Everything runs with the carry's tree/ as the working folder, so the run
# folders' relative paths are the same here and on the device:
#   tree/search/examples   the specs and the template (copied from this checkout)
#   tree/corpus/gemm       the baseline whose mutants are the ablation's candidates
#   tree/runs/dispatch     `cake dispatch` (8 training shards, 8 unseen shards)
#   tree/runs/ablate       grid + mutants, every candidate (`--all --ungated`)
# On the device: training shard 0 compiles the grid's kernels (16 nvcc at a
# time) and is measured; shards 1-7 reuse them (--so-cache: each distinct
# kernel compiles once), then `cake dispatch` writes the library and its
# evaluation batch, the library is measured at the unseen shards, and last
# the ablation's batch (rejected candidates too, under its 3 s watchdog).
set -euo pipefail
mode=${1:-}
case "$mode" in
  prepare)
    cd "$(dirname "$0")/../.."
    SRC=$PWD
    CAKE=${CAKE:-$SRC/build/cli/cake}
    CARRY=${CARRY:-/work/main/.devcarry/search}
    rm -rf "$CARRY/tree" && mkdir -p "$CARRY/tree/search/examples" "$CARRY/tree/corpus/gemm" "$CARRY/lib"
    cp search/examples/gemm_sm90_ws.cake search/examples/gemm_dispatch.json search/examples/gemm_dispatch.tune.json \
       search/examples/gemm_ablate.tune.json "$CARRY/tree/search/examples/"
    cp corpus/gemm/sm90_ws_4stage.cake "$CARRY/tree/corpus/gemm/"
    cp "$CAKE" "$CARRY/cake" && cp bench/gpu/tune_dispatch_ablate.sh "$CARRY/"
    cp /usr/lib/x86_64-linux-gnu/libz3.so.4 /usr/lib/x86_64-linux-gnu/libfmt.so.9 "$CARRY/lib/"
    [ "$CARRY/cake_harness" -nt runner/harness/cake_harness.cu ] && [ "$CARRY/cake_harness" -nt runner/harness/cake_abi.h ] &&
      [ "$CARRY/cake_harness" -nt runner/harness/workloads.cuh ] ||
    /usr/local/cuda/bin/nvcc -std=c++17 -O2 -cudart shared -gencode=arch=compute_80,code=sm_80 \
      -gencode=arch=compute_90,code=sm_90 -Irunner/harness runner/harness/cake_harness.cu -o "$CARRY/cake_harness" \
      -lcublas -lcupti -ldl -L/usr/local/cuda/extras/CUPTI/lib64 -L/usr/local/cuda/lib64
    cd "$CARRY/tree"
    "$CAKE" dispatch search/examples/gemm_dispatch.json -o runs/dispatch -j2
    "$CAKE" tune search/examples/gemm_ablate.tune.json -o runs/ablate -j2 --all --ungated --emit-batch runs/ablate/batch
    echo "staged $CARRY ($(du -sh "$CARRY" | cut -f1))"
    ;;
  device)
    cd "$(dirname "$0")/tree"
    export LD_LIBRARY_PATH=$PWD/../lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CAKE_HARNESS=$PWD/../cake_harness
    # --memory-limit 0: the harness must not inherit cake's address-space cap
    # (runner/process.cpp lifts it for every child; this is the belt to that)
    CAKE="../cake --memory-limit 0"
    OUT=${OUT:-/tmp/out}
    T=$(ls -d runs/dispatch/train-*/batch)
    C=runs/so-cache
    save() { tar czf "$OUT/runs.tgz" --exclude='*.so' --exclude=so-cache --exclude='*/so' runs; }
    # each phase gets at most its cap and what is left of the call's budget
    s=$SECONDS budget=${BUDGET:-450}
    left() { local l=$((budget - (SECONDS - s))); echo $(( l < $1 ? (l > 5 ? l : 5) : $1 )); }
    diag() {
      { echo "== $1"; nvidia-smi --query-gpu=name,memory.used,memory.total,clocks.sm,clocks.max.sm,driver_version --format=csv
        nvidia-smi --query-compute-apps=pid,used_memory --format=csv; free -m; } >> "$OUT/gpu.txt" 2>&1 || true
    }
    diag start
    echo "== shard 0: compile its kernels and measure ($((SECONDS - s)) s)"
    set -- $T
    timeout "$(left 120)" $CAKE tune --run-batch "$1" --so-cache $C -j 16 || echo "train-0: rc $?"
    diag "after shard 0"
    shift
    echo "== training shards 1.. (the same kernels: no compile) ($((SECONDS - s)) s)"
    timeout "$(left 200)" $CAKE tune --run-batch "$@" --so-cache $C -j 16 || echo "train: rc $?"
    save
    echo "== library + unseen shards ($((SECONDS - s)) s)"
    $CAKE dispatch search/examples/gemm_dispatch.json -o runs/dispatch -j 16 > /dev/null || echo "dispatch: rc $?"
    timeout "$(left 90)" $CAKE tune --run-batch runs/dispatch/eval --so-cache $C -j 16 || echo "eval: rc $?"
    $CAKE dispatch search/examples/gemm_dispatch.json -o runs/dispatch -j 16 || echo "dispatch: rc $?"
    save
    echo "== ablation ($((SECONDS - s)) s)"
    timeout "$(left 300)" $CAKE tune --run-batch runs/ablate/batch --so-cache $C -j 12 || echo "ablate: rc $?"
    diag "after the ablation"
    save
    echo "== done ($((SECONDS - s)) s)"
    ;;
  ingest)
    DIR=$2   # where the device's runs.tgz was fetched
    CARRY=${CARRY:-/work/main/.devcarry/search}
    cd "$(dirname "$0")/../.."
    CAKE=${CAKE:-$PWD/build/cli/cake}
    cd "$CARRY/tree" && tar xzf "$DIR/runs.tgz"
    "$CAKE" dispatch search/examples/gemm_dispatch.json -o runs/dispatch -j2
    "$CAKE" tune search/examples/gemm_ablate.tune.json -o runs/ablate -j2 --all --ungated --no-measure \
      --ingest runs/ablate/batch/results.jsonl || true   # exit 1: a verified candidate went to the corpus
    "$CAKE" tune --ablate runs/ablate runs/dispatch/train-*
    ;;
  tables)
    # docs/search.md's tables again, from the records committed under
    # bench/gpu/results/dispatch_ablate (no device, no gate: recorded results only)
    cd "$(dirname "$0")/../.."
    CAKE=${CAKE:-$PWD/build/cli/cake}
    R=$PWD/bench/gpu/results/dispatch_ablate
    W=$(mktemp -d)
    for f in "$R"/*.records.jsonl; do
      n=$(basename "$f" .records.jsonl); mkdir -p "$W/$n"; cp "$f" "$W/$n/results.jsonl"
    done
    (cd "$W" && "$CAKE" tune --ablate ablate train-*)
    python3 - "$R/eval.results.jsonl" <<'PY'
import json, math, sys
ms = [json.loads(l)["measurement"] for l in open(sys.argv[1])]
ok = [m for m in ms if m["result"] == "ok"]
print("\n| unseen shard | library ms | cuBLAS ms | cuBLAS / library |\n|---|---|---|---|")
for m in ms:
    s = m["shape"]
    print(f"| M={s['M']},N={s['N']},K={s['K']} | {m['median_ms']:.4f} | {m['baseline_ms']:.4f} | {m['baseline_ms'] / m['median_ms']:.3f} |")
g = math.exp(sum(math.log(m["baseline_ms"] / m["median_ms"]) for m in ok) / len(ok))
print(f"\ngeometric mean over {len(ok)} of {len(ms)} unseen shards (correct): {g:.3f}x cuBLAS")
PY
    rm -rf "$W"
    ;;
  *) echo "usage: $0 prepare | device | ingest DIR | tables" >&2; exit 2 ;;
esac
