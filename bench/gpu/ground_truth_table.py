#!/usr/bin/env python3
"""The GPU ground-truth table (docs/gpu-ground-truth.md) from the JSON lines
of bench/gpu/device_ground_truth.sh: one row per case and shape, what the
H200 did next to what `cake check` predicted, and the defects to
investigate -- a predicted deadlock that did not hang, or a schedule that
verified (check exit 0) and computed a wrong result, hung or crashed.

usage: bench/gpu/ground_truth_table.py RESULTS.jsonl
"""
import json
import re
import sys
from collections import Counter

OBSERVED = {"ok": "correct", "wrong": "wrong", "hang": "hang", "crash": "crash",
            "cuda_error": "crash", "launch_error": "crash"}


def target(r):
    """sm_80 / sm_90a: the runner's record, else the schedule's file."""
    if r.get("target"):
        return r["target"]
    m = re.search(r'target="(sm_[0-9a]+)"', open(r["file"]).read())
    return m.group(1) if m else ""


def main(path):
    rows = [json.loads(l) for l in open(path) if l.strip()]
    print("| case | target | shape (M,N,K) | predicted by `cake check` | GPU | rel_error | note |")
    print("|---|---|---|---|---|---|---|")
    defects, tally = [], Counter()
    for r in sorted(rows, key=lambda r: (r["case"], r["shape_asked"])):
        res = r.get("result", "?")
        obs = OBSERVED.get(res, res)
        pred = r["predicted"]
        verified = r["check_exit"] == 0
        note = ""
        if "sync.deadlock" in pred and obs != "hang" and obs in ("correct", "wrong", "crash"):
            note = "DEFECT: predicted deadlock did not hang"
        elif verified and obs in ("wrong", "hang", "crash"):
            note = "DEFECT: verified schedule failed on the GPU"
        elif not verified and obs == "correct":
            note = "latent (bug not visible at this size/run)"
        if note.startswith("DEFECT"):
            defects.append((r, note))
        tally[(("pass" if verified else "bug"), obs)] += 1
        rel = r.get("rel_error")
        rel = "" if rel is None or rel < 0 else "%.3g" % rel
        detail = (r.get("detail") or "").splitlines()
        if res not in ("ok", "wrong") and detail:
            note = (note + "; " if note else "") + detail[0][:80].replace("|", "/").replace("000000 s", " s")
        print("| `%s` | %s | %s | %s | %s | %s | %s |" % (
            r["file"].removeprefix("corpus/"), target(r), r["shape_asked"],
            pred if verified is False else "pass (exit 0)", obs, rel, note))
    print()
    print("Totals (prediction, GPU): " + ", ".join("%s/%s: %d" % (k[0], k[1], v) for k, v in sorted(tally.items())))
    print()
    print("Defects: %d" % len(defects))
    for r, note in defects:
        print("- `%s` at %s: %s (GPU: %s)" % (r["file"], r["shape_asked"], note, r.get("result")))


if __name__ == "__main__":
    main(sys.argv[1])
