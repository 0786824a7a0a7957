#!/usr/bin/env python3
"""Where the warps of one kernel wait, per SASS instruction, from an Nsight Compute source page.

Input: the CSV that `ncu -i REP --page source --csv --print-source sass` writes (gzipped or not) for a
profile taken with `--section WarpStateStats --section SourceCounters` (bench/gpu/device_sm80e.sh).
Prints the share of the warp-state samples per stall reason and per opcode, then, with LOOP_COUNT
(how often each instruction of the loop of interest ran, e.g. warps x k-blocks), that loop's
instructions in address order: samples, instruction, the two largest stall reasons.
Usage: python3 ncu_src_census.py SRC.csv[.gz] [LOOP_COUNT]
"""
import collections
import csv
import gzip
import sys


def main():
    path = sys.argv[1]
    opener = gzip.open if path.endswith(".gz") else open
    rows = list(csv.reader(opener(path, "rt")))
    head = rows[1]
    ix = {k: i for i, k in enumerate(head)}
    stalls = [k for k in head if k.startswith("stall_") and "Not Issued" not in k]

    def num(r, k):
        return int(r[ix[k]] or 0)

    def opcode(src):
        words = src.strip().split()
        op = words[1] if words and words[0].startswith("@") else (words[0] if words else "")
        return op.split(".")[0]

    total, by_reason = 0, collections.Counter()
    by_op, executed = collections.Counter(), collections.Counter()
    for r in rows[2:]:
        s = num(r, "Warp Stall Sampling (All Samples)")
        total += s
        op = opcode(r[ix["Source"]])
        by_op[op] += s
        executed[op] += num(r, "Instructions Executed")
        for k in stalls:
            by_reason[k] += num(r, k)
    print(f"samples {total}")
    print("by reason: " + ", ".join(f"{k[6:]} {v / total:.3f}" for k, v in by_reason.most_common() if v))
    print("by opcode (share of samples, instructions executed):")
    for op, s in by_op.most_common(20):
        print(f"  {op:10s} {s / total:.3f}  {executed[op]}")
    if len(sys.argv) > 2:
        n = int(sys.argv[2])
        print(f"loop (instructions executed {n} times each):")
        for r in rows[2:]:
            if num(r, "Instructions Executed") != n:
                continue
            top = sorted(((num(r, k), k[6:]) for k in stalls), reverse=True)[:2]
            print(f"{num(r, 'Warp Stall Sampling (All Samples)'):6d}  {r[ix['Source']].strip()[:80]:80s}  "
                  + ", ".join(f"{k} {v}" for v, k in top if v))


if __name__ == "__main__":
    main()
