#!/usr/bin/env python3
"""Session 41's soundness attack (helper sound41, docs/z3.md "Soundness review,
session 41"): broken mutations of the schedules session 40's steps fire on,
and correct twins, written to OUT/<base>/<name>.cake, one per line of the
tables below (same format and runner as sound40_mutants.py):

    bench/attacks/sound41_mutants.py OUT          # writes the files and OUT/index.tsv
    bench/attacks/sound41_run.py OUT [CAKE]       # cake check on each (sound40_run.py's counts)
    bench/attacks/sound41_mutants.py OUT --all-pass   # every file marked pass, then the proof alone
    build/bench/cake_bench_proof_audit OUT --every=1000000000 --verbose > AUDIT
    bench/attacks/sound39_mutants.py --summary OUT AUDIT

Targets: the residue facts folded into % (ir/fact_fold.h; mKernel's AG+GEMM
ring), the split-K flip targets ruled out over the integers (the split-K
range of tests/encoder/split_k_range.h), the split point clamped to the
loop's range (FA4's block-sparse empty tiles with n_empty uncapped, FA3's
sliding window), the tile count's reading carried across windows (the
eight-slot Q ring of trip_fa9_test.cpp), cover40's covering values (the
plain ring with knobs, the table kernels of cover40_test.cpp) and hunt40's
refusal of a bound that reads lm.instance() (warps of one role, a barrier
per iteration) with the bound reading the instance indirectly.

Labels checked where a first guess was wrong: in the eight-slot Q ring a
release skipped (or made twice) on one of the last eight tiles frees a slot
no later tile loads, and a loader that waits for tile t - 7's release
instead of t - 8's only waits longer ("good"); "vac": facts no value
satisfies (cake check reports them contradictory); "unseen": a band left
short on the last tile, or on every tile from tile 40 on, is read stale
where no later tile writes the band whole, which the model's stale-read
(a read meaning one lap of the slot holding another's data) does not tell
from a band that was never meant to hold more (not found with N fixed
either); neither counts.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sound40_mutants as s40  # noqa: E402
from attack_runner import corpus, write_index  # noqa: E402
from sound40_mutants import edited, raw_string  # noqa: E402

# ---------------------------------------------------------------- the residue facts (fact_fold)
MK = "bugs/sync.race/mkernel_ag_gemm_c_store_wait_residue_fact_fixed.cake"
FACT = "    lm.assume(k_tiles % 3 == 0)\n"
K0 = "            k0 = (3 - (t * k_tiles) % 3) % 3                   # first k of the task at ring slot 0\n"


def fact(cond):
    return [(FACT, f"    lm.assume({cond})\n")]


def k0(expr):
    return [(K0, f"            k0 = {expr}\n")]


FOLD_MUTANTS = [
    ("base", "good", []),
    ("fact_1", "bad", fact("k_tiles % 3 == 1")),
    ("fact_2", "bad", fact("k_tiles % 3 == 2")),
    ("fact_or", "bad", fact("k_tiles % 3 == 0 or k_tiles % 3 == 1")),
    ("fact_not", "bad", fact("not (k_tiles % 3 == 1)")),
    ("fact_ne", "bad", fact("k_tiles % 3 != 1")),
    ("fact_mod6_3", "good", fact("k_tiles % 6 == 3")),
    ("fact_mod6_4", "bad", fact("k_tiles % 6 == 4")),
    ("fact_mod9_6", "good", fact("k_tiles % 9 == 6")),
    ("fact_mod9_7", "bad", fact("k_tiles % 9 == 7")),
    ("fact_shifted_1", "bad", fact("(k_tiles - 1) % 3 == 0")),
    ("fact_shifted_0", "good", fact("(k_tiles + 3) % 3 == 0")),
    ("fact_other_param", "bad", fact("n_tasks % 3 == 0")),
    ("fact_neg_k_1", "bad", fact("(0 - k_tiles) % 3 == 2")),
    ("fact_times2", "good", fact("(2 * k_tiles) % 3 == 0")),
    ("fact_mod2", "bad", fact("k_tiles % 2 == 0")),
    ("fact_nested_1", "bad", fact("k_tiles % 6 % 3 == 1")),
    ("fact_and_0", "good", fact("k_tiles % 3 == 0 and k_tiles > 2")),
    ("fact_and_1", "bad", fact("k_tiles > 2 and k_tiles % 3 == 1")),
    ("fact_twice_1", "bad", [(FACT, "    lm.assume(k_tiles % 3 == 1)\n    lm.assume(k_tiles % 6 == 1)\n")]),
    ("fact_reversed_1", "bad", fact("1 == k_tiles % 3")),
    ("fact_neg_residue", "vac", fact("k_tiles % 3 == -2")),
    ("fact_big_residue", "vac", fact("k_tiles % 3 == 4")),
    ("guard_plain", "good", k0("(t * k_tiles) % 3")),
    ("guard_plus1", "bad", k0("(t * k_tiles + 1) % 3")),
    ("guard_minus1", "bad", k0("(t * k_tiles - 1) % 3")),
    ("guard_mod6", "bad", k0("(t * k_tiles) % 6")),
    ("guard_nested_mod6_3", "good", k0("((t * k_tiles) % 6) % 3")),
    ("guard_div", "bad", k0("(t * k_tiles // 3) % 3")),
    ("guard_div_first", "bad", k0("(k_tiles // 3 * t) % 3")),
    ("guard_neg", "good", k0("(0 - t * k_tiles) % 3")),
    ("guard_neg_t", "bad", k0("(0 - t) % 3")),
    ("guard_t_mod", "bad", k0("t % 3")),
    ("guard_min", "bad", k0("min(t * k_tiles, 1) % 3")),
    ("guard_tk_plus_t", "bad", k0("(t * k_tiles + t) % 3")),
    ("guard_k_minus_task", "bad", k0("(k_tiles - 1) % 3")),
    ("guard_mod_neg_div", "good", k0("(t * k_tiles) % -3")),
    ("guard_times_mod", "good", k0("(t * (k_tiles % 3)) % 3")),
    ("guard_mod3_of_mod2", "bad", k0("((t * k_tiles) % 2) % 3")),
]

# ---------------------------------------------------------------- split-K flip targets (ruledOut)
SPLITK = raw_string("tests/encoder/split_k_range.h", "kSplitKRange")
SK_WAIT = "            lm.wait(full, iter=k - k0)\n"


def sk_if(cond):
    return [(SK_WAIT, f"            if {cond}:\n                lm.wait(full, iter=k - k0)\n")]


SPLITK_MUTANTS = [
    ("base", "good", []),
    ("first_of_later_blocks", "bad", sk_if("k > k0 or k0 == 0")),
    ("iter5", "bad", sk_if("k - k0 != 5")),
    ("last", "bad", sk_if("k + 1 != k1")),
    ("second_last", "bad", sk_if("k - k0 != kpc - 2")),
    ("iter3_later_blocks", "bad", sk_if("k0 == 0 or k != k0 + 3")),
    ("parity_never", "good", sk_if("k * 2 != k0 * 2 + 7")),
    ("every_5th", "bad", sk_if("(k - k0) % 5 != 4")),
    ("iter6_block2", "bad", sk_if("k - k0 < 6 or lm.block_idx(1) != 2")),
    ("k_div", "bad", sk_if("k // 3 != 2 or k0 > 0")),
    ("k_ge_k0", "good", sk_if("k >= k0")),
    ("k_lt_end", "good", sk_if("k - k0 < kpc")),
    ("k_lt_k1", "good", sk_if("k < k1")),
    ("kpc_times", "bad", sk_if("(k - k0) * kpc != 12")),
    ("k_eq_ktiles_minus2", "bad", sk_if("k + 2 != k_tiles")),
    ("mod_kpc", "bad", sk_if("k % kpc != 3")),
    ("cdiv_k", "bad", sk_if("lm.cdiv(k - k0, 4) != 2")),
    ("minmax", "bad", sk_if("min(k - k0, 7) != 7 or k0 > 0")),
    ("far_iter", "bad", sk_if("k - k0 != 40")),
]

# ---------------------------------------------------------------- the clamped split (fa3sw)
FLEX = "bugs/sync.race/fa4_flex_empty_tile_extra_arrive_fixed.cake"
CAPPED = "    n_empty   = min(my_tiles, lm.cdiv(max(first_work - lm.block_idx(0), 0), lm.grid_dim(0)))\n"
LOAD_IF = "            tile = lm.block_idx(0) + t * lm.grid_dim(0)\n            if t >= n_empty:\n                for k"
MMA_W = "                if w > 0:\n"


def n_empty(expr):
    return [(CAPPED, f"    n_empty   = {expr}\n")]


UNCAPPED = n_empty("lm.cdiv(max(first_work - lm.block_idx(0), 0), lm.grid_dim(0))")
FLEX_MUTANTS = [
    ("base", "good", []),
    ("uncapped", "good", UNCAPPED),
    ("first_work", "bad", n_empty("first_work")),
    ("min_first_work", "bad", n_empty("min(my_tiles, first_work)")),
    ("min_max_first_work", "good", n_empty("min(my_tiles, max(first_work, 0))")),
    ("max_first_work", "good", n_empty("max(first_work, 0)")),
    ("plus_one", "good", n_empty("lm.cdiv(max(first_work - lm.block_idx(0), 0), lm.grid_dim(0)) + 1")),
    ("past_end", "good", n_empty("my_tiles + 1")),
    ("minus_one", "bad", n_empty("lm.cdiv(max(first_work - lm.block_idx(0), 0), lm.grid_dim(0)) - 1")),
    ("load_gt", "bad", UNCAPPED + [(LOAD_IF, LOAD_IF.replace("t >= n_empty", "t > n_empty"))]),
    ("mma_w_gt1", "bad", UNCAPPED + [(MMA_W, "                if w > 1:\n")]),
    ("mma_t_gt0", "bad", UNCAPPED + [(MMA_W, "                if t > 0:\n")]),
    ("corr_else_arrive", "bad", UNCAPPED + [("                lm.fill(o_frag, 0.0)\n",
                                             "                lm.fill(o_frag, 0.0)\n                lm.arrive(o_empty, stage=0)\n")]),
    ("uncapped_lt", "good", UNCAPPED + [(LOAD_IF, LOAD_IF.replace("if t >= n_empty:\n                for k",
                                                                  "if t < n_empty:\n                pass\n            else:\n                for k"))]),
    ("uncapped_lt_wrong", "bad", UNCAPPED + [(LOAD_IF, LOAD_IF.replace("if t >= n_empty:\n                for k",
                                                                       "if t < n_empty:\n                lm.arrive(full, iter=0)\n            else:\n                for k"))]),
    ("first_work_max_grid", "bad", n_empty("lm.cdiv(first_work - lm.block_idx(0), lm.grid_dim(0))")),
]

FA3 = "bugs/data.stale-read/fa3_sliding_window_v_skipped_outside_window_fixed.cake"
FA3_LOAD = "            if j >= first_in_window:\n                smem_vt.tma_load"
FA3_PV = "            if j >= first_in_window:\n                lm.mma("
FA3_WIN = "    first_in_window = n_blocks - window   # the first key block inside the sliding window\n"
FA3_ASSUME = "    lm.assume(window >= 16)\n"
FA3_MUTANTS = [
    ("base", "good", []),
    ("load_gt", "bad", [(FA3_LOAD, FA3_LOAD.replace(">=", ">"))]),
    ("pv_gt", "good", [(FA3_PV, FA3_PV.replace(">=", ">"))]),  # (a block skipped: no sync fault)
    ("pv_ge_minus1", "bad", [(FA3_PV, FA3_PV.replace("first_in_window", "first_in_window - 1"))]),
    ("window_plus1", "good", [(FA3_WIN, "    first_in_window = n_blocks - window + 1\n")]),
    ("window_any", "good", [(FA3_ASSUME, "    lm.assume(window >= -5)\n")]),
    ("window_any_load_gt", "bad", [(FA3_ASSUME, "    lm.assume(window >= -5)\n"),
                                   (FA3_LOAD, FA3_LOAD.replace(">=", ">"))]),
    ("window_neg_pv_early", "bad", [(FA3_ASSUME, "    lm.assume(window >= -5)\n"),
                                    (FA3_PV, FA3_PV.replace("first_in_window", "first_in_window - 1"))]),
    ("v_empty_in_window", "bad", [("                lm.mma_wait(pending=0)\n            lm.arrive(v_empty, iter=j)\n",
                                   "                lm.mma_wait(pending=0)\n                lm.arrive(v_empty, iter=j)\n")]),
    ("else_arrive_twice", "bad", [("            else:\n                lm.arrive(v_full, iter=j)\n",
                                   "            else:\n                lm.arrive(v_full, iter=j)\n                lm.arrive(v_full, iter=j)\n")]),
]

# ---------------------------------------------------------------- the carried tile-count reading (fa9)
EIGHT = edited(raw_string("tests/encoder/persistent_kernels.h", "kQueryEmpty"), [
    ("def q_empty_handoff(", "def q_ring_release("),
    ("lm.smem(32768)", "lm.smem(81920)"),
    ("stages=1, swizzle", "stages=8, swizzle"),
    ("offset=8192,", "offset=65536,"),
    ("    pipe    = lm.pipeline(stages=2)\n", "    pipe    = lm.pipeline(stages=2)\n    qpipe   = lm.pipeline(stages=8)\n"),
    ("    q_full  = lm.barrier(count=1, prod=[producer], cons=[consumer], init_count=1)\n",
     "    q_full  = lm.barrier(prod=[producer], cons=[consumer], init_count=1, pipeline=qpipe)\n"),
    ("    q_empty = lm.named_barrier(roles=[producer, consumer])\n",
     "    q_empty = lm.barrier(prod=[consumer], cons=[producer], init_count=1, pipeline=qpipe)\n"),
    ("            if t > 0:\n                lm.sync(q_empty)\n", "            lm.wait(q_empty, iter=t - 8)\n"),
    ("            if t + 1 < tiles:\n                lm.bar_arrive(q_empty)\n",
     "            if t + 2 < tiles:\n                lm.arrive(q_empty, iter=t)\n"),
])
REL8 = "            if t + 2 < tiles:\n                lm.arrive(q_empty, iter=t)\n"
PW8 = "            lm.wait(q_empty, iter=t - 8)\n"


def rel8(extra):
    return [(REL8, REL8 + "".join(f"            if {c}:\n                {b}\n" for c, b in extra))]


FA9_MUTANTS = [
    ("base", "good", []),
    ("late_tile_d4_hang", "bad", rel8([("t >= 20 and t + 4 == tiles", "lm.wait(q_full, iter=t + 4)")])),
    ("late_tile_d9_hang", "bad", rel8([("t >= 40 and t + 9 == tiles", "lm.wait(q_full, iter=t + 9)")])),
    ("late_tile_d3_release", "good", rel8([("t >= 12 and t + 3 == tiles", "lm.arrive(q_empty, iter=t)")])),
    ("far_tile_hang", "bad", rel8([("t == 50 and t + 1 < tiles", "lm.wait(q_full, iter=t + 8)")])),
    ("d10_extra_release", "bad", rel8([("t + 10 == tiles", "lm.arrive(q_empty, iter=t)")])),
    ("d10_good_wait", "good", rel8([("t + 10 == tiles", "lm.wait(q_full, iter=t)")])),
    ("rel_t9", "bad", [(REL8, REL8.replace("t + 2", "t + 9"))]),
    ("rel_t8", "good", [(REL8, REL8.replace("t + 2", "t + 8"))]),
    ("rel_late_only", "good", [(REL8, REL8.replace("t + 2 < tiles", "t + 2 < tiles and (t < 30 or t + 6 < tiles)"))]),
    ("prod_wait_late", "bad", [(PW8, "            lm.wait(q_empty, iter=t - 8 - (t >= 40 and t + 3 == tiles))\n")]),
    ("prod_wait_t7_late", "good", [(PW8, "            if t >= 24:\n                lm.wait(q_empty, iter=t - 7)\n"
                                        "            else:\n                lm.wait(q_empty, iter=t - 8)\n")]),
]

# ---------------------------------------------------------------- cover40's covering values
RING = s40.RING


def knobs2():
    return [("K: LM.i32):\n", "K: LM.i32, T: LM.i32, U: LM.i32):\n"),
            ("    lm.assume(K > 0)\n", "    lm.assume(K > 0)\n    lm.assume(T >= 0)\n    lm.assume(T <= 10)\n"
                                        "    lm.assume(U >= 0)\n    lm.assume(U <= 10)\n")]


COVER_MUTANTS = [
    ("two_knobs_product", "bad", knobs2() + s40.ring_wait("k - (k * T * U) // 6400")),
    ("two_knobs_eq", "bad", knobs2() + s40.ring_wait("k - (k == T * U + 17)")),
    ("two_knobs_sum_far", "bad", knobs2() + s40.ring_wait("k - (k * (T + U)) // 1280")),
    ("two_knobs_skip", "bad", knobs2() + s40.ring_arrive_if("k != 7 * T + U + 30")),
    ("two_knobs_good", "good", knobs2() + s40.ring_wait("k - (k * T * U) // 6400 * 0")),
    ("knob_and_k", "bad", knobs2() + s40.ring_arrive_if("not (T == 9 and U == 3 and k == 70)")),
]
TABLE_DECLS = """    pool  = lm.smem(1024)
    tab   = pool.view(offset=0, shape=(1, 64), dtype=lm.i32, stages=1)
    v     = lm.regs(shape=(1, 64), dtype=lm.i32)
    x     = lm.regs(shape=(1, 1), dtype=lm.i32)
    warps = lm.role(warps=[0, 1], group=1)
    cta   = lm.named_barrier(roles=[warps])
"""
BAND = """@cake.schedule(target="sm_80")
def band_tiles(lm, Out: LM.gmem, K: LM.i32, N: LM.i32):
    lm.assume(K >= 1)
    lm.assume(K <= 64)
    lm.assume(N >= 1)
""" + TABLE_DECLS + """    with warps:
        w = lm.instance()
        for t in lm.range(0, N):
            if w == 0:
                lm.fill(v, 1)
                if t != 5:
                    lm.copy(tab[0], v)
                else:
                    lm.copy(tab[0], v)
            lm.sync(cta)
            for k in lm.range(0, K):
                lm.copy(x, tab[0][:, k:k + 1])
                lm.copy(Out, x, coords=(64 * t + k, w))
            lm.sync(cta)
"""
SHORT = "                else:\n                    lm.copy(tab[0], v)\n"


def band_short(cond):
    return [("                if t != 5:\n", f"                if {cond}:\n"),
            (SHORT, "                else:\n                    lm.copy(tab[0][:, 0:63], v[:, 0:63])\n")]


BAND_MUTANTS = [
    ("base", "good", []),
    ("t5", "bad", band_short("t != 5")),
    ("t20", "bad", band_short("t != 20")),
    ("t_mod7", "bad", band_short("t % 7 != 6")),
    ("t_last", "unseen", band_short("t + 1 != N")),
    ("t_second_last_far", "bad", band_short("t + 2 != N or t < 9")),
    ("t_eq_n_minus_k", "bad", band_short("t + K != N + 60")),
    ("t_block", "bad", band_short("t != 3 or lm.block_idx(0) != 2")),
    ("t_ge_40", "unseen", band_short("t < 40")),
]

# ---------------------------------------------------------------- a bound that reads lm.instance() indirectly (hunt40)
WARPS = """@cake.schedule(target="sm_80")
def warp_loop(lm, n: LM.i32):
    lm.assume(n >= 1)
    sg = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=1)
    wg = lm.named_barrier(roles=[sg])
    with sg:
        w = lm.instance()
BODY"""


def warps(body):
    return [("BODY", body)]


def loop(bound, indent="        ", start="0"):
    return f"{indent}for kb in lm.range({start}, {bound}):\n{indent}    lm.sync(wg)\n"


INSTANCE_MUTANTS = [
    ("base", "good", warps(loop("lm.cdiv(n, 64)"))),
    ("let_name", "bad", warps("        m = n + 16 * w\n" + loop("lm.cdiv(m, 128)"))),
    ("min_max", "bad", warps(loop("max(lm.cdiv(n, 64), min(w, 1) * lm.cdiv(n + 64, 64))"))),
    ("outer_loop_var", "bad", warps("        for j in lm.range(w, w + 1):\n" + loop("lm.cdiv(n + 32 * j, 128)", "            "))),
    ("outer_loop_var_good", "good", warps("        for j in lm.range(w, w + 1):\n" + loop("lm.cdiv(n, 128) + j * 0", "            "))),
    ("guard_two_loops", "bad", warps("        if w < 4:\n" + loop("lm.cdiv(n, 64)", "            ")
                                     + "        else:\n" + loop("lm.cdiv(n + 16, 64)", "            "))),
    ("guard_two_loops_good", "good", warps("        if w < 4:\n" + loop("lm.cdiv(n, 64)", "            ")
                                           + "        else:\n" + loop("(n + 63) // 64", "            "))),
    ("guard_skip_last", "bad", warps("        for kb in lm.range(0, lm.cdiv(n, 64)):\n"
                                     "            if w < 7 or kb + 1 < lm.cdiv(n, 64):\n                lm.sync(wg)\n")),
    ("start_instance", "bad", warps(loop("lm.cdiv(n, 64)", start="w // 4"))),
    ("start_instance_good", "good", warps(loop("lm.cdiv(n, 64) + w // 4", start="w // 4"))),
    ("instance_times_zero", "good", warps(loop("lm.cdiv(n, 64) + 0 * w"))),
    ("instance_mod_1", "good", warps(loop("lm.cdiv(n, 64) + w % 1"))),
    ("instance_eq", "bad", warps(loop("lm.cdiv(n, 64) + (w == 7) * (n > 1000)"))),
    ("bound_in_guard", "bad", warps("        if lm.cdiv(n + 16 * w, 128) > 1:\n" + loop("2", "            "))),
    ("inner_const_loop", "bad", warps(loop("lm.cdiv(n, 64)") + "        for j in lm.range(0, 1 + (w == 3) * (n % 5 == 4)):\n"
                                      "            lm.sync(wg)\n")),
]

FMHA = "bugs/sync.deadlock/vllm_xpu_fmha_causal_per_subgroup_k_blocks_fixed.cake"
FMHA_K = "            k_blocks_wg = lm.cdiv(min(seq_k, 128 * lm.block_idx(0) + 128 + seq_k - seq_q), 64)\n"
FMHA_MUTANTS = [
    ("base", "good", []),
    ("per_sg_let", "bad", [(FMHA_K, "            k_blocks_wg = lm.cdiv(min(seq_k, q0 + 16 + seq_k - seq_q), 64)\n")]),
    ("per_sg_tail", "bad", [(FMHA_K, "            k_blocks_wg = lm.cdiv(min(seq_k, 128 * lm.block_idx(0) + 128 + seq_k - seq_q), 64)"
                                     " + (w == 7) * (seq_k > seq_q + 200)\n")]),
    ("block_only", "good", [(FMHA_K, "            k_blocks_wg = lm.cdiv(min(seq_k, 128 * lm.block_idx(0) + 64 + seq_k - seq_q), 64)\n")]),
]


def main():
    out = sys.argv[1]
    index = []
    s40.write(out, "fold", corpus(MK), FOLD_MUTANTS, index)
    s40.write(out, "splitk", SPLITK, SPLITK_MUTANTS, index)
    s40.write(out, "flex", corpus(FLEX), FLEX_MUTANTS, index)
    s40.write(out, "fa3", corpus(FA3), FA3_MUTANTS, index)
    s40.write(out, "fa9", EIGHT, FA9_MUTANTS, index)
    s40.write(out, "cover", corpus(RING), COVER_MUTANTS, index)
    s40.write(out, "band", BAND, BAND_MUTANTS, index)
    s40.write(out, "instance", WARPS, INSTANCE_MUTANTS, index)
    s40.write(out, "fmha", corpus(FMHA), FMHA_MUTANTS, index)
    write_index(out, index)


if __name__ == "__main__":
    main()
