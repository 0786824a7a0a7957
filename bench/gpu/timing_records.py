#!/usr/bin/env python3
"""Where a multi-kernel run's time goes, from the harness's raw CUPTI records
(CAKE_TIMING_RECORDS=FILE, runner/harness/cake_harness.cu).

Usage: timing_records.py RECORDS.jsonl[.gz] [TAG_SUBSTRING]

Each line is one harness run (tag "KERNEL MxNxK [sS]"): the timed launches
flush, kernel, flush, cuBLAS, ... The runs are split at the flush records as
the harness splits them (runner/harness/run_timing.h); per tag and side
(kernel, cuBLAS) it prints the medians over the runs of: the span (first
start to last end, the harness's time), the sum of durations, each kernel's
duration in launch order, and the gap from each kernel's end to the next
one's start (negative: they overlapped, as under programmatic dependent
launch), and from the flush's end to the first kernel's start.
"""
import gzip
import json
import statistics
import sys

FLUSH = "cake_l2_flush_kernel"


def is_flush(name):
    # the first device call's records cut the mangled names at 48 characters, which
    # leaves of the flush kernel "_ZN48_GLOBAL__N__..._cake_harness_cu_..." (the only
    # harness kernel launched during the timed runs); later ones write its name whole
    return FLUSH in name or (name.startswith("_ZN") and "cake_harness_cu" in name)


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def runs(records):
    recs = sorted(records, key=lambda r: r[1])
    out, cur, flush_end = [], None, None
    for name, start, end in recs:
        if is_flush(name):
            if cur is not None:
                out.append((flush_end, cur))
            cur, flush_end = [], end
        elif cur is not None:
            cur.append((name, start, end))
    if cur is not None:
        out.append((flush_end, cur))
    return out


def summary(side):
    """side: [(flush_end, [(name, start, end)...])] -> a dict of medians in µs."""
    n = max(len(ks) for _, ks in side)
    full = [(f, ks) for f, ks in side if len(ks) == n]
    us = 1e-3
    s = {"runs": len(side), "kernels": n,
         "span": med([(max(e for *_, e in ks) - ks[0][1]) * us for _, ks in full]),
         "sum": med([sum(e - b for _, b, e in ks) * us for _, ks in full]),
         "launch_gap": med([(ks[0][1] - f) * us for f, ks in full]),
         "durations": [med([(ks[i][2] - ks[i][1]) * us for _, ks in full]) for i in range(n)],
         "gaps": [med([(ks[i + 1][1] - ks[i][2]) * us for _, ks in full]) for i in range(n - 1)],
         "names": [full[0][1][i][0][:40] for i in range(n)] if full else []}
    return s


def main(path, want=""):
    for line in (gzip.open(path, "rt") if path.endswith(".gz") else open(path)):
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if want not in r["tag"]:
            continue
        rs = runs(r["records"])
        for label, side in (("kernel", rs[0::2]), ("cuBLAS", rs[1::2])):
            if not side:
                continue
            s = summary(side)
            print("%-70s %-6s span %6.2f sum %6.2f (us) flush->first %5.2f  durations %s  gaps %s  [%s]" % (
                r["tag"], label, s["span"], s["sum"], s["launch_gap"],
                " ".join("%.2f" % d for d in s["durations"]), " ".join("%.2f" % g for g in s["gaps"]) or "-",
                ", ".join(s["names"])))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "")
