#!/usr/bin/env python3
"""The exhaustive `cake tune` sweeps of docs/search.md as cost-model records.

Every verified candidate of bench/gpu/results/dispatch_ablate/{train-*,ablate}.records.jsonl
was measured (an exhaustive sweep per shape), so the sweeps are both
calibration data for `cake cost calibrate` and the truth for the question
"does the model's top 3 hold the measured best?" (`cost_search_records.py topk`).

    cost_search_records.py records [DIR]          -> JSONL in the format of cost_records.py (split: calibrate)
    cost_search_records.py topk EVAL_JSON         -> per sweep: the best's predicted rank, top 3 holds it?

A candidate is the template with its params as the record's "choices" (`cake cost
evaluate` binds them as constants, as tune does); mutants are the three files
under DIR/mutants (regenerated with `cake mutate corpus/gemm/sm90_ws_4stage.cake
-n 0 --no-label -o OUT`); the baseline is the corpus file.
"""
import glob
import json
import os
import sys

TEMPLATE = "search/examples/gemm_sm90_ws.cake"
BASELINE = "corpus/gemm/sm90_ws_4stage.cake"


def source(r, d):
    if r["origin"] == "grid":
        return TEMPLATE
    if r["origin"] == "baseline":
        return BASELINE
    name = r["id"].split("/")[-1]  # mutant:gemm/sm90_ws_4stage/iter-plus-1-L44.cake
    return os.path.join(d, "mutants", name)


def records(d):
    for path in sorted(glob.glob(os.path.join(d, "train-*.records.jsonl")) + [os.path.join(d, "ablate.records.jsonl")]):
        run = os.path.basename(path).split(".")[0]
        for line in open(path):
            r = json.loads(line)
            m = r.get("measurement") or {}
            if r.get("verdict") != "verified" or m.get("result") != "ok":
                continue
            sh = m["shape"]
            yield dict(id=f"{run}:{r['id']}", split="calibrate", run=run, file=source(r, d), workload="gemm",
                       shape=f"M={sh['M']},N={sh['N']},K={sh['K']}", sets={}, choices=r.get("params") or {},
                       record=dict(result="ok", median_ms=m["median_ms"]))


def topk(path):
    rows = json.load(open(path))
    if isinstance(rows, dict):  # cake cost evaluate --format json: {"pairs": [...], ...}
        rows = rows["pairs"]
    runs = {}
    for r in rows:
        runs.setdefault(r["id"].split(" ")[1], []).append(r)
    held = 0
    for shape, rs in sorted(runs.items()):
        best = min(rs, key=lambda r: r["measured_ms"])
        order = sorted(rs, key=lambda r: r["predicted_ms"])  # ties: the order of the records (enumeration)
        rank = order.index(best) + 1
        within = [r for r in order[:3] if r["measured_ms"] <= 1.02 * best["measured_ms"]]
        held += rank <= 3
        print(f"{shape:<24} {len(rs):>3} candidates  best's predicted rank {rank:>2}  top 3 holds best: "
              f"{'yes' if rank <= 3 else 'no '}  holds one within 2%: {'yes' if within else 'no'}")
    print(f"top 3 holds the measured best in {held} of {len(runs)} sweeps")


if __name__ == "__main__":
    if sys.argv[1] == "records":
        d = sys.argv[2] if len(sys.argv) > 2 else "bench/gpu/results/dispatch_ablate"
        for r in records(d):
            print(json.dumps(r))
    else:
        topk(sys.argv[2])
