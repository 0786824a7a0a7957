#!/usr/bin/env python3
"""Session 46's soundness attack (helper sound46, docs/z3.md "Soundness review,
session 46"): broken schedules aimed at the proof and check paths session 45
added, with correct twins, written to OUT/<base>/<name>.cake with
OUT/index.tsv (sound40_mutants.py's format), then `cake check` on each
(attack_runner.py's runner):

    bench/attacks/sound46_mutants.py OUT                # writes the files and OUT/index.tsv
    bench/attacks/sound46_mutants.py OUT --run [CAKE]   # also runs cake check on each (OUT/check.tsv)

A "bad" mutant is broken: `cake check` must exit 1, or 2 (unknown), never 0;
one said *proved* is always a hole. A "good" one is a correct twin (a report
is a false alarm, unknown is allowed). Labels are by hand. Targets (one base
each):

* pairs (encoder/trip_proof.cpp dividendReadBesides, the split by the
  dividend's residues): corpus/basics/ring_loop_over_pairs.cake, a ring
  unrolled by two under `if 2 * p + 1 < K`, and its form over triples:
  guards off by one in one role, a loop bound of another dividend, the
  second read waiting for the pair's first phase, a refill a lap early;
  twins spelling the guard `p < K // 2`, `2 * p + 1 != K`, `2 * p + 2 <= K`.
* rounds (roundsAsStrided): sm90_pingpong.cake's consumer over rounds
  (`t = 2 * r + wg`): a round too many or too few, another stride, another
  start, a round variable read off by one; twins spelling `t` otherwise.
* nests (nestsAsTiles, proveNestTiles): sm90_two_sibling_tile_loops.cake:
  group 1's ring at a wrong offset (`T0 * kt1`, `T0 * kt0 - 1`, group 0's
  stride), a shorter K loop in one role, a refill a lap early; twins with the
  offset spelled `(T0 - 1) * kt0 + kt0`.
* firstlap (ir/resolver.cpp falsityImpliesNegative): sound45_test.cpp's
  grid-strided two-slot ring with the producer's first-lap guard spelled many
  ways: guards that skip a real wait (`k != 2 or t != 0`, ...) and guards
  whose falsity means a negative iteration (`k > 0 or t > 0`, ...).
* splitk (checks/model_check.cpp monotoneIn, integerFlip, innerTripGoal,
  placeInnerTrips): inner_trip_goal_test.cpp's split-K kernel, the peeled
  first wait under tile guards, monotone and not (`K > k0 or K > 1`: the
  part's flip masked by the other part); sound46_test.cpp's window guards
  (`(not ((t - P) // W)) < 1`, a window one tile longer in one role) and a
  K loop empty only at tile 99 (`K * ((t + 1) % 100)`) under a peeled wait.
* turns (encoder/barrier_order.h, checks' re-read rules, fp45): the three
  minimal forms of turn_taking_test.cpp (a loop-free index re-read, a slot
  two consumers release in turn, a TMA tile two processes load): an update
  the re-read misses, a release by the wrong process, a slot reused one
  phase early, a load on another phase.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sound40_mutants as s40  # noqa: E402
from attack_runner import corpus, read, run_index_if_asked, write_index  # noqa: E402


def rep(old, new):
    return [(old, new)]


# ---------------------------------------------------------------- pairs
PAIRS = corpus("basics/ring_loop_over_pairs.cake")
P_PROD_G = "            if 2 * p + 1 < K:\n                lm.wait(empty, iter=2 * p - 1)\n"
P_CONS_G = "            if 2 * p + 1 < K:\n                lm.wait(full, iter=2 * p + 1)\n"
P_PROD_W2 = "                lm.wait(empty, iter=2 * p - 1)\n"
P_CONS_W2 = "                lm.wait(full, iter=2 * p + 1)\n"
P_PROD_LOOP = "    with load:\n        for p in lm.range(0, pairs):\n"
P_CONS_LOOP = "    with use:\n        for p in lm.range(0, pairs):\n"


def p_prod_guard(g):
    return rep(P_PROD_G, P_PROD_G.replace("2 * p + 1 < K", g))


def p_cons_guard(g):
    return rep(P_CONS_G, P_CONS_G.replace("2 * p + 1 < K", g))


def p_both_guards(g):
    return p_prod_guard(g) + p_cons_guard(g)


PAIRS_MUTANTS = [
    ("base", "good", []),
    ("both_p_lt_k_div2", "good", p_both_guards("p < K // 2")),
    ("both_ne_k", "good", p_both_guards("2 * p + 1 != K")),
    ("both_2p2_le_k", "good", p_both_guards("2 * p + 2 <= K")),
    ("both_not_ge", "good", p_both_guards("not 2 * p + 1 >= K")),
    ("cons_le_k", "bad", p_cons_guard("2 * p + 1 <= K")),
    ("cons_ne_k_plus1", "bad", p_cons_guard("2 * p + 1 != K + 1")),
    ("prod_2p2_lt_k", "bad", p_prod_guard("2 * p + 2 < K")),
    ("prod_p_lt_k_div2_minus", "bad", p_prod_guard("p < K // 2 - 1")),
    ("cons_p_lt_cdiv", "bad", p_cons_guard("p < lm.cdiv(K, 2)")),
    ("cons_second_waits_first_phase", "bad", rep(P_CONS_W2, "                lm.wait(full, iter=2 * p)\n")),
    ("prod_second_lap_early", "bad", rep(P_PROD_W2, "                lm.wait(empty, iter=2 * p - 3)\n")),
    ("prod_second_other_slot", "bad", rep(P_PROD_W2, "                lm.wait(empty, iter=2 * p - 2)\n")),
    ("cons_bound_k_plus1", "bad", rep(P_CONS_LOOP, P_CONS_LOOP.replace("pairs", "lm.cdiv(K + 1, 2)"))),
    ("cons_bound_k_plus2", "bad", rep(P_CONS_LOOP, P_CONS_LOOP.replace("pairs", "lm.cdiv(K + 2, 2)"))),
    ("prod_bound_floor", "bad", rep(P_PROD_LOOP, P_PROD_LOOP.replace("pairs", "K // 2"))),
    ("cons_bound_3", "bad", rep(P_CONS_LOOP, P_CONS_LOOP.replace("pairs", "lm.cdiv(K, 3)"))),
    ("prod_guard_k_minus_wait", "bad", p_prod_guard("2 * p + 1 < K - 1")),
]

# the same ring over triples (c = 3): the copy per residue of K mod 3
TRIPLES = """@cake.schedule(target="sm_80")
def k(lm, A: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool = lm.smem(16384)
    v = pool.view(offset=0, shape=(64, 32), dtype=lm.bf16, stages=2)
    r = lm.regs(shape=(64, 32), dtype=lm.bf16)
    load = lm.role(warps=[0])
    use = lm.role(warps=[1])
    full = lm.barrier(count=2, prod=[load], cons=[use])
    empty = lm.barrier(count=2, prod=[use], cons=[load])
    with load:
        for p in lm.range(0, lm.cdiv(K, 3)):
            for j in lm.range(0, 3):
                if 3 * p + j < K:
                    lm.wait(empty, iter=3 * p + j - 2)
                    v.cp_async(A, coords=(0, 96 * p + 32 * j), iter=3 * p + j)
                    lm.cp_async_commit()
                    lm.cp_async_wait(pending=0)
                    lm.arrive(full, iter=3 * p + j)
    with use:
        for p in lm.range(0, lm.cdiv(K, 3)):
            for j in lm.range(0, 3):
                if 3 * p + j < K:
                    lm.wait(full, iter=3 * p + j)
                    lm.copy(r, v[3 * p + j])
                    lm.arrive(empty, iter=3 * p + j)
"""
T_PG = "                if 3 * p + j < K:\n                    lm.wait(empty"
T_CG = "                if 3 * p + j < K:\n                    lm.wait(full"
TRIPLES_MUTANTS = [
    ("base", "good", []),
    ("both_ne", "good", rep(T_PG, T_PG.replace("3 * p + j < K", "3 * p + j <= K - 1"))
     + rep(T_CG, T_CG.replace("3 * p + j < K", "K > j + 3 * p"))),
    ("cons_le", "bad", rep(T_CG, T_CG.replace("3 * p + j < K", "3 * p + j <= K"))),
    ("prod_j_lt_2", "bad", rep(T_PG, T_PG.replace("3 * p + j < K", "3 * p + j < K and j < 2"))),
    ("prod_lap_early", "bad", rep("lm.wait(empty, iter=3 * p + j - 2)", "lm.wait(empty, iter=3 * p + j - 3)")),
    ("cons_reads_next", "bad", rep("lm.copy(r, v[3 * p + j])", "lm.copy(r, v[3 * p + j + 1])")),
    # more rounds than triples: the guards skip every iteration past K
    ("cons_bound_2", "good", rep("    with use:\n        for p in lm.range(0, lm.cdiv(K, 3)):",
                                "    with use:\n        for p in lm.range(0, lm.cdiv(K, 2)):")),
]

# ---------------------------------------------------------------- rounds
PINGPONG = corpus("gemm/sm90_pingpong.cake")
R_STRIDED = "        for t in lm.range(lm.instance(), my_tiles, 2):\n"


def rounds(bound, t):
    return [(R_STRIDED, f"        wg = lm.instance()\n        for r in lm.range(0, {bound}):\n            t = {t}\n")]


RB = "lm.cdiv(max(my_tiles - wg, 0), 2)"
ROUNDS_MUTANTS = [
    ("base", "good", rounds(RB, "2 * r + wg")),
    ("bare_bound", "good", rounds("lm.cdiv(my_tiles - wg, 2)", "2 * r + wg")),
    ("t_wg_plus_2r", "good", rounds(RB, "wg + r * 2")),
    ("t_r_plus_r", "good", rounds(RB, "r + r + wg")),
    ("one_round_more", "bad", rounds("lm.cdiv(max(my_tiles + 1 - wg, 0), 2)", "2 * r + wg")),
    ("one_round_fewer", "bad", rounds("lm.cdiv(max(my_tiles - 1 - wg, 0), 2)", "2 * r + wg")),
    ("stride_3", "bad", rounds("lm.cdiv(max(my_tiles - wg, 0), 3)", "2 * r + wg")),
    ("t_stride_3", "bad", rounds(RB, "3 * r + wg")),
    ("t_plus_2", "bad", rounds(RB, "2 * r + wg + 2")),
    ("t_r_plus_1", "bad", rounds(RB, "2 * (r + 1) + wg")),
    ("max_one", "bad", rounds("lm.cdiv(max(my_tiles - wg, 1), 2)", "2 * r + wg")),
    ("start_wg_plus1", "bad", rounds("lm.cdiv(max(my_tiles - wg - 1, 0), 2)", "2 * r + wg")),
    ("bound_floor", "bad", rounds("max(my_tiles - wg, 0) // 2", "2 * r + wg")),
    ("bound_cdiv_t_plus1", "bad", rounds("lm.cdiv(max(my_tiles - wg + 1, 0), 2)", "2 * r + wg")),
]

# ---------------------------------------------------------------- nests
NESTS = corpus("gemm/sm90_two_sibling_tile_loops.cake")
N_IT1 = "                it = T0 * kt0 + t * kt1 + k\n"
N_PROD1 = "        for t in lm.range(0, T1):\n            for k in lm.range(0, kt1):\n" + N_IT1 + \
    "                lm.wait(empty, iter=it - 4)\n"
N_CONS1 = "        for t in lm.range(0, T1):\n            for k in lm.range(0, kt1):\n" + N_IT1 + \
    "                lm.wait(full, iter=it)\n"


def n_group1(block, wait_line, it=None, loop=None, wait=None):
    """Group 1's nest `block` of one role with its ring index, K loop or wait replaced."""
    t = block
    if it:
        t = t.replace(N_IT1, f"                it = {it}\n")
    if loop:
        t = t.replace("lm.range(0, kt1)", loop)
    if wait:
        t = t.replace(wait_line, wait)
    return [(block, t)]


def n_prod(**kw):
    return n_group1(N_PROD1, "lm.wait(empty, iter=it - 4)", **kw)


def n_cons(**kw):
    return n_group1(N_CONS1, "lm.wait(full, iter=it)", **kw)


def n_both(it):
    return n_prod(it=it) + n_cons(it=it)


NESTS_MUTANTS = [
    ("base", "good", []),
    ("offset_spelled_apart", "good", n_both("(T0 - 1) * kt0 + kt0 + t * kt1 + k")),
    ("offset_kt1_first", "good", n_both("kt0 * T0 + kt1 * t + k")),
    ("offset_t0_kt1", "bad", n_both("T0 * kt1 + t * kt1 + k")),
    ("offset_minus1", "bad", n_both("T0 * kt0 + t * kt1 + k - 1")),
    ("offset_plus1", "bad", n_both("T0 * kt0 + t * kt1 + k + 1")),
    ("stride_kt0", "bad", n_both("T0 * kt0 + t * kt0 + k")),
    ("cons_stride_kt0", "bad", n_cons(it="T0 * kt0 + t * kt0 + k")),
    ("cons_offset_t0_minus1", "bad", n_cons(it="(T0 - 1) * kt0 + t * kt1 + k")),
    ("cons_k_short", "bad", n_cons(loop="lm.range(0, kt1 - 1)")),
    ("cons_k_from1", "bad", n_cons(loop="lm.range(1, kt1)")),
    ("prod_lap_early", "bad", n_prod(wait="lm.wait(empty, iter=it - 5)")),
    ("cons_reads_ahead", "bad", n_cons(wait="lm.wait(full, iter=it - 1)")),
    ("cons_tiles_t0", "bad", [(N_CONS1, N_CONS1.replace("lm.range(0, T1)", "lm.range(0, T0)"))]),
]

# ---------------------------------------------------------------- firstlap
GRIDRING = s40.raw_string("tests/encoder/sound45_test.cpp", "kGridStridedStageRing")
FL_PW = "                if it >= 2:\n                    lm.wait(empty, stage=it % 2, phase=it // 2 - 1)\n"
FL_CW = "                lm.wait(full, stage=it % 2, phase=it // 2)\n"


def fl_guard(g, wait="lm.wait(empty, iter=it - 2)"):
    return rep(FL_PW, f"                if {g}:\n                    {wait}\n")


FIRSTLAP_GOOD = ["t > 0 or k >= 2", "k > 0 or t > 0", "t != 0 or k != 0 and k != 1", "not (t == 0 and k < 2)",
                 "k != 1 or t != 0", "k != 0 or t >= 1", "t > 0 or k >= 2 - t", "t + 1 > 1 or k - 2 >= 0",
                 "t > 0 or k >= 1", "it >= 1", "t >= 0 or k >= 2", "k > 1 or t > 0", "t > 0 or k >= 2 + t"]
FIRSTLAP_BAD = ["k != 2 or t != 0", "t > 0 or k >= 3", "t > 1 or k >= 2", "t != 1 or k >= 2",
                "k >= 2", "t > 0", "k != 0 or t != 1", "t > 0 and k >= 2",
                "not (t == 0 or k < 2)", "k + t > 2", "t > 0 or k > 2 - t", "it > 2", "t != 0 or k > K - 1"]
FIRSTLAP_MUTANTS = [("base", "good", [])]
FIRSTLAP_MUTANTS += [(f"good_{i}", "good", fl_guard(g)) for i, g in enumerate(FIRSTLAP_GOOD)]
FIRSTLAP_MUTANTS += [(f"bad_{i}", "bad", fl_guard(g)) for i, g in enumerate(FIRSTLAP_BAD)]
FIRSTLAP_MUTANTS += [
    ("cons_first_skipped", "bad", rep(FL_CW, "                if t > 0 or k >= 1:\n                    lm.wait(full, iter=it)\n")),
    ("cons_first_skipped_ne", "bad", rep(FL_CW, "                if k != 0 or t != 0:\n                    lm.wait(full, iter=it)\n")),
    ("cons_guard_negative_only", "good", rep(FL_CW, "                if it >= 0:\n                    lm.wait(full, iter=it)\n")),
]

# ---------------------------------------------------------------- splitk
SPLITK = s40.raw_string("tests/encoder/split_k_kernel.h", "kSplitK")
PEELED = s40.raw_string("tests/encoder/split_k_kernel.h", "kPeeled")
IN_LOOP = s40.raw_string("tests/encoder/inner_trip_goal_test.cpp", "kInLoop")
K0 = "tile // nmn * kp"


def under(cond, body=PEELED):
    out = f"            if {cond}:\n    " + body.replace("\n", "\n    ")
    return SPLITK.replace("CONSUMER", out)


SPLITK_TEXTS = [
    ("in_loop", "good", SPLITK.replace("CONSUMER", IN_LOOP)),
    ("peeled", "bad", SPLITK.replace("CONSUMER", PEELED)),
    ("guard_gt", "good", under(f"min({K0} + kp, K) > {K0}")),
    ("guard_ge", "bad", under(f"min({K0} + kp, K) >= {K0}")),
    ("guard_k_gt", "good", under(f"K > {K0}")),
    ("guard_k_ge", "bad", under(f"K >= {K0}")),
    ("guard_lt_s", "bad", under(f"tile // nmn < S")),
    ("guard_k_gt_minus1", "bad", under(f"K > {K0} - 1")),
    ("guard_kp_gt", "bad", under(f"min({K0} + kp, K) > {K0} - 1")),
    ("guard_ne_last", "bad", under("tile // nmn != S - 1")),
    ("guard_mod", "bad", under(f"K > {K0} or tile % 4 == 1")),
    # the empty split needs K > 1 with S = 4, the whole guard held true
    # there: the part's masked flip (exit 0 *checked* on main)
    ("guard_or_k", "bad", under(f"K > {K0} or K > 1")),
    ("guard_and_k", "bad", under(f"not (K <= {K0} and K < 2)")),
    ("guard_or_k_fixed", "good", under(f"K > {K0} or K > 1000000")),
    ("guard_mul", "good", under(f"K > (tile // nmn) * kp")),
    ("guard_neg", "good", under(f"-K < -({K0})")),
    ("guard_cdiv", "good", under(f"lm.cdiv(K - {K0}, 64) > 0")),
    ("guard_cdiv_ge", "bad", under(f"lm.cdiv(K - {K0}, 64) >= 0")),
    ("guard_sub_min", "good", under(f"min({K0} + kp, K) - {K0} > 0")),
    ("guard_sub_min_ge", "bad", under(f"min({K0} + kp, K) - {K0} >= 0")),
    ("guard_max", "good", under(f"max({K0}, K) > {K0}")),
    ("guard_max_ge", "bad", under(f"max({K0}, K - 1) >= {K0}")),
    ("in_loop_short", "bad", SPLITK.replace("CONSUMER", IN_LOOP.replace("- tile // nmn * kp):", "- tile // nmn * kp - 1):"))),
    ("in_loop_long", "bad", SPLITK.replace("CONSUMER", IN_LOOP.replace("min(tile // nmn * kp + kp, K)", "min(tile // nmn * kp + kp, K + 1)"))),
    ("guard_not_window", "bad", under(f"(not ((tile - lm.block_idx(0)) // (4 * K + 4))) < 1")),
    ("in_loop_kp_plus1", "bad", SPLITK.replace("CONSUMER", IN_LOOP.replace("min(tile // nmn * kp + kp, K)", "min(tile // nmn * kp + kp + 1, K)"))),
]

# ---------------------------------------------------------------- window, periodic (sound46_test.cpp)
GUARDED = s40.raw_string("tests/encoder/sound46_test.cpp", "kGuardedTiles")
PERIODIC = s40.raw_string("tests/encoder/sound46_test.cpp", "kPeeledPeriodic")


def guarded(wmin, prod, cons):
    return GUARDED.replace("WMIN", wmin).replace("PROD", prod).replace("CONS", cons)


WIN_P, WIN_C = "(not ((t - P) // (W + 1))) < 1", "(not ((t - P) // W)) < 1"
WINDOW_TEXTS = [
    ("window_far", "bad", guarded("1000", WIN_P, WIN_C)),
    ("window_near", "bad", guarded("2", WIN_P, WIN_C)),
    ("window_far_and", "bad", guarded("1000", "((t - P) // (W + 1) and 1) > 0", "((t - P) // W and 1) > 0")),
    ("window_same", "good", guarded("1000", WIN_C, WIN_C)),
    ("not_cmp_same", "good", guarded("2", "not t // W < P", "not t // W < P")),
    ("not_cmp_off", "bad", guarded("2", "not t // W < P + 1", "not t // W < P")),
    ("periodic_100", "bad", PERIODIC.replace("PERIOD", "100")),
    ("periodic_3", "bad", PERIODIC.replace("PERIOD", "3")),
    ("periodic_100_in_loop", "good", PERIODIC.replace("PERIOD", "100").replace(
        "            lm.wait(full, stage=0)\n            lm.mma(acc, a[0], a[0], init=True)\n            lm.mma_commit()\n"
        "            lm.mma_wait(pending=0)\n            lm.arrive(empty, stage=0)\n            for k in lm.range(1,",
        "            for k in lm.range(0,").replace("init=False", "init=(k == 0)")),
]

# ---------------------------------------------------------------- turns
TT = read("tests/encoder/turn_taking_test.cpp")
def scratch_head():
    tk = read("tests/encoder/turn_taking_kernels.h")
    body = re.search(r'inline std::string scratchKernel.*?return (.*?)\n         body;', tk, re.S).group(1)
    return "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', body)).encode().decode("unicode_escape")


def table_head(stages):
    return ("@cake.schedule(target=\"sm_90a\")\n"
            "def k(lm, Out: LM.gmem, n: LM.i32):\n"
            "    lm.assume(n >= 1)\n"
            f"    pool = lm.smem({16 * stages})\n"
            f"    tb   = pool.view(offset=0, shape=(1, 4), dtype=lm.f32, stages={stages})\n"
            "    x    = lm.regs(shape=(1, 1), dtype=lm.f32)\n"
            "    y    = lm.regs(shape=(1, 1), dtype=lm.f32)\n")


def body_of(name):
    return re.search(name + r' = \w+\((?:"sm_80"|2), R"\((.*?)\)"\);', TT, re.S).group(1)


LOOPFREE = scratch_head().replace('target=""', 'target="sm_80"', 1) + body_of("kRereadOfALoopFreeIndex")
BYTWO = table_head(2) + body_of("kRereadReleasedByTwo")
RELOADS = s40.raw_string("tests/encoder/turn_taking_test.cpp", "kReloadsSharedByTwo")
LF_W = "            lm.copy(ss[0][0:1, 0:1], x)\n"
B2_C0_TAIL = "            lm.copy(y, tb[i % 2][0:1, 0:1])\n            lm.bar_arrive(s_ready)\n            lm.arrive(avail, stage=i % 2)\n"
B2_C1 = "            lm.sync(s_ready)\n            lm.arrive(avail, stage=i % 2)\n"
B2_PW = "            if i >= 2:\n                lm.wait(avail, stage=i % 2)\n"
RL_RD = "tile[0].tma_load(T, coords=(64 * b, 64 * j + 64), stage=0, phase=b * np + j + 1, barrier=full)"
TURN_MUTANTS = [
    ("loopfree", LOOPFREE, "good", []),
    ("loopfree_skip_last", LOOPFREE, "bad", rep(LF_W, "            if j + 1 != n:\n                lm.copy(ss[0][0:1, 0:1], x)\n")),
    ("loopfree_skip_first", LOOPFREE, "bad", rep(LF_W, "            if j != 0:\n                lm.copy(ss[0][0:1, 0:1], x)\n")),
    ("loopfree_skip_odd", LOOPFREE, "bad", rep(LF_W, "            if j % 2 == 0:\n                lm.copy(ss[0][0:1, 0:1], x)\n")),
    ("loopfree_write_after_ready", LOOPFREE, "bad",
     rep(LF_W + "            lm.bar_arrive(ready)\n", "            lm.bar_arrive(ready)\n" + LF_W)),
    ("loopfree_write_after_mid", LOOPFREE, "bad",
     rep("            lm.bar_arrive(mid)\n", "            lm.bar_arrive(mid)\n" + LF_W)),
    ("bytwo", BYTWO, "good", []),
    # c1's release on the other slot still follows c0's reads of that slot
    ("bytwo_c1_wrong_stage", BYTWO, "good", rep(B2_C1, B2_C1.replace("stage=i % 2", "stage=(i + 1) % 2"))),
    # IR.md: an implicit phase counts the instance's own ops on the slot, so
    # one instance's second arrival of a round means the next phase
    ("bytwo_c1_twice_c0_none", BYTWO, "bad",
     rep(B2_C0_TAIL, B2_C0_TAIL.replace("            lm.arrive(avail, stage=i % 2)\n", ""))
     + rep(B2_C1, B2_C1 + "            lm.arrive(avail, stage=i % 2)\n")),
    ("bytwo_c0_twice_c1_none", BYTWO, "bad",
     rep(B2_C0_TAIL, B2_C0_TAIL + "            lm.arrive(avail, stage=i % 2)\n")
     + rep(B2_C1, "            lm.sync(s_ready)\n")),
    ("bytwo_both_release_next_slot", BYTWO, "bad",
     rep(B2_C0_TAIL, B2_C0_TAIL.replace("stage=i % 2", "stage=(i + 1) % 2"))
     + rep(B2_C1, B2_C1.replace("stage=i % 2", "stage=(i + 1) % 2"))),
    ("bytwo_refill_phase_early", BYTWO, "bad", rep(B2_PW, "            if i >= 2:\n                lm.wait(avail, iter=i - 4)\n")),
    ("bytwo_refill_guard_3", BYTWO, "bad", rep(B2_PW, "            if i >= 3:\n                lm.wait(avail, stage=i % 2)\n")),
    ("bytwo_refill_skip_3", BYTWO, "bad", rep(B2_PW, "            if i >= 2 and i != 3:\n                lm.wait(avail, stage=i % 2)\n")),
    ("bytwo_refill_iter", BYTWO, "good", rep(B2_PW, "            lm.wait(avail, iter=i - 2)\n")),
    ("bytwo_c1_releases_next", BYTWO, "bad", rep(B2_C1, B2_C1.replace("lm.arrive(avail, stage=i % 2)",
                                                                     "lm.arrive(avail, iter=i + 2)"))),
    ("bytwo_c0_rereads_after_release", BYTWO, "bad",
     rep(B2_C0_TAIL, "            lm.bar_arrive(s_ready)\n            lm.arrive(avail, stage=i % 2)\n"
                     "            lm.copy(y, tb[i % 2][0:1, 0:1])\n")),
    ("reloads", RELOADS, "good", []),
    ("reloads_ld0_skips_release", RELOADS, "bad", rep("            if b > 0:\n                lm.wait(free", "            if b > 1:\n                lm.wait(free")),
    # a TMA load's phase= is no operand of the lowered copy (it lands in the
    # slot's current phase): a warning, sync.phase-annotation-mismatch
    ("reloads_rd_phase_annotation", RELOADS, "good", rep(RL_RD, RL_RD.replace("phase=b * np + j + 1", "phase=b * np + j"))),
    ("reloads_rd_one_more", RELOADS, "bad", rep("                if j + 1 < np:\n", "                if j < np:\n")),
    ("reloads_release_lap_behind", RELOADS, "bad", rep("lm.wait(free, iter=b - 1)", "lm.wait(free, iter=b - 2)")),
    ("reloads_release_early", RELOADS, "bad",
     rep("            lm.arrive(free, iter=b)\n", "")
     + rep("            lm.copy(Out, x, coords=(64 * b, 0))\n", "            lm.copy(Out, x, coords=(64 * b, 0))\n"
           "            lm.arrive(free, iter=b)\n")),
    ("reloads_no_fence_order", RELOADS, "bad",
     rep("            lm.expect_tx(full, 8192, stage=0)\n            lm.wait(full, stage=0)\n            lm.copy(x, tile[0])\n",
         "            lm.expect_tx(full, 8192, stage=0)\n            lm.copy(x, tile[0])\n            lm.wait(full, stage=0)\n")),
]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    out = args[0]
    index = []
    s40.write(out, "pairs", PAIRS, PAIRS_MUTANTS, index)
    s40.write(out, "triples", TRIPLES, TRIPLES_MUTANTS, index)
    s40.write(out, "rounds", PINGPONG, ROUNDS_MUTANTS, index)
    s40.write(out, "nests", NESTS, NESTS_MUTANTS, index)
    s40.write(out, "firstlap", GRIDRING, FIRSTLAP_MUTANTS, index)
    for name, label, text in SPLITK_TEXTS + WINDOW_TEXTS:
        s40.write_text(out, "splitk", name, label, text.lstrip("\n"), index)
    for name, base, label, edits in TURN_MUTANTS:
        s40.write_text(out, "turns", name, label, s40.edited(base, edits, name), index)
    write_index(out, index)
    run_index_if_asked(out)


if __name__ == "__main__":
    main()
