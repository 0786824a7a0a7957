#!/usr/bin/env python3
"""Source-level hot spots from `ncu -i R --csv --page source --print-source sass`:
the SASS instructions with the most warp-stall samples, each with its share of
all samples, its execution count and its two largest stall reasons.
Usage: ncu_hotspots.py FILE.csv [TOP]"""
import csv
import sys

path, top = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 25
rows = list(csv.reader(open(path)))
hdr_i = next(i for i, r in enumerate(rows) if r and r[0] == "Address")
h = rows[hdr_i]
col = {n: i for i, n in enumerate(h)}
stall_cols = [n for n in h if n.startswith("stall_")]
ins = []
for r in rows[hdr_i + 1:]:
    if len(r) != len(h):
        continue
    n = lambda k: int(float(r[col[k]] or 0))
    reasons = sorted(((n(s), s[6:]) for s in stall_cols), reverse=True)[:2]
    ins.append((n("Warp Stall Sampling (All Samples)"), r[col["Source"]].strip(), n("Instructions Executed"), reasons, r[0]))
total = sum(i[0] for i in ins) or 1
print("%s: %d SASS instructions, %d samples" % (path.split("/")[-1], len(ins), total))
for s, src, ex, reasons, addr in sorted(ins, reverse=True)[:top]:
    print("%5.1f%%  %-58s exec %8d  %s" % (100.0 * s / total, src[:58], ex, " ".join("%s %d%%" % (k, 100 * v // max(s, 1)) for v, k in reasons if v)))
# mbarrier waits: each wait is a TRYWAIT then a branch back to a retry loop
# (emitted out of line). Per barrier offset, the executions of the in-line
# TRYWAIT (first tries) and of the retry loop's one (the wait had not
# completed within the hardware's suspend window), with the samples on the
# branch that consumes the TRYWAIT's result (a warp waiting on the barrier).
waits = {}
body = [r for r in rows[hdr_i + 1:] if len(r) == len(h)]
for i, r in enumerate(body[:-1]):
    src = r[col["Source"]]
    if "TRYWAIT" not in src:
        continue
    bar = src.split("[")[1].split("]")[0].split("+")[-1] if "[" in src else "?"
    ex = int(float(r[col["Instructions Executed"]] or 0))
    pred = src.split("TRYWAIT")[1].split(",")[0].strip()  # the predicate it sets
    samples = 0
    for nxt in body[i + 1:i + 16]:  # the branch that reads it
        if "BRA" in nxt[col["Source"]] and "!" + pred in nxt[col["Source"]]:
            samples = int(float(nxt[col["Warp Stall Sampling (All Samples)"]] or 0))
            break
    w = waits.setdefault(bar, [])
    w.append((ex, samples))
if waits:
    print("mbarrier waits (offset: executions of each TRYWAIT site in address order, samples on its branch %):")
    for bar, sites in sorted(waits.items()):
        print("  %-8s %s" % (bar, "  ".join("%d (%.1f%%)" % (ex, 100.0 * s / total) for ex, s in sites)))
