#!/usr/bin/env python3
"""Joins the device call's raw files into the records `cake cost calibrate` and
`cake cost evaluate` read: each sweep row gets the Nsight Compute speed-of-light
figures of its pair (matched through the harness's process id).

    python3 bench/gpu/cost_records.py RESULTS_DIR > RESULTS_DIR/records.jsonl
"""
import csv
import json
import os
import sys


def ncu_by_pid(d):
    path = os.path.join(d, "ncu.csv")
    out = {}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        lines = [l for l in f if l.startswith('"')]
    for row in csv.DictReader(lines):
        pid = row.get("Process ID")
        name = row.get("Metric Name")
        try:
            v = float(row.get("Metric Value", "").replace(",", ""))
        except ValueError:
            continue
        m = out.setdefault(pid, {})
        if row.get("ID") != m.setdefault("_id", row.get("ID")):
            continue  # the first profiled launch of the process only
        key = {"sm__throughput.avg.pct_of_peak_sustained_elapsed": "sm_pct",
               "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": "mem_pct",
               "gpu__time_duration.sum": "duration",
               "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram_pct",
               "lts__throughput.avg.pct_of_peak_sustained_elapsed": "l2_pct"}.get(name)
        if key:
            m[key] = v
            m.setdefault("kernel", row.get("Kernel Name"))
    return out


def main():
    d = sys.argv[1]
    ncu = ncu_by_pid(d)
    pid_of = {}
    p = os.path.join(d, "ncu_pids.tsv")
    if os.path.exists(p):
        for line in open(p):
            f = line.rstrip("\n").split("\t")
            if len(f) >= 2:
                pid_of[f[0]] = f[1]
    for line in open(os.path.join(d, "sweep.jsonl")):
        r = json.loads(line)
        m = ncu.get(pid_of.get(r["id"], ""), {})
        if "sm_pct" in m and "mem_pct" in m:
            r["ncu"] = {k: v for k, v in m.items() if not k.startswith("_")}
        print(json.dumps(r))


if __name__ == "__main__":
    main()
