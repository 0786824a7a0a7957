#!/usr/bin/env python3
"""Device side of the cost-model sweep (bench/gpu/device_cost_sweep.sh runs it).

    cost_sweep.py time  CARRY OUT_JSONL DEADLINE   time every pair of CARRY/pairs.tsv
    cost_sweep.py ncu   CARRY PIDS_TSV  DEADLINE   run the holdout pairs once each, untimed
                                                   (under ncu, which reads the counters)

Each pair runs the kernel library built by cost_build.sh in the harness with
the arguments its binding gave (CARRY/pairs.tsv), after the oracle check; the
harness's JSON line becomes the record's "record". DEADLINE is a Unix time:
the sweep stops there (what was not run is missing, never guessed).
"""
import json
import os
import subprocess
import sys
import time


def pairs(carry):
    """The pairs, workloads interleaved round-robin (a deadline cuts every workload short, not the last)."""
    by = {}
    with open(os.path.join(carry, "pairs.tsv")) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) < 9 or os.environ.get("SWEEP_SPLIT", p[1]) != p[1]:  # SWEEP_SPLIT=holdout: that split only
                continue
            by.setdefault(p[3], []).append(dict(id=p[0], split=p[1], file=p[2], workload=p[3], shape=p[4],
                                                sets=p[5], stem=p[6], kernel=p[7], args=p[8].split()))
    queues = list(by.values())
    while any(queues):
        for q in queues:
            if q:
                yield q.pop(0)


def harness(carry, p, extra):
    return [os.path.join(carry, "bin/cake_harness"), "--kernel", os.path.join(carry, "so", p["stem"] + ".so")] + \
        p["args"] + extra


def sets_of(text):
    out = {}
    for kv in filter(None, text.split(",")):
        k, v = kv.split("=")
        out[k] = int(v)
    return out


def time_all(carry, out_path, deadline):
    with open(out_path, "a") as out:
        for p in pairs(carry):
            if time.time() > deadline:
                print("cost_sweep: deadline reached", flush=True)
                break
            t = time.time()
            try:
                r = subprocess.run(harness(carry, p, ["--runs", "12", "--warmup", "2", "--seed", "7"]),
                                   capture_output=True, text=True, timeout=40)
                lines = [l for l in r.stdout.splitlines() if l.startswith("{")]
                rec = json.loads(lines[-1]) if lines else {"result": "error", "error": r.stderr[-400:]}
            except subprocess.TimeoutExpired:
                rec = {"result": "hang"}
            row = dict(id=p["id"], split=p["split"], file=p["file"], workload=p["workload"], shape=p["shape"],
                       sets=sets_of(p["sets"]), kernel=p["kernel"], record=rec, wall_s=round(time.time() - t, 2))
            out.write(json.dumps(row) + "\n")
            out.flush()
            print(p["id"], p["file"], p["shape"], rec.get("result"), rec.get("median_ms"), flush=True)


def ncu_children(carry, pids_path, deadline):
    with open(pids_path, "a") as out:
        for p in pairs(carry):
            if p["split"] != "holdout":
                continue
            if time.time() > deadline:
                print("cost_sweep: ncu deadline reached", flush=True)
                break
            proc = subprocess.Popen(harness(carry, p, ["--no-time", "--no-baseline", "--seed", "7"]),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
            out.write(f"{p['id']}\t{proc.pid}\t{p['kernel']}\n")
            out.flush()


if __name__ == "__main__":
    mode, carry, path, deadline = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    (time_all if mode == "time" else ncu_children)(carry, path, deadline)
