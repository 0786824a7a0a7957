#!/usr/bin/env python3
"""Time in us, bytes in MB. One line per Nsight Compute raw CSV (`ncu -i R --csv --page raw`): duration,
tensor-pipe activity, shared-store bank conflicts, DRAM bytes, L2 hit rate and
the three largest stall reasons (cycles per issued instruction)."""
import csv
import os
import sys


def num(s):
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return None


for path in sys.argv[1:]:
    rows = [r for r in csv.reader(open(path)) if r]
    if len(rows) < 3:
        print("%-32s no data" % os.path.basename(path))
        continue
    h, u, v = rows[0], rows[1], rows[2]
    scale = {"ns": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3, "nsecond": 1e-3,
             "byte": 1e-6, "Kbyte": 1e-3, "Mbyte": 1.0, "Gbyte": 1e3}
    m = {k: (num(x) or 0.0) * scale.get(un, 1.0) for k, un, x in zip(h, u, v)}
    g = lambda k: m.get(k) or 0.0
    # the clock's unit varies between ncu versions (cycle/second, cycle/usecond, cycle/nsecond)
    ghz = lambda f: f / 1e9 if f > 1e6 else f / 1e3 if f > 100 else f
    stalls = sorted(((g(k), k.split("stalled_")[1].split("_per_issue")[0]) for k in m
                     if k.startswith("smsp__average_warps_issue_stalled_") and k.endswith("_per_issue_active.ratio")
                     and "selected" not in k), reverse=True)[:3]
    print("%-32s %7.1f us  SM %4.2f GHz  L2 %4.1f%%  tensor %4.1f%%  sts-conflicts %9d  dram-rd %6.0f MB  L2-hit %4.1f%%  stalls %s" % (
        os.path.basename(path).replace("ncu_", "").replace("_raw.csv", ""), g("gpu__time_duration.sum"),
        ghz(g("sm__cycles_elapsed.avg.per_second")), g("lts__throughput.avg.pct_of_peak_sustained_elapsed"),
        g("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"),
        g("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"), g("dram__bytes_read.sum"),
        g("lts__t_sector_hit_rate.pct"), " ".join("%s %.2f" % (n, x) for x, n in stalls)))
