#!/usr/bin/env python3
"""Where a split-K run's time goes, from the harness's raw CUPTI records (helper `decode`,
session 13; docs/gpu.md "Decode, session 13").

Usage: records_tails.py RECORDS.jsonl[.gz] [SUBSTR]

RECORDS is what CAKE_TIMING_RECORDS makes the harness write (one JSON line per harness run:
its tag and every kernel record [name, start ns, end ns] of the interleaved runs, each run
after a `cake_l2_flush_kernel`). For each line (those whose tag contains SUBSTR) it prints,
as medians over the runs, for our kernels and for cuBLAS's:
  span   first kernel's start to last kernel's end (what the harness times),
  k0     the first kernel's duration (a split-K pair's partial kernel, cuBLAS's GEMM kernel),
  tail   the first kernel's end to the last kernel's end (the reduce after it; 0 for one kernel),
and cuBLAS's first kernel's name and kernel count.
"""
import gzip
import json
import statistics as st
import sys


def runs_of(records):
    """The kernel records of each run, split at the L2 flushes."""
    runs, cur = [], None
    for name, start, end in records:
        if name == "cake_l2_flush_kernel":
            cur = []
            runs.append(cur)
        elif cur is not None:
            cur.append((name, start, end))
    return [r for r in runs if r]


def medians(runs):
    span = st.median(r[-1][2] - r[0][1] for r in runs) / 1e3
    k0 = st.median(r[0][2] - r[0][1] for r in runs) / 1e3
    tail = st.median(r[-1][2] - r[0][2] for r in runs) / 1e3
    return span, k0, tail


def main():
    path = sys.argv[1]
    want = sys.argv[2] if len(sys.argv) > 2 else ""
    opener = gzip.open if path.endswith(".gz") else open
    print(f"{'shape':>16} {'split':>5}  {'ours: span':>10} {'k0':>6} {'tail':>5}  {'cuBLAS: span':>12} {'k0':>6} "
          f"{'tail':>5}  cuBLAS kernel (count)  | our kernel(s)")
    for line in opener(path, "rt"):
        r = json.loads(line)
        tag = r["tag"]
        if want not in tag:
            continue
        runs = runs_of(r["records"])
        ours = [x for x in runs if "cake" in x[0][0]]
        cub = [x for x in runs if "cake" not in x[0][0]]
        if not ours or not cub:
            continue
        words = tag.split()
        split = words[-1] if words[-1].startswith("s") and words[-1][1:].isdigit() else "-"
        shape = words[-2] if split != "-" else words[-1]
        so, ko, to = medians(ours)
        sc, kc, tc = medians(cub)
        print(f"{shape:>16} {split:>5}  {so:10.2f} {ko:6.2f} {to:5.2f}  {sc:12.2f} {kc:6.2f} {tc:5.2f}  "
              f"{cub[0][0][0][:40]} ({len(cub[0])})  | {words[0]}")


if __name__ == "__main__":
    main()
