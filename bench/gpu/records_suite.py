#!/usr/bin/env python3
"""The suite's ratios from the harness's raw CUPTI records (CAKE_TIMING_RECORDS),
for a call whose suite.jsonl did not come back (helper `decode3`: the device
returns at most 8 files).

Usage: records_suite.py RECORDS.jsonl[.gz] [--new SUBSTR]...

Per harness run (tag "KERNEL MxNxK [sS]"): the ratio the harness reports,
cuBLAS's median span / the kernel's median span (runner/harness/run_timing.h;
the runs split at the flush records as timing_records.py splits them; on
bench/gpu/results/decode/reduce_rg_call it gives the suite.jsonl ratios to the
third digit); then the best per shape and the geometric means, of all runs and
of the runs whose tag contains none of the --new substrings (the previous
kernels, same call). Correctness is not in the records: the harness's result
per run is in suite.jsonl, the pairs' edge cases in splitedge.jsonl.
"""
import gzip
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing_records as tr  # noqa: E402


def ratios(path):
    out = {}
    for line in (gzip.open(path, "rt") if path.endswith(".gz") else open(path)):
        if not line.startswith("{"):
            continue
        r = tr.json.loads(line)
        rs = tr.runs(r["records"])
        k, c = tr.summary(rs[0::2]), tr.summary(rs[1::2])
        out[r["tag"]] = (c["span"] / k["span"], k["span"], c["span"], k["runs"])
    return out


def gm(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def best(out, keep):
    b = {}
    for t, v in out.items():
        s = t.split()[1]
        if keep(t) and (s not in b or v[0] > b[s][1]):
            b[s] = (t, *v)
    return b


def means(b):
    dec = [s for s in b if int(s.split("x")[0]) <= 128]
    pre = [s for s in b if s not in dec]
    return "%.3f over %d (decode %.3f over %d, prefill %.3f over %d)" % (
        gm([v[1] for v in b.values()]), len(b), gm([b[s][1] for s in dec]), len(dec),
        gm([b[s][1] for s in pre]), len(pre))


def main(argv):
    new = [argv[i + 1] for i, a in enumerate(argv) if a == "--new"]
    out = ratios(argv[0])
    for t, v in out.items():
        print("%-100s %.3f  kernel %7.2f us  cuBLAS %7.2f us  runs %d" % (t, *v))
    b_all = best(out, lambda t: True)
    b_old = best(out, lambda t: not any(x in t for x in new))
    print()
    for s in b_all:
        o = b_old.get(s)
        print("%-17s previous %s  all %.3f  %s" % (s, "%.3f" % o[1] if o else "  -  ", b_all[s][1], b_all[s][0]))
    print("geomean of the best per shape: %s" % means(b_all))
    if new:
        print("without the new (%s): %s" % (", ".join(new), means(b_old)))


if __name__ == "__main__":
    if not sys.argv[1:]:
        sys.exit(__doc__)
    main(sys.argv[1:])
