#!/usr/bin/env python3
"""Session 40's soundness attack (helper sound40, docs/z3.md "Soundness review,
session 40"): broken mutations of the schedules session 39's steps fire on,
written to OUT/<base>/<name>.cake, one per line of the tables below.

    bench/attacks/sound40_mutants.py OUT          # writes the files and OUT/index.tsv
    bench/attacks/sound40_run.py OUT [CAKE]       # cake check on each (attack_runner.py, two at a time)
    bench/attacks/sound40_mutants.py OUT --all-pass   # every file marked pass, then the proof alone
    build/bench/cake_bench_proof_audit OUT --every=1000000000 --verbose > AUDIT  # on each found one
    bench/attacks/sound39_mutants.py --summary OUT AUDIT

Each mutant is (name, expected, [(from, to), ...]) as in sound39_mutants.py:
every `from` must occur exactly once in the base; "bad" is a broken schedule
(cake check must exit 1, or exit 2 / a *checked* verdict that names what the
values did not reach; never *proved*), "good" a correct twin.
Targets: fa8's last tiles to a depth and the ring start read with the tile
count (trip_fa8_test.cpp's two-slot Q ring, and the persistent corpus GEMM),
sound39's paired-loop corners (the spelled-apart corpus file), cover39's far
events (the plain ring with a knob), hunt39's box-edge targets (the zeroed
column of global_memory_test.cpp).
"""
import os
import re
import sys

ALL_PASS = "--all-pass" in sys.argv  # (for the proof audit, which reads files marked pass only)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attack_runner import corpus, read, strip_header, write_index  # noqa: E402


def raw_string(path, name):
    """A C++ raw string `name = R"(...)"` of a test header."""
    text = read(path)
    m = re.search(name + r' = R"\((.*?)\)";', text, re.S)
    return m.group(1)


def edited(text, edits, what=""):
    """`text` with each (from, to) of `edits`, every `from` exactly once."""
    for a, b in edits:
        if text.count(a) != 1:
            sys.exit(f"{what}: {text.count(a)} matches of {a!r}")
        text = text.replace(a, b)
    return text


# ---------------------------------------------------------------- fa8: the two-slot Q ring
def q_ring():
    """trip_fa8_test.cpp's qRing(): kQueryEmpty with Q in two stages, handed
    back after every tile's K loop but the last two."""
    return edited(raw_string("tests/encoder/persistent_kernels.h", "kQueryEmpty"), [
        ("def q_empty_handoff(", "def q_ring_release("),
        ("stages=1, swizzle", "stages=2, swizzle"),
        ("offset=8192,", "offset=16384,"),
        ("    q_full  = lm.barrier(count=1, prod=[producer], cons=[consumer], init_count=1)\n",
         "    q_full  = lm.barrier(prod=[producer], cons=[consumer], init_count=1, pipeline=pipe)\n"),
        ("    q_empty = lm.named_barrier(roles=[producer, consumer])\n",
         "    q_empty = lm.barrier(prod=[consumer], cons=[producer], init_count=1, pipeline=pipe)\n"),
        ("            if t > 0:\n                lm.sync(q_empty)\n", "            lm.wait(q_empty, iter=t - 2)\n"),
        ("            if t + 1 < tiles:\n                lm.bar_arrive(q_empty)\n",
         "            if t + 2 < tiles:\n                lm.arrive(q_empty, iter=t)\n"),
    ])


QRING = q_ring()
REL = "            if t + 2 < tiles:\n                lm.arrive(q_empty, iter=t)\n"
QWAIT = "            lm.wait(q_full, iter=t)\n"
PWAIT = "            lm.wait(q_empty, iter=t - 2)\n"
START = "            lm.wait(full, iter=t * k_tiles)\n"
QRING_START = edited(QRING, [(QWAIT, QWAIT + START)])
MMA = "                lm.mma(acc, smem_q[t], smem_a[it], init=(k == 0))\n"


def rel(cond, it="t"):
    return [(REL, f"            if {cond}:\n                lm.arrive(q_empty, iter={it})\n")]


def rel_plus(extra):
    """REL followed by `elif ...` lines (each a (cond, body) pair); a
    condition the release's `t + 2 < tiles` takes (a third tile from the
    end) gets an `if` of its own (an `elif` would be dead code)."""
    out = REL
    for cond, body in extra:
        kw = "if" if cond.startswith("t + 3") or cond.startswith("t + 4") else "elif"
        out += f"            {kw} {cond}:\n                {body}\n"
    return [(REL, out)]


FA8_MUTANTS = [
    # the depth itself
    ("rel_t3", "bad", rel("t + 3 < tiles")),
    ("rel_t4_refused", "bad", rel("t + 4 < tiles")),
    ("rel_t1_wait_t1", "good", rel("t + 1 < tiles") + [(PWAIT, "            lm.wait(q_empty, iter=t - 1)\n")]),
    ("rel_t2_wait_t1", "bad", [(PWAIT, "            lm.wait(q_empty, iter=t - 1)\n")]),
    ("rel_t2_no_wait", "bad", [(PWAIT, "")]),
    ("rel_ne_t3", "bad", rel("t + 3 != tiles")),
    ("rel_ne_t2_and_t3", "bad", rel("t + 2 != tiles and t + 3 != tiles")),
    ("rel_lt_and_ne4", "bad", rel("t + 2 < tiles and t + 4 != tiles")),
    ("rel_lt_and_ne5", "bad", rel("t + 2 < tiles and t + 5 != tiles")),
    ("rel_t2_good_ne", "good", rel("t + 2 != tiles")),
    ("rel_t2_good_le", "good", rel("t + 3 <= tiles")),
    ("rel_t2_good_minus", "good", rel("tiles - t > 2")),
    ("rel_t2_minus_ge2", "bad", rel("tiles - t > 3")),
    ("rel_t2_minus_min", "bad", rel("min(tiles - t, 4) > 3")),
    ("rel_t2_minus_min5", "bad", rel("min(tiles - t, 5) > 4")),
    ("rel_t2_minus_max", "good", rel("max(tiles - t, 1) > 2")),
    # parity of the tile, of the count, or the distance
    ("rel_odd_tile_t3", "bad", rel("t + 2 < tiles and (t % 2 == 0 or t + 3 < tiles)")),
    ("rel_even_tile_t3", "bad", rel("t + 2 < tiles and (t % 2 == 1 or t + 3 < tiles)")),
    ("rel_odd_count_t3", "bad", rel("t + 2 < tiles and (tiles % 2 == 0 or t + 3 < tiles)")),
    ("rel_even_count_t3", "bad", rel("t + 2 < tiles and (tiles % 2 == 1 or t + 3 < tiles)")),
    ("rel_dist_mod2", "bad", rel("t + 2 < tiles and (tiles - t) % 2 == 1")),
    ("rel_dist_mod3", "bad", rel("t + 2 < tiles and (tiles - t) % 3 != 0")),
    ("rel_dist_mod7", "bad", rel("t + 2 < tiles and (tiles - t) % 7 != 5")),
    ("rel_extra_even_count", "good", rel("t + 2 < tiles or tiles % 2 == 0")),
    ("rel_odd_tile_other_slot", "bad", rel("t + 2 < tiles", "t + t % 2 * (t + 3 == tiles)")),
    # a last tile doing something of its own
    ("d2_odd_tile_hang", "bad", rel_plus([("t + 2 == tiles and t % 2 == 1", "lm.wait(q_full, iter=t + 2)")])),
    ("d2_even_tile_hang", "bad", rel_plus([("t + 2 == tiles and t % 2 == 0", "lm.wait(q_full, iter=t + 2)")])),
    ("d2_odd_count_hang", "bad", rel_plus([("t + 2 == tiles and tiles % 2 == 1", "lm.wait(q_full, iter=t + 2)")])),
    ("d3_hang", "bad", rel_plus([("t + 3 == tiles", "lm.wait(q_full, iter=t + 3)")])),
    ("d3_odd_hang", "bad", rel_plus([("t + 3 == tiles and t % 2 == 1", "lm.wait(q_full, iter=t + 3)")])),
    ("d3_arrive_wrong_iter", "bad",
     [(REL, "            if t + 3 < tiles:\n                lm.arrive(q_empty, iter=t)\n"
            "            elif t + 3 == tiles:\n                lm.arrive(q_empty, iter=t + 1)\n")]),
    ("d3_arrive_next_own_if", "bad", rel_plus([("t + 3 == tiles", "lm.arrive(q_empty, iter=t + 1)")])),
    ("d3_arrive_twice", "bad", rel_plus([("t + 3 == tiles", "lm.arrive(q_empty, iter=t)")])),
    ("d2_arrive_next", "bad", rel_plus([("t + 2 == tiles", "lm.arrive(q_empty, iter=t + 1)")])),
    ("d1_arrive_prev", "good", rel_plus([("t + 1 == tiles and t > 0", "lm.arrive(q_empty, iter=t - 1)")])),
    ("d2_empty_extra", "bad", rel_plus([("t + 2 == tiles", "lm.arrive(empty, iter=t * k_tiles)")])),
    ("d3_empty_extra", "bad", rel_plus([("t + 3 == tiles", "lm.arrive(empty, iter=t * k_tiles)")])),
    ("d4_empty_extra", "bad", rel_plus([("t + 4 == tiles", "lm.arrive(empty, iter=t * k_tiles)")])),
    ("d2_full_wait_next", "bad", rel_plus([("t + 2 == tiles", "lm.wait(full, iter=t * k_tiles + 2 * k_tiles)")])),
    ("d3_full_wait_past", "bad", rel_plus([("t + 3 == tiles", "lm.wait(full, iter=t * k_tiles + 3 * k_tiles)")])),
    # the tile count read inside the K loop
    ("k_read_d1_wait_next", "bad",
     [(MMA, MMA + "                if t + 1 == tiles and k == 0:\n                    lm.wait(q_full, iter=t + 1)\n")]),
    ("k_read_d2_wait_next", "bad",
     [(MMA, MMA + "                if t + 2 == tiles and k == 0:\n                    lm.wait(q_full, iter=t + 2)\n")]),
    ("k_read_d2_mma_other_stage", "bad",
     [(MMA, "                if t + 2 == tiles:\n                    lm.mma(acc, smem_q[t + 1], smem_a[it], init=(k == 0))\n"
            "                else:\n" + "    " + MMA)]),
    ("k_read_d1_mma_other_stage", "bad",
     [(MMA, "                if t + 1 == tiles:\n                    lm.mma(acc, smem_q[t + 1], smem_a[it], init=(k == 0))\n"
            "                else:\n" + "    " + MMA)]),
    ("k_read_d2_no_init", "bad",
     [(MMA, "                if t + 2 == tiles:\n                    lm.mma(acc, smem_q[t], smem_a[it])\n"
            "                else:\n" + "    " + MMA)]),
    ("k_read_d2_release_early", "bad",
     [(MMA, MMA + "                if t + 2 < tiles and k == 0:\n                    lm.arrive(q_empty, iter=t)\n"),
      (REL, "")]),
    # the producer reading the tile count
    ("prod_skips_d2_load", "bad",
     [("            smem_q.tma_load(Q, coords=(t * 64, 0), iter=t, barrier=q_full)\n",
       "            if t + 2 != tiles:\n                smem_q.tma_load(Q, coords=(t * 64, 0), iter=t, barrier=q_full)\n")]),
    ("prod_loads_d3_other_stage", "bad",
     [("            smem_q.tma_load(Q, coords=(t * 64, 0), iter=t, barrier=q_full)\n",
       "            if t + 3 == tiles:\n                smem_q.tma_load(Q, coords=(t * 64, 0), iter=t + 1, barrier=q_full)\n"
       "            else:\n                smem_q.tma_load(Q, coords=(t * 64, 0), iter=t, barrier=q_full)\n")]),
    ("prod_wait_d2_skipped", "bad",
     [(PWAIT, "            if t + 1 != tiles:\n                lm.wait(q_empty, iter=t - 2)\n")]),
    ("prod_wait_d3_skipped", "bad",
     [(PWAIT, "            if t + 3 != tiles:\n                lm.wait(q_empty, iter=t - 2)\n")]),
    ("prod_wait_d1_skipped_good_rel", "bad",
     [(PWAIT, "            if t + 1 != tiles:\n                lm.wait(q_empty, iter=t - 2)\n")] + rel("t + 2 != tiles")),
    ("prod_k_ring_d2_early", "bad",
     [("                lm.wait(empty, iter=it - 2)\n",
       "                if t + 2 == tiles:\n                    lm.wait(empty, iter=it - 3)\n"
       "                else:\n                    lm.wait(empty, iter=it - 2)\n")]),
    ("prod_k_ring_d3_early", "bad",
     [("                lm.wait(empty, iter=it - 2)\n",
       "                if t + 3 == tiles:\n                    lm.wait(empty, iter=it - 3)\n"
       "                else:\n                    lm.wait(empty, iter=it - 2)\n")]),
    ("cons_k_release_d2_skipped", "bad",
     [("                lm.arrive(empty, iter=it)\n",
       "                if t + 2 != tiles or k > 0:\n                    lm.arrive(empty, iter=it)\n")]),
    ("cons_k_release_d3_twice", "bad",
     [("                lm.arrive(empty, iter=it)\n",
       "                lm.arrive(empty, iter=it)\n                if t + 3 == tiles and k == 0:\n"
       "                    lm.arrive(empty, iter=it)\n")]),
]

# the tile count read through other spellings: an inner constant loop, an
# operand, min / max / a quotient
FA8_MUTANTS += [
    ("inner_loop_j1", "bad",
     [(REL, "            for j in lm.range(0, 2):\n                if j == 1 and t + 2 + j < tiles:\n"
            "                    lm.arrive(q_empty, iter=t)\n")]),
    ("inner_loop_j0", "good",
     [(REL, "            for j in lm.range(0, 2):\n                if j == 0 and t + 2 + j < tiles:\n"
            "                    lm.arrive(q_empty, iter=t)\n")]),
    ("iter_min_t_count_minus_3", "good", rel("t + 2 < tiles", "min(t, tiles - 3)")),
    ("iter_min_t_count_minus_4", "bad", rel("t + 2 < tiles", "min(t, tiles - 4)")),
    ("iter_max_count", "bad", rel("t + 2 < tiles", "max(t, tiles - 3)")),
    ("rel_max_form", "bad", rel("max(tiles - t, 3) > 3")),
    ("rel_quot_3", "good", rel("(tiles - t) // 3 > 0")),
    ("rel_quot_2", "bad", rel("(tiles - t) // 2 > 1")),
    ("rel_quot_minus1", "good", rel("(tiles - t - 1) // 2 > 0")),
    ("prod_wait_last_one_back", "bad", [(PWAIT, "            lm.wait(q_empty, iter=t - 2 - (t + 1 == tiles))\n")]),
    ("prod_wait_second_last_one_back", "bad", [(PWAIT, "            lm.wait(q_empty, iter=t - 2 - (t + 2 == tiles))\n")]),
    ("slot_last_next", "bad", [(MMA, MMA.replace("smem_q[t]", "smem_q[t + (t + 1 == tiles)]"))]),
    ("slot_second_last_next", "bad", [(MMA, MMA.replace("smem_q[t]", "smem_q[t + (t + 2 == tiles)]"))]),
    # (acc is never read: a discarded accumulation nobody reads is no bug)
    ("init_last_every_k", "good", [(MMA, MMA.replace("init=(k == 0)", "init=(k == 0 or t + 1 == tiles)"))]),
    ("init_third_last_never", "bad", [(MMA, MMA.replace("init=(k == 0)", "init=(k == 0 and t + 3 != tiles)"))]),
    ("q_wait_last_next", "bad", [(QWAIT, "            lm.wait(q_full, iter=t + (t + 1 == tiles))\n")]),
    ("q_wait_third_last_prev", "bad", [(QWAIT, "            lm.wait(q_full, iter=t - (t + 3 == tiles))\n")]),
]

# the ring start read before the K loop (kQRingStart), with the tile count
FA8_START_MUTANTS = [
    ("start_plus1", "bad", [(START, "            lm.wait(full, iter=t * k_tiles + 1)\n")]),
    ("start_minus1", "bad", [(START, "            lm.wait(full, iter=t * k_tiles - 1)\n")]),
    ("start_minus2", "bad", [(START, "            lm.wait(full, iter=t * k_tiles - 2)\n")]),
    ("start_minus3", "bad", [(START, "            lm.wait(full, iter=t * k_tiles - 3)\n")]),
    ("start_minus1_t_gt0", "bad", [(START, "            if t > 0:\n                lm.wait(full, iter=t * k_tiles - 1)\n")]),
    ("start_minus1_no_count", "bad", [(START, "            lm.wait(full, iter=t * k_tiles - 1)\n"),
                                      (REL, "            lm.arrive(q_empty, iter=t)\n")]),
    ("start_minus2_no_count", "bad", [(START, "            lm.wait(full, iter=t * k_tiles - 2)\n"),
                                      (REL, "            lm.arrive(q_empty, iter=t)\n")]),
    ("start_minus1_depth1", "bad", [(START, "            lm.wait(full, iter=t * k_tiles - 1)\n")] + rel("t + 1 < tiles")),
    ("start_next_tile", "bad", [(START, "            lm.wait(full, iter=t * k_tiles + k_tiles)\n")]),
    ("start_last_slot", "bad", [(START, "            lm.wait(full, iter=t * k_tiles + k_tiles - 1)\n")]),
    ("start_d2_minus1", "bad",
     [(START, START + "            if t + 2 == tiles:\n                lm.wait(full, iter=t * k_tiles - 1)\n")]),
    ("start_d1_minus1", "bad",
     [(START, START + "            if t + 1 == tiles:\n                lm.wait(full, iter=t * k_tiles - 1)\n")]),
    ("start_d1_next", "bad",
     [(START, "            if t + 1 == tiles:\n                lm.wait(full, iter=t * k_tiles + k_tiles)\n"
              "            else:\n                lm.wait(full, iter=t * k_tiles)\n")]),
    ("start_d2_arrive_empty", "bad",
     [(START, START + "            if t + 2 == tiles:\n                lm.arrive(empty, iter=t * k_tiles)\n")]),
    ("start_odd_minus1", "bad",
     [(START, "            if t % 2 == 1:\n                lm.wait(full, iter=t * k_tiles - 1)\n"
              "            else:\n                lm.wait(full, iter=t * k_tiles)\n")]),
    ("start_after_k_minus1", "bad",
     [("            if t + 2 < tiles:\n", "            lm.wait(full, iter=t * k_tiles + k_tiles - 2)\n"
                                          "            if t + 2 < tiles:\n")]),
    ("start_after_k_next", "bad",
     [("            if t + 2 < tiles:\n", "            lm.wait(full, iter=t * k_tiles + k_tiles)\n"
                                          "            if t + 2 < tiles:\n")]),
    ("start_after_k_d2_next", "good",
     [(REL, REL + "            elif t + 2 == tiles:\n                lm.wait(full, iter=t * k_tiles + k_tiles)\n")]),
    ("start_prod_minus1", "good",
     [("            smem_q.tma_load(Q, coords=(t * 64, 0), iter=t, barrier=q_full)\n",
       "            smem_q.tma_load(Q, coords=(t * 64, 0), iter=t, barrier=q_full)\n"
       "            lm.wait(empty, iter=t * k_tiles - 1)\n")]),
    ("start_good_d1", "good", rel("t + 1 < tiles")),
    ("start_good_minus_k", "good", [(START, "            lm.wait(full, iter=t * k_tiles + 0 * k_tiles)\n")]),
]

# a three-slot Q ring handed back after every tile but the last three (depth
# 3, tile period 3): broken forms in the last tiles of one residue mod 3
Q3RING = edited(QRING, [
    ("pool   = lm.smem(32768)", "pool   = lm.smem(49152)"),
    ("stages=2, swizzle=\"128B\")\n    smem_a = pool.view(offset=16384,",
     "stages=3, swizzle=\"128B\")\n    smem_a = pool.view(offset=24576,"),
    ("    pipe    = lm.pipeline(stages=2)\n", "    pipe    = lm.pipeline(stages=2)\n    qpipe   = lm.pipeline(stages=3)\n"),
    ("    q_full  = lm.barrier(prod=[producer], cons=[consumer], init_count=1, pipeline=pipe)\n",
     "    q_full  = lm.barrier(prod=[producer], cons=[consumer], init_count=1, pipeline=qpipe)\n"),
    ("    q_empty = lm.barrier(prod=[consumer], cons=[producer], init_count=1, pipeline=pipe)\n",
     "    q_empty = lm.barrier(prod=[consumer], cons=[producer], init_count=1, pipeline=qpipe)\n"),
    (PWAIT, "            lm.wait(q_empty, iter=t - 3)\n"),
    (REL, "            if t + 3 < tiles:\n                lm.arrive(q_empty, iter=t)\n"),
])
REL3 = "            if t + 3 < tiles:\n                lm.arrive(q_empty, iter=t)\n"
PWAIT3 = "            lm.wait(q_empty, iter=t - 3)\n"


def rel3_elif(cond, body):
    return [(REL3, REL3 + f"            elif {cond}:\n                {body}\n")]


def mma_if(cond, stage):
    return [(MMA, f"                if {cond}:\n                    lm.mma(acc, smem_q[{stage}], smem_a[it], init=(k == 0))\n"
                  "                else:\n" + "    " + MMA)]


Q3_MUTANTS = [
    ("base", "good", []),
    ("rel_t4", "bad", [(REL3, REL3.replace("t + 3", "t + 4"))]),
    ("rel_t2", "good", [(REL3, REL3.replace("t + 3", "t + 2"))]),
    ("rel_mod3_skip_d3", "bad", [(REL3, REL3.replace("t + 3 < tiles", "t + 3 < tiles and (t % 3 != 1 or t + 4 < tiles)"))]),
    ("rel_extra_d3_mod", "good", [(REL3, REL3.replace("t + 3 < tiles", "t + 3 < tiles or (t + 3 == tiles and t % 3 == 2)"))]),
    ("d2_mod3_hang", "bad", rel3_elif("t + 2 == tiles and t % 3 == 1", "lm.wait(q_full, iter=t + 3)")),
    ("d1_mod3_hang", "bad", rel3_elif("t + 1 == tiles and t % 3 == 2", "lm.wait(q_full, iter=t + 1)")),
    ("d3_mod3_hang", "bad", rel3_elif("t + 3 == tiles and t % 3 == 0", "lm.wait(q_full, iter=t + 3)")),
    ("d2_mod3_release_next", "bad", rel3_elif("t + 2 == tiles and t % 3 == 0", "lm.arrive(q_empty, iter=t - 2)")),
    ("d2_mod3_mma_next_stage", "bad", mma_if("t + 2 == tiles and t % 3 == 1", "t + 1")),
    ("d3_mod3_mma_next_stage", "bad", mma_if("t + 3 == tiles and t % 3 == 2", "t + 1")),
    ("d1_mod3_mma_prev_stage", "bad", mma_if("t + 1 == tiles and t % 3 == 0", "t + 2")),
    # (the producer's wait for Q is redundant with three Q slots: its A ring's
    # empty wait at tile t's start, t * k_tiles - 3, already orders it after
    # the MMAs of tile t - 3; the bounded check agrees)
    ("prod_skip_wait_d2_mod3", "good",
     [(PWAIT3, "            if t + 2 != tiles or t % 3 != 0:\n                lm.wait(q_empty, iter=t - 3)\n")]),
    ("prod_skip_wait_d1_mod3", "good",
     [(PWAIT3, "            if t + 1 != tiles or t % 3 != 1:\n                lm.wait(q_empty, iter=t - 3)\n")]),
    ("prod_wait_d3_early_mod3", "good",
     [(PWAIT3, "            if t + 3 == tiles and t % 3 == 2:\n                lm.wait(q_empty, iter=t - 6)\n"
               "            else:\n                lm.wait(q_empty, iter=t - 3)\n")]),
    ("prod_wait_d2_late_good", "good",
     [(PWAIT3, "            if t + 2 == tiles and t % 3 == 2:\n                lm.wait(q_empty, iter=t - 2)\n"
               "            else:\n                lm.wait(q_empty, iter=t - 3)\n")]),
]

# ---------------------------------------------------------------- two passes over one ring
SOFTMAX = "normalization/sm90_softmax_two_pass_ring.cake"
PASS2 = "        for k in lm.range(0, n):\n            lm.wait(full, iter=n + k)\n"


def before_pass2(line):
    return [(PASS2, "        " + line + "\n" + PASS2)]


SOFTMAX_MUTANTS = [
    ("wait_n_minus_1", "bad", before_pass2("lm.wait(full, iter=n - 1)")),
    ("wait_n_minus_2", "bad", before_pass2("lm.wait(full, iter=n - 2)")),
    ("wait_n_minus_3", "bad", before_pass2("lm.wait(full, iter=n - 3)")),
    ("wait_n", "good", before_pass2("lm.wait(full, iter=n)")),
    ("wait_n_plus_1", "bad", before_pass2("lm.wait(full, iter=n + 1)")),
    ("wait_2n", "bad", before_pass2("lm.wait(full, iter=2 * n)")),
    ("arrive_n_minus_1_again", "bad", before_pass2("lm.arrive(empty, iter=n - 1)")),
    ("pass2_wait_lap_early", "bad", [("            lm.wait(full, iter=n + k)\n", "            lm.wait(full, iter=n + k - 3)\n")]),
    ("pass2_load_wait_early", "bad", [("            lm.wait(empty, iter=n + k - 3)\n", "            lm.wait(empty, iter=n + k - 4)\n")]),
    ("pass2_reads_pass1_slot", "bad", [("            lm.copy(x, smem_x[n + k])\n", "            lm.copy(x, smem_x[n + k - 1])\n")]),
]

# fa8's hole form (the tile's start waits for the tile before's last slot)
# spelled otherwise than `t * k_tiles - 1`, with and without a read of the
# tile count (markRingStartReadersBeforeK looks for the ring start's product)
for name, form in [("commuted", "k_tiles * t - 1"), ("prev_tile_last", "(t - 1) * k_tiles + k_tiles - 1"),
                   ("prev_tile_last_paren", "(t - 1) * k_tiles + (k_tiles - 1)"), ("plus_neg", "t * k_tiles + (-1)"),
                   ("halved", "(t * k_tiles * 2 - 2) // 2"), ("cdiv_inline", "t * lm.cdiv(K, 64) - 1"),
                   ("minus2_prev", "(t - 1) * k_tiles + k_tiles - 2"), ("prev_start", "(t - 1) * k_tiles"),
                   ("max0", "max(t * k_tiles - 1, 0)")]:
    wait = [(START, f"            lm.wait(full, iter={form})\n")]
    FA8_START_MUTANTS += [("spelled_" + name, "bad", wait),
                          ("spelled_" + name + "_no_count", "bad", wait + [(REL, "            lm.arrive(q_empty, iter=t)\n")])]

# ---------------------------------------------------------------- the persistent corpus GEMM
PWS = "gemm/sm90_persistent_ws.cake"
PWS_K = "            for k in lm.range(0, k_tiles):\n                it = t * k_tiles + k\n                lm.wait(full, iter=it)\n"
PWS_ARR = "                lm.arrive(empty, iter=it)\n"
PWS_STORE = "            lm.tma_store_wait(pending=1)\n"


def pws_before_k(lines):
    return [(PWS_K, "".join("            " + l + "\n" for l in lines) + PWS_K)]


PWS_MUTANTS = [
    ("start_minus1", "bad", pws_before_k(["lm.wait(full, iter=t * k_tiles - 1)"])),
    ("start_minus1_t_gt0", "bad", pws_before_k(["if t > 0:", "    lm.wait(full, iter=t * k_tiles - 1)"])),
    ("start_minus4", "bad", pws_before_k(["lm.wait(full, iter=t * k_tiles - 4)"])),
    ("start_plus1", "bad", pws_before_k(["lm.wait(full, iter=t * k_tiles + 1)"])),
    ("start_good", "good", pws_before_k(["lm.wait(full, iter=t * k_tiles)"])),
    ("last_tile_extra_release", "good",
     [(PWS_STORE, "            if t + 1 == my_tiles:\n                lm.arrive(empty, iter=t * k_tiles)\n" + PWS_STORE)]),
    ("second_last_extra_release", "bad",
     [(PWS_STORE, "            if t + 2 == my_tiles:\n                lm.arrive(empty, iter=t * k_tiles)\n" + PWS_STORE)]),
    ("third_last_wait_next", "bad",
     [(PWS_STORE, "            if t + 3 == my_tiles:\n                lm.wait(full, iter=t * k_tiles + 3 * k_tiles)\n"
                  + PWS_STORE)]),
    ("last_two_store_wait_0", "good",
     [(PWS_STORE, "            if t + 2 < my_tiles:\n                lm.tma_store_wait(pending=1)\n"
                  "            else:\n                lm.tma_store_wait(pending=0)\n")]),
    ("last_two_store_wait_2", "bad",
     [(PWS_STORE, "            if t + 2 < my_tiles:\n                lm.tma_store_wait(pending=1)\n"
                  "            else:\n                lm.tma_store_wait(pending=2)\n")]),
    ("second_last_stage_other", "bad",
     [("            s = 2 * lm.instance() + t % 2\n",
       "            s = 2 * lm.instance() + (t + (t + 2 == my_tiles)) % 2\n")]),
    ("third_last_stage_other", "bad",
     [("            s = 2 * lm.instance() + t % 2\n",
       "            s = 2 * lm.instance() + (t + (t + 3 == my_tiles)) % 2\n")]),
    ("k_release_last_skipped", "bad",
     [(PWS_ARR, "                if t + 1 != my_tiles or k > 0:\n                    lm.arrive(empty, iter=it)\n")]),
]

# the ping-pong GEMM: consumers that skip tiles (their part before the K loop
# is read open, not marked as a ring-start reader: docs/z3.md "The last
# tiles to a depth", item 3)
PINGPONG = "gemm/sm90_pingpong.cake"
PP_K = "            for k in lm.range(0, k_tiles):\n                it = t * k_tiles + k\n                lm.wait(full, iter=it)\n"


def pp_before_k(lines):
    return [(PP_K, "".join("            " + l + "\n" for l in lines) + PP_K)]


PINGPONG_MUTANTS = [
    ("start_minus1", "bad", pp_before_k(["lm.wait(full, iter=t * k_tiles - 1)"])),
    ("start_minus1_t_gt0", "bad", pp_before_k(["if t > 0:", "    lm.wait(full, iter=t * k_tiles - 1)"])),
    ("start_minus4", "bad", pp_before_k(["lm.wait(full, iter=t * k_tiles - 4)"])),
    ("start_plus1", "bad", pp_before_k(["lm.wait(full, iter=t * k_tiles + 1)"])),
    ("start_good", "good", pp_before_k(["lm.wait(full, iter=t * k_tiles)"])),
    ("start_release_prev", "bad", pp_before_k(["if t > 0:", "    lm.arrive(empty, iter=t * k_tiles - 1)"])),
    ("start_minus1_inst1", "bad", pp_before_k(["if lm.instance() == 1:", "    lm.wait(full, iter=t * k_tiles - 1)"])),
]

# ---------------------------------------------------------------- sound39's paired-loop corners
SPELLED = "bugs/data.stale-read/sm90_table_row_tile_count_spelled_apart_first_tile_only_fixed.cake"
CONS_LOOP = "        for t in lm.range(0, (K + 63) // 64):\n"
PROD_LOOP = "        for t in lm.range(0, lm.cdiv(K, 64)):\n"


def cons_bound(expr):
    return [(CONS_LOOP, "        for t in lm.range(0, " + expr + "):\n")]


def with_param(extra_facts, name="N"):
    return [("K: LM.i32):\n", f"K: LM.i32, {name}: LM.i32):\n"),
            ("    lm.assume(K <= 256)\n", "    lm.assume(K <= 256)\n" + extra_facts)]


CORNER_MUTANTS = [
    ("instance_corner", "bad", cons_bound("(K + 63) // 64 + K // 250 - K // 251 + lm.instance()")),
    ("instance_times_corner", "bad", cons_bound("(K + 63) // 64 + (K // 250 - K // 251) * (lm.instance() + 1)")),
    ("block_corner", "bad", cons_bound("(K + 63) // 64 + (K == 200) * lm.block_idx(0)")),
    ("block_eq_corner", "bad", cons_bound("(K + 63) // 64 + (lm.block_idx(0) == 37)")),
    ("block_eq_far", "bad", cons_bound("(K + 63) // 64 + (lm.block_idx(0) == 1000)")),
    ("grid_eq_corner", "bad", cons_bound("(K + 63) // 64 + (lm.grid_dim(0) == 77)")),
    ("param_eq_corner", "bad", with_param("    lm.assume(N >= 0)\n    lm.assume(N < 1000)\n")
     + cons_bound("(K + 63) // 64 + (N == 777)")),
    ("param_pair_corner", "bad", with_param("    lm.assume(N >= 0)\n    lm.assume(N < 1000)\n")
     + cons_bound("(K + 63) // 64 + (N == K + 500)")),
    ("param_pair_good", "good", with_param("    lm.assume(N >= 0)\n    lm.assume(N < 100)\n")
     + cons_bound("(K + 63) // 64 + (N == K + 500)")),
    ("nested_guard_corner", "bad",
     [(CONS_LOOP, "        if K // 250 - K // 251 == 0:\n            for t in lm.range(0, (K + 63) // 64):\n"),
      ("            lm.sync(bar)\n            lm.sync(bar)\n            lm.copy(w, row[0])\n            lm.copy(O, w, coords=(t, 0))\n",
       "                lm.sync(bar)\n                lm.sync(bar)\n                lm.copy(w, row[0])\n"
       "                lm.copy(O, w, coords=(t, 0))\n")]),
    ("start_corner", "bad", [(CONS_LOOP, "        for t in lm.range(K // 250 - K // 251, (K + 63) // 64):\n")]),
    ("both_moved_corner", "bad",
     [(PROD_LOOP, "        for t in lm.range(0, lm.cdiv(K, 64) + K // 199 - K // 200):\n")]
     + cons_bound("(K + 63) // 64 + K // 200 - K // 201")),
    ("mod_corner", "bad", cons_bound("(K + 63) // 64 + (K % 97 == 96) * (K > 150)")),
    ("square_corner", "bad", cons_bound("(K + 63) // 64 + (K * K == 40000)")),
    ("square_good", "good", cons_bound("(K + 63) // 64 + (K * K == 40001)")),
    ("div_corner", "bad", cons_bound("(K + 63) // 64 + (K * 7 // 1000 == 1) * (K % 3 == 0) * (K > 170)")),
    ("inner_loop_corner", "bad",
     [("            lm.sync(bar)\n            lm.sync(bar)\n            lm.copy(w, row[0])\n",
       "            for j in lm.range(0, 1 + K // 250 - K // 251):\n                lm.sync(bar)\n"
       "            lm.sync(bar)\n            lm.copy(w, row[0])\n")]),
]

# ---------------------------------------------------------------- cover39's far events
RING = "basics/release_every_block_proved.cake"
RING_WAIT = "            lm.wait(full, iter=k)\n"
RING_ARRIVE = "            lm.arrive(empty, iter=k)\n"


def knob(lo, hi, name="T"):
    return [("K: LM.i32):\n", f"K: LM.i32, {name}: LM.i32):\n"),
            ("    lm.assume(K > 0)\n", f"    lm.assume(K > 0)\n    lm.assume({name} >= {lo})\n    lm.assume({name} < {hi})\n")]


def ring_wait(it):
    return [(RING_WAIT, "            lm.wait(full, iter=" + it + ")\n")]


def ring_arrive_if(cond):
    return [(RING_ARRIVE, "            if " + cond + ":\n                lm.arrive(empty, iter=k)\n")]


COVER_MUTANTS = [
    ("step_k_plus_3T_100", "bad", knob(0, 8) + ring_wait("k - (k + 3 * T) // 100")),
    ("step_kT_300", "bad", knob(1, 4) + ring_wait("k - (k * T) // 300")),
    ("step_k_plus_T_600", "bad", knob(0, 8) + ring_wait("k - (k + T) // 600")),
    ("step_k_over_T", "bad", knob(200, 300) + ring_wait("k - k // T")),
    ("step_k_over_T_far", "bad", knob(700, 800) + ring_wait("k - k // T")),
    ("step_k_2M", "bad", ring_wait("k - k // 2000000")),
    ("step_k_70000", "bad", ring_wait("k - k // 70000")),
    ("flip_k_eq_T", "bad", knob(0, 1000) + ring_wait("k - (k == T)")),
    ("flip_k_eq_T_far", "bad", knob(600, 1000) + ring_wait("k - (k == T)")),
    ("flip_k_eq_T_very_far", "bad", knob(5000, 6000) + ring_wait("k - (k == T)")),
    ("flip_k_gt_T", "bad", knob(100, 200) + ring_wait("k - (k > T)")),
    ("flip_k_ge_T2", "bad", knob(10, 20) + ring_wait("k - (k >= T * T)")),
    ("flip_end_T", "bad", knob(20, 100) + ring_wait("k - (k + T == k_tiles)")),
    ("flip_end_2k_T", "bad", knob(20, 100) + ring_wait("k - (2 * k + T == k_tiles)")),
    ("flip_end_T_far", "bad", knob(600, 700) + ring_wait("k - (k + T == k_tiles)")),
    ("flip_k_mod_T", "bad", knob(30, 60) + ring_wait("k - 2 * (k % T == T - 1)")),
    ("flip_k_eq_2T_plus_7", "bad", knob(30, 60) + ring_wait("k - (k == 2 * T + 7)")),
    ("flip_k_100000", "bad", ring_wait("k - (k == 100000)")),
    ("skip_arrive_k_eq_T", "bad", knob(0, 1000) + ring_arrive_if("k != T")),
    ("skip_arrive_k_eq_T_far", "bad", knob(600, 1000) + ring_arrive_if("k != T")),
    ("skip_arrive_k_eq_T_plus_500", "bad", knob(0, 100) + ring_arrive_if("k != T + 500")),
    ("skip_arrive_end_T", "bad", knob(30, 100) + ring_arrive_if("k + T != k_tiles")),
    ("skip_arrive_two_conds", "bad", knob(30, 100) + ring_arrive_if("not (k > T and k_tiles > 3 * T)")),
    ("skip_arrive_k_gt_T_and", "bad", knob(30, 100) + ring_arrive_if("k < T or k % 5 != 3")),
    ("skip_arrive_kT_eq", "bad", knob(2, 10) + ring_arrive_if("k * T != 600")),
    ("skip_arrive_past_flip", "bad", knob(0, 4) + ring_arrive_if("k < 2 or k != T + 40")),
    ("good_k_over_T", "good", knob(200, 300) + ring_wait("k - k // T * 0")),
    ("good_flip_both", "good", knob(0, 1000) + ring_arrive_if("k != T or k == T")),
]

# ---------------------------------------------------------------- hunt39's box-edge targets
ZERO = raw_string("tests/encoder/global_memory_test.cpp", "kZeroOneColumn")


def zero(params, assumes, column, barrier=False, edits=()):
    t = ZERO.replace("PARAMS", params).replace("ASSUMES", assumes).replace("COLUMN", column)
    t = t.replace("BARRIER", "lm.sync(bar)" if barrier else "pass")
    for a, b in edits:
        t = edited(t, [(a, b)])
    return t


D_FACTS = "    lm.assume(d >= 0)\n    lm.assume(d < 128)\n"
LOAD = "        lm.copy(prob, T, coords=(0, 32 * w))\n"
HUNT_TEXTS = [
    ("col_d", "bad", zero(", d: LM.i32", D_FACTS, "d")),
    ("col_d_barrier", "good", zero(", d: LM.i32", D_FACTS, "d", True)),
    ("col_2d_plus_1", "bad", zero(", d: LM.i32", D_FACTS, "2 * d + 1")),
    ("col_3d", "bad", zero(", d: LM.i32", D_FACTS, "3 * d")),
    ("col_d_minus_40", "bad", zero(", d: LM.i32", "    lm.assume(d >= 40)\n    lm.assume(d < 168)\n", "d - 40")),
    ("col_d_over_2", "bad", zero(", d: LM.i32", D_FACTS, "d // 2 + 16")),
    ("col_d_mod", "bad", zero(", d: LM.i32", D_FACTS, "d % 64 + 8")),
    ("col_d_high", "bad", zero(", d: LM.i32", "    lm.assume(d >= 96)\n    lm.assume(d < 128)\n", "d")),
    ("col_d_only_97", "bad", zero(", d: LM.i32", "    lm.assume(d >= 0)\n    lm.assume(d < 128)\n", "d + 32 * (d != 97)")),
    ("col_d_mul_e", "bad", zero(", d: LM.i32, e: LM.i32", D_FACTS + "    lm.assume(e >= 1)\n    lm.assume(e < 4)\n", "d * e")),
    ("col_d_plus_e", "bad", zero(", d: LM.i32, e: LM.i32",
                                 "    lm.assume(d >= 0)\n    lm.assume(d < 64)\n    lm.assume(e >= 0)\n    lm.assume(e < 64)\n",
                                 "d + e")),
    ("col_block", "bad", zero("", "", "lm.block_idx(0)")),
    ("col_block_plus_31", "bad", zero("", "", "lm.block_idx(0) + 31")),
    ("col_block_times_3", "bad", zero("", "", "3 * lm.block_idx(0)")),
    ("col_block_y", "bad", zero("", "", "lm.block_idx(1)")),
    ("col_grid", "bad", zero("", "", "lm.grid_dim(0)")),
    ("col_grid_minus_1", "bad", zero("", "", "lm.grid_dim(0) - 1")),
    ("col_block_mod", "bad", zero("", "", "lm.block_idx(0) % 64")),
    ("row_d_box_rows", "bad", zero(", d: LM.i32", D_FACTS, "0",
                                   edits=[("coords=(0, 0)", "coords=(d, 0)"), (LOAD, "        lm.copy(prob, T, coords=(w + 2, 0))\n")])),
    ("row_block_rows", "bad", zero("", "", "0",
                                   edits=[("coords=(0, 0)", "coords=(lm.block_idx(0), 0)"),
                                          (LOAD, "        lm.copy(prob, T, coords=(w + 40, 0))\n")])),
    ("col_d_load_wide", "bad", zero(", d: LM.i32", D_FACTS, "d",
                                    edits=[("prob = lm.regs(shape=(1, 32)", "prob = lm.regs(shape=(1, 8)"),
                                           (LOAD, "        lm.copy(prob, T, coords=(0, 32 * w + 20))\n")])),
    ("col_d_loop_load", "bad", zero(", d: LM.i32", "    lm.assume(d >= 0)\n    lm.assume(d < 1024)\n", "d",
                                    edits=[(LOAD, "        for j in lm.range(0, 8):\n"
                                                  "            lm.copy(prob, T, coords=(0, 128 * j + 32 * w))\n")])),
    ("col_d_guarded_store", "bad", zero(", d: LM.i32", D_FACTS, "d",
                                        edits=[("        if w == 0:\n", "        if w == 0 and d > 90:\n")])),
    ("col_d_inst_store", "bad", zero(", d: LM.i32", D_FACTS, "d + w",
                                     edits=[("        if w == 0:\n", "        if w < 2:\n")])),
]


def write_text(out, base_name, name, expected, text, index):
    d = os.path.join(out, base_name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, name + ".cake")
    with open(path, "w") as f:
        label = "pass" if expected == "good" or ALL_PASS else "bug"
        f.write(f"# sound40 mutant of {base_name}: {name}\n# expect: {label}\n")
        f.write(text)
    index.append((os.path.relpath(path, out), expected))


def write(out, base_name, base_text, mutants, index):
    base = strip_header(base_text)
    for name, expected, edits in mutants:
        write_text(out, base_name, name, expected, edited(base, edits, f"{base_name}/{name}"), index)


def main():
    out = sys.argv[1]
    index = []
    write(out, "fa8", QRING, FA8_MUTANTS, index)
    write(out, "fa8_start", QRING_START, FA8_START_MUTANTS, index)
    write(out, "q3", Q3RING, Q3_MUTANTS, index)
    write(out, "softmax", corpus(SOFTMAX), SOFTMAX_MUTANTS, index)
    write(out, "pws", corpus(PWS), PWS_MUTANTS, index)
    write(out, "pingpong", corpus(PINGPONG), PINGPONG_MUTANTS, index)
    write(out, "corner", corpus(SPELLED), CORNER_MUTANTS, index)
    write(out, "cover", corpus(RING), COVER_MUTANTS, index)
    for name, expected, text in HUNT_TEXTS:
        write_text(out, "hunt", name, expected, text, index)
    write_index(out, index)


if __name__ == "__main__":
    main()
