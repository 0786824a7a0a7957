#!/usr/bin/env bash
# The `cake tune` acceptance run (docs/search.md): the example GEMM grid
# (search/examples/gemm_sm90_ws.tune.json, 48 points) tuned with the cost
# model (top 7) and swept exhaustively (every verified point), measured in
# one device call.
#
#   bench/gpu/tune_gemm.sh prepare   # here: gate + rank, emit both batches, stage .devcarry/tune
#   (device) cd .devcarry/tune && LD_LIBRARY_PATH=$PWD/lib CAKE_HARNESS=$PWD/cake_harness \
#            ./cake tune --run-batch batch -j 17 && cp batch/results.jsonl $OUT/
#   bench/gpu/tune_gemm.sh ingest RESULTS.jsonl   # here: merge, report, ablation
#
# The sweep batch is a superset of the tune batch, so the device measures
# each kernel once; the tune run ingests only the ids its own batch named
# (chosen from predictions before anything was measured).
set -euo pipefail
cd "$(dirname "$0")/../.."
CAKE=${CAKE:-build/cli/cake}
SPEC=search/examples/gemm_sm90_ws.tune.json
W=${WORK:-/tmp/tg}
case "${1:-}" in
  prepare)
    "$CAKE" tune "$SPEC" -o "$W/tune" -j2 --emit-batch "$W/tune-batch"
    mkdir -p "$W/sweep" && cp "$W/tune/results.jsonl" "$W/sweep/"
    "$CAKE" tune "$SPEC" -o "$W/sweep" -j2 --all --emit-batch "$W/sweep-batch"
    carry=${CARRY:-../main/.devcarry/tune}
    mkdir -p "$carry/lib"
    cp "$CAKE" "$carry/" && cp /usr/lib/x86_64-linux-gnu/libz3.so.4 /usr/lib/x86_64-linux-gnu/libfmt.so.9 "$carry/lib/"
    rm -rf "$carry/batch" && cp -r "$W/sweep-batch" "$carry/batch"
    echo "staged $carry (add the harness: nvcc runner/harness/cake_harness.cu -> $carry/cake_harness)"
    ;;
  ingest)
    results=$2
    python3 - "$W/tune-batch/manifest.json" "$results" "$W/tune-batch/results.jsonl" <<'PY'
import json, sys
ids = {it["id"] for it in json.load(open(sys.argv[1]))["items"]}
with open(sys.argv[3], "w") as out:
    for line in open(sys.argv[2]):
        if json.loads(line)["id"] in ids:
            out.write(line)
PY
    "$CAKE" tune "$SPEC" -o "$W/tune" --ingest "$W/tune-batch/results.jsonl" --no-measure
    "$CAKE" tune "$SPEC" -o "$W/sweep" --all --ingest "$results" --no-measure
    "$CAKE" tune --ablate "$W/sweep" "$W/tune"
    ;;
  *) echo "usage: $0 prepare | ingest RESULTS.jsonl" >&2; exit 2 ;;
esac
