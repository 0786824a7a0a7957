#!/usr/bin/env python3
"""Session 50's soundness attack (helper sound50, docs/z3.md "Soundness review,
session 50"): broken schedules aimed at the far-step scan (sound48's
placeStepsElsewhere, the values between the runs) and at session 49's covering
values, with correct twins, written to OUT/<base>/<label>_<name>.cake, then
`cake check` on each:

    bench/attacks/sound50_mutants.py OUT                # writes the files
    bench/attacks/sound50_mutants.py OUT --run [CAKE]   # also runs cake check on each

A "bad" schedule is broken: `cake check` must exit 1, or 2 (unknown), never 0
(the runner marks an exit 0 HOLE). A "good" one is correct in the model. Bases
(built from bench/attacks/sound49_mutants.py's kernels):

* between (the far-step scan): cover47's row read `0:64 + f(P)`, one float
  past the stores where f(P) = 1, with a part f that spikes (rises and falls
  back) between the values the other goals run, beside guards that run P at
  its ends, next to the spike, or not at all;
* monotone (the far-step scan's monotone intervals): a slot `buf[g(N)]` with
  g monotone in N, racing a read of one slot that g reaches only between the
  values run;
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sound49_mutants as s49  # noqa: E402
from attack_runner import main_bases  # noqa: E402

GUARDS = {
    "none": "",
    "P_1000": "        if P == 1000:\n            lm.sync(block)\n",
    "P_ge_999": "        if P >= 999:\n            lm.sync(block)\n",
    "P_1": "        if P == 1:\n            lm.sync(block)\n",
    "P_2_and_1000": "        if P == 2 or P == 1000:\n            lm.sync(block)\n",
    "P_700": "        if P == 700:\n            lm.sync(block)\n",
    "P_le_2": "        if P <= 2:\n            lm.sync(block)\n",
}

SPIKES = {
    # f(P) = 1 at few values of 1..1000, 0 elsewhere
    "square_residue": "(P * P % 1009 == 777)",
    "linear_residue": "(P * 7 % 1013 == 11)",
    "mod_991_500": "(P % 991 == 500)",
    "two_steps": "((P + 3) // 500 - (P + 9) // 500)",  # -1 at 491..496: the twin's side
    "window_of_6": "((P + 9) // 500 - (P + 3) // 500)",  # 1 at 491..496
    "parity_of_steps": "((P * 3 + 1) // 1499 % 2)",  # 1 at 500..999
    "square_in_min": "min(1, P * P % 1009 // 1008)",  # 1 where P * P % 1009 == 1008
}


def row(guard, read):
    return s49.ROW.replace("GUARD", guard).replace("READ", read)


def between():
    out = []
    for gname, guard in GUARDS.items():
        for sname, spike in SPIKES.items():
            if sname == "two_steps":
                out.append(("good", f"{sname}_{gname}", row(guard, "64 + " + spike)))
                continue
            out.append(("bad", f"{sname}_{gname}", row(guard, "64 + " + spike)))
        out.append(("good", f"square_residue_twin_{gname}", row(guard, "64 - " + SPIKES["square_residue"])))
    return out


def monotone():
    return [
        ("bad", "step_1000_of_8_against_2", s49.slot(8, "2", "(N + 7) // 1000")),
        ("bad", "step_1000_of_8_against_3", s49.slot(8, "3", "(N + 7) // 1000")),
        ("bad", "square_steps_of_8_against_2", s49.slot(8, "2", "N * N // 5000000")),
        ("bad", "min_of_8_against_5", s49.slot(8, "5", "min(7, (N + 11) // 600)")),
        ("good", "step_1000_of_8_odd", s49.slot(8, "0", "1 + 2 * ((N + 7) // 1000 % 3)")),
    ]


BASES = [("between", between), ("monotone", monotone)]


if __name__ == "__main__":
    main_bases(BASES)
