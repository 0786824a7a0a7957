#!/usr/bin/env python3
"""Per-SM balance from `ncu -i R --csv --page raw` (issue 13, helper pp2):
the busy cycles and tensor-pipe cycles of the SMs (min, mean, max over the
SMs) against the kernel's elapsed cycles. A persistent kernel whose SMs own
unequal numbers of tiles (wave quantization) shows mean/max of the busy and
tensor cycles well under 1; a balanced one near 1.
Usage: ncu_balance.py FILE.csv"""
import csv
import sys

rows = [r for r in csv.reader(open(sys.argv[1])) if r]
if len(rows) < 3:
    sys.exit("no data")
m = {}
for k, v in zip(rows[0], rows[2]):
    try:
        m[k] = float(v.replace(",", ""))
    except ValueError:
        pass
g = lambda k: m.get(k, 0.0)
el = g("sm__cycles_elapsed.max") or 1.0
for what in ("sm__cycles_active", "sm__pipe_tensor_cycles_active"):
    lo, av, hi = g(what + ".min"), g(what + ".avg"), g(what + ".max")
    print("%-30s min %10.0f  mean %10.0f  max %10.0f  mean/max %.3f  max/elapsed %.3f  mean/elapsed %.3f" % (
        what, lo, av, hi, av / hi if hi else 0, hi / el, av / el))
print("registers/thread %d  tensor %% of elapsed %.1f  of active %.1f" % (
    g("launch__registers_per_thread"), g("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"),
    g("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active")))
