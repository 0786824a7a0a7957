#!/usr/bin/env python3
"""The GEMM shape-suite table (issue 13) from the harness's JSON lines.

Usage: suite_table.py SUITE.jsonl [--sum] [--exclude SUBSTR]...

The ratio is the harness's: cuBLAS's median span / the kernel's (a run's span:
its first kernel's start to its last kernel's end, runner/harness/run_timing.h).
--sum: the ratio of the medians of the sums of kernel durations instead (the
harness's measure before the span; records without it are left out).
--exclude SUBSTR: leave out the kernels whose label contains SUBSTR.

One row per M x N x K, one column per kernel (a split-K pair is
"partial+reduce/sS": each split count is its own column), each cell the
same-run ratio cuBLAS ms / kernel ms (> 1: faster than cuBLAS) or the result
when not ok; then the geometric mean per kernel and of the best kernel per
shape (choosing among verified schedules per shape is what a tuner does),
over all shapes, the decode shapes (M <= 128) and the prefill shapes.
"""
import collections
import json
import math
import sys


def label(r):
    name = r.get("kernel", r.get("kernel_lib"))
    return f"{name}/s{r['split']}" if r.get("split") else name


def geo(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main(path, use_sum=False, exclude=()):
    rows = [json.loads(l) for l in open(path) if l.startswith("{")]
    rows = [r for r in rows if not any(x in label(r) for x in exclude)]
    for r in rows:
        if use_sum:
            ok = r.get("sum_median_ms") and r.get("baseline_sum_ms")
            r["ratio"] = r["baseline_sum_ms"] / r["sum_median_ms"] if ok else None
            r["baseline_ms"] = r.get("baseline_sum_ms")
    by = collections.OrderedDict()
    for r in rows:
        by.setdefault((r.get("M"), r.get("N"), r.get("K")), {})[label(r)] = r
    names = sorted({k for d in by.values() for k in d})
    short = {n: n.replace("sm90_decode_", "").replace("sm90_splitk_reduce_", "red")[-22:] for n in names}
    print("%-20s" % "M x N x K" + "".join("%24s" % short[n] for n in names) + "%10s" % "cuBLAS ms")
    logs = collections.defaultdict(list)
    best = []
    for shp, d in by.items():
        line = "%-20s" % ("%dx%dx%d" % shp)
        rs = {}
        for n in names:
            r = d.get(n)
            ok = r is not None and r.get("result") == "ok" and r.get("ratio")
            line += "%24s" % ("%.3f" % r["ratio"] if ok else (r or {}).get("result", "-"))
            if ok:
                logs[n].append(r["ratio"])
                rs[n] = r["ratio"]
        base = [r.get("baseline_ms") for r in d.values() if r.get("baseline_ms")]
        line += "%10.4f" % base[0] if base else ""
        print(line)
        if rs:
            top = max(rs, key=rs.get)
            best.append((shp, top, rs[top]))
    print("%-20s" % "geomean" + "".join("%24s" % ("%.3f (%d)" % (geo(logs[n]), len(logs[n])) if logs[n] else "-")
                                        for n in names))
    print("best verified kernel per shape:")
    for shp, top, ratio in best:
        print("  %-20s %.3f  %s" % ("%dx%dx%d" % shp, ratio, top))
    dec = [x for s, _, x in best if s[0] <= 128]
    pre = [x for s, _, x in best if s[0] > 128]
    print("geomean of the best kernel per shape: %.3f over %d shapes (decode %.3f over %d, prefill %.3f over %d)"
          % (geo([x for *_, x in best]), len(best), geo(dec), len(dec), geo(pre), len(pre)))


if __name__ == "__main__":
    args = sys.argv[1:]
    excl = [args[i + 1] for i, a in enumerate(args) if a == "--exclude"]
    main(args[0], "--sum" in args, excl)
