#!/usr/bin/env python3
"""Session 45's soundness attack (helper sound45, docs/known-limits.md
"Attacks on session 44's paths"): broken schedules aimed at the front-end
and proof paths session 44 added, with correct twins, written to
OUT/<base>/<name>.cake with OUT/index.tsv (sound40_mutants.py's format), then
`cake check` on each (attack_runner.py's runner):

    bench/attacks/sound45_mutants.py OUT                # writes the files and OUT/index.tsv
    bench/attacks/sound45_mutants.py OUT --run [CAKE]   # also runs cake check on each (OUT/check.tsv)

A "bad" mutant is broken: `cake check` must exit 1, or 2 (unknown), never 0;
one said *proved* is always a hole. A "good" one is a correct twin (a report
is a false alarm, unknown is allowed). A "limit" one is a lost update the
model has no values to see (docs/known-limits.md says so). Labels are by
hand. Targets (one base each):

* gridring (ir/resolver.cpp tripOfSteppedVar, countLoopFromZero,
  waitsByIteration): sound45_test.cpp's grid-strided two-slot ring, every
  ring op spelled `stage=E % S, phase=E // S + c`: trip numbers read back
  off by one, by another divisor, from a renamed start; loop starts and
  steps that differ between the roles; wrong c, a modulus that is not the
  slot count, E that is not the iteration; guards that skip more than the
  negative iterations.
* persistent: bench/respell/good/sm90_persistent_ws_r1.cake with its tile
  loops grid-strided (`lm.range(lm.block_idx(0), num_tiles, step)`): the same
  families on a 4-stage GEMM ring of two consumer warpgroups.
* firstwait (the trip proof's copies per ring start with last tiles,
  trip_fa14_test.cpp's kernel): waits skipped at a tile, a depth from the
  end, a ring start, or under guards the covering values must solve for
  (`t // 7 != 5`, `(t * t) % 97 != 13`, `tiles < 300 or t != 290`).
* glob (encoder/loop_coords.h): glob44_test.cpp's in-place row update with
  another factor in a second access, a negative rest, boxes wider than
  the step, a descending loop, a negative factor, a step of 2.
* blockrow (encoder/block_coords.h, sound44's wholeBoxes): block_row.h's
  kernel at rows `t // 2 - 1`, `t % 4 - 2`, `t * t - 50`, two block
  indices, and guards on `rows` whose race needs a solved combination
  (`rows % 5 == 2` and `rows % 7 == 3` above 32).
* turns (encoder/barrier_order.h, the hand-over in barrier order): the
  turn-taking kernels of turn_taking_test.cpp with a release moved before
  the write, a partner's write skipped in one round, a wait a lap behind.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sound40_mutants as s40  # noqa: E402
import sound44_mutants as s44  # noqa: E402
from attack_runner import read, run_index_if_asked, write_index  # noqa: E402


def rep(old, new):
    return [(old, new)]


# ---------------------------------------------------------------- gridring
GRIDRING = s40.raw_string("tests/encoder/sound45_test.cpp", "kGridStridedStageRing")
G_TRIP = "            t = (tile - lm.block_idx(0)) // lm.grid_dim(0)\n"
G_PW = "                if it >= 2:\n                    lm.wait(empty, stage=it % 2, phase=it // 2 - 1)\n"
G_CW = "                lm.wait(full, stage=it % 2, phase=it // 2)\n"
G_CA = "                lm.arrive(empty, stage=it % 2, phase=it // 2)\n"
G_PLOOP = "    with producer:\n        for tile in lm.range(lm.block_idx(0), T, lm.grid_dim(0)):\n" + G_TRIP
G_CLOOP = "    with consumer:\n        for tile in lm.range(lm.block_idx(0), T, lm.grid_dim(0)):\n" + G_TRIP


def g_prod(loop, trip):
    return rep(G_PLOOP, f"    with producer:\n        for tile in lm.range({loop}):\n            t = {trip}\n")


def g_both(loop, trip):
    return g_prod(loop, trip) + rep(G_CLOOP, f"    with consumer:\n        for tile in lm.range({loop}):\n            t = {trip}\n")


def g_pw(guard, wait):
    return rep(G_PW, f"                if {guard}:\n                    lm.wait(empty, {wait})\n")


GRIDRING_MUTANTS = [
    ("base", "good", []),
    ("prod_trip_start_plus1", "bad", g_prod("lm.block_idx(0), T, lm.grid_dim(0)",
                                            "(tile - (lm.block_idx(0) + 1)) // lm.grid_dim(0)")),
    ("prod_trip_div_2g", "bad", g_prod("lm.block_idx(0), T, lm.grid_dim(0)", "(tile - lm.block_idx(0)) // (2 * lm.grid_dim(0))")),
    ("prod_step_2g", "bad", g_prod("lm.block_idx(0), T, 2 * lm.grid_dim(0)", "(tile - lm.block_idx(0)) // (2 * lm.grid_dim(0))")),
    ("prod_step_g_plus1", "bad", g_prod("lm.block_idx(0), T, lm.grid_dim(0) + 1",
                                        "(tile - lm.block_idx(0)) // (lm.grid_dim(0) + 1)")),
    ("prod_renamed_start_plus1", "bad", rep(G_PLOOP, G_PLOOP.replace(G_TRIP, "            b1 = lm.block_idx(0) + 1\n"
                                                                     "            t = (tile - b1) // lm.grid_dim(0)\n"))),
    ("cons_starts_a_grid_later", "bad", rep(G_CLOOP, G_CLOOP.replace("lm.range(lm.block_idx(0), T", "lm.range(lm.block_idx(0) + lm.grid_dim(0), T"))),
    # (tile - b - 1) // g + 1 is n for every n >= 0: not read back, checked
    ("trip_other_spelling", "good", g_both("lm.block_idx(0), T, lm.grid_dim(0)",
                                           "(tile - lm.block_idx(0) - 1) // lm.grid_dim(0) + 1")),
    ("both_step_2g", "good", g_both("lm.block_idx(0), T, 2 * lm.grid_dim(0)", "(tile - lm.block_idx(0)) // (2 * lm.grid_dim(0))")),
    ("c_minus2_guard4", "bad", g_pw("it >= 4", "stage=it % 2, phase=it // 2 - 2")),
    ("c_minus2_guard2", "bad", g_pw("it >= 2", "stage=it % 2, phase=it // 2 - 2")),
    ("c_zero", "bad", g_pw("it >= 2", "stage=it % 2, phase=it // 2")),
    ("cons_c_plus1", "bad", rep(G_CW, "                lm.wait(full, stage=it % 2, phase=it // 2 + 1)\n")),
    ("cons_c_minus1", "bad", rep(G_CW, "                lm.wait(full, stage=it % 2, phase=it // 2 - 1)\n")),
    ("cons_modulus_4", "bad", rep(G_CW, "                lm.wait(full, stage=it % 4 % 2, phase=it // 4)\n")),
    ("cons_e_plus1", "bad", rep(G_CW, "                lm.wait(full, stage=(it + 1) % 2, phase=(it + 1) // 2 - 1)\n")),
    ("cons_e_minus1", "bad", rep(G_CW, "                lm.wait(full, stage=(it - 1) % 2, phase=(it - 1) // 2)\n")),
    ("release_e_plus1", "bad", rep(G_CA, "                lm.arrive(empty, stage=(it + 1) % 2, phase=(it + 1) // 2)\n")),
    ("release_e_plus2", "good", rep(G_CA, "                lm.arrive(empty, stage=(it + 2) % 2, phase=(it + 2) // 2 - 1)\n")),
    ("guard_gt2", "bad", g_pw("it > 2", "stage=it % 2, phase=it // 2 - 1")),
    ("guard_ge3", "bad", g_pw("it >= 3", "stage=it % 2, phase=it // 2 - 1")),
    ("guard_k", "bad", g_pw("k >= 2", "stage=it % 2, phase=it // 2 - 1")),
    ("guard_t_and_k", "bad", g_pw("t > 0 and k >= 2", "stage=it % 2, phase=it // 2 - 1")),
    ("guard_not_lt", "good", g_pw("not it < 2", "stage=it % 2, phase=it // 2 - 1")),
    ("guard_t_or_k", "good", g_pw("t > 0 or k >= 2", "stage=it % 2, phase=it // 2 - 1")),
]

# ---------------------------------------------------------------- persistent
PWS = s40.strip_header(read("bench/respell/good/sm90_persistent_ws_r1.cake"))
P_HEAD = """        for t in lm.range(0, my_tiles):
            tile  = lm.block_idx(0) + t * lm.grid_dim(0)
"""
P_WAIT = "lm.wait(empty, stage=it % 4, phase=it // 4 - 1)"


def p_loop(lo, step, tlo, tstep):
    return f"""        for tile in lm.range({lo}, num_tiles, {step}):
            t     = (tile - ({tlo})) // ({tstep})
"""


def persistent(cons, prod, extra=()):
    """PWS with the consumers' tile loop `cons` and the producer's `prod`
    (each (lo, step, trip's lo, trip's step)) and further edits."""
    first = PWS.index(P_HEAD)
    second = PWS.index(P_HEAD, first + 1)
    text = PWS[:first] + p_loop(*cons) + PWS[first + len(P_HEAD):second] + p_loop(*prod) + PWS[second + len(P_HEAD):]
    for a, b in extra:
        text = s40.edited(text, [(a, b)])
    return text


B, G = "lm.block_idx(0)", "lm.grid_dim(0)"
STRIDE = (B, G, B, G)
PERSISTENT_MUTANTS = [
    ("grid_stride", "good", persistent(STRIDE, STRIDE)),
    ("grid_stride_2g", "good", persistent((B, "2 * " + G, B, "2 * " + G), (B, "2 * " + G, B, "2 * " + G))),
    ("grid_stride_max", "good", persistent((B, f"max({G}, 1)", B, f"max({G}, 1)"), (B, f"max({G}, 1)", B, f"max(1, {G})"))),
    ("prod_skips_first", "bad", persistent(STRIDE, (f"{B} + {G}", G, B, G))),
    ("prod_half", "bad", persistent(STRIDE, (B, "2 * " + G, B, "2 * " + G))),
    ("cons_trip_wrong_div", "bad", persistent((B, "2 * " + G, B, G), (B, "2 * " + G, B, "2 * " + G))),
    ("prod_trip_plus1", "bad", persistent(STRIDE, (B, G, B + " + 1", G))),
    ("prod_trip_minus_g", "bad", persistent(STRIDE, (B, G, f"{B} - {G}", G))),
    ("cons_step_max2", "bad", persistent((B, f"max({G}, 2)", B, f"max({G}, 2)"), STRIDE)),
    ("phase_c_minus2", "bad", persistent(STRIDE, STRIDE, [(P_WAIT, "lm.wait(empty, stage=it % 4, phase=it // 4 - 2)")])),
    ("phase_c_minus2_guard8", "bad", persistent(STRIDE, STRIDE, [(P_WAIT, "lm.wait(empty, stage=it % 4, phase=it // 4 - 2)"),
                                                                   ("if it >= 4:", "if it >= 8:")])),
    ("phase_c_zero", "bad", persistent(STRIDE, STRIDE, [(P_WAIT, "lm.wait(empty, stage=it % 4, phase=it // 4)")])),
    ("phase_e_plus1", "good", persistent(STRIDE, STRIDE, [(P_WAIT, "lm.wait(empty, stage=(it + 1) % 4, phase=(it + 1) // 4 - 1)"),
                                                            ("if it >= 4:", "if it >= 3:")])),
    ("phase_e_minus1", "bad", persistent(STRIDE, STRIDE, [(P_WAIT, "lm.wait(empty, stage=(it - 1) % 4, phase=(it - 1) // 4 - 1)"),
                                                            ("if it >= 4:", "if it >= 5:")])),
    ("guard_gt4", "bad", persistent(STRIDE, STRIDE, [("if it >= 4:", "if it > 4:")])),
    ("modulus_2", "bad", persistent(STRIDE, STRIDE, [(P_WAIT, "lm.wait(empty, stage=it % 2, phase=it // 2 - 1)"),
                                                       ("if it >= 4:", "if it >= 2:")])),
]

# ---------------------------------------------------------------- firstwait
Q_RELEASE = s44.FWREL
F_FIRST = s44.FW
F_START = "            lm.wait(full, iter=t * k_tiles)\n"
F_STEP = "                if k > 0:\n                    lm.wait(full, iter=it)\n"
F_LOOP = "            for k in lm.range(0, k_tiles):\n                it = t * k_tiles + k\n" + F_FIRST
# trip_fa14_test.cpp's kQRingFirstWaitAtRingStart: sound44's first-wait ring
# whose consumer also waits for its tile's first K slot before its K loop
# and in its other K iterations only
FIRSTWAIT = s40.edited(s40.edited(s44.FIRSTWAIT, [(F_LOOP, F_START + F_LOOP)]),
                       [("                lm.wait(full, iter=it)\n", F_STEP)])


def f_first(cond):
    return rep(F_FIRST, f"                if k == 0 and ({cond}):\n                    lm.wait(q_full, iter=t)\n")


def f_start(cond):
    return rep(F_START, f"            if {cond}:\n                lm.wait(full, iter=t * k_tiles)\n")


def f_step(cond):
    return rep(F_STEP, f"                if k > 0 and ({cond}):\n                    lm.wait(full, iter=it)\n")


def f_release_early(cond):
    return [(F_FIRST, F_FIRST + f"                if k == 0 and {cond}:\n                    lm.arrive(q_empty, iter=t)\n"),
            (Q_RELEASE, f"            if t + 2 < tiles and not ({cond}):\n                lm.arrive(q_empty, iter=t)\n")]


RS1 = "(t * k_tiles) % 2 == 0"
FIRST_CONDS = [
    ("t3", "t != 3"), ("last3", "t + 3 != tiles"), ("last4", "t + 4 != tiles"), ("odd_last", "t % 2 == 0 or t + 1 < tiles"),
    ("rs1_last", f"{RS1} or t + 1 < tiles"), ("rs1_last2", f"{RS1} or t + 2 != tiles"), ("t5", "t != 5"),
    ("t_div7", "t // 7 != 5"), ("t_sq", "(t * t) % 97 != 13"), ("tiles_k", "tiles != k_tiles + 5 or t + 1 < tiles"),
    ("ring_mod17", "(t * k_tiles) % 17 != 16"), ("tiles_big", "tiles < 300 or t != 290"), ("t_ge_k", "t < k_tiles + 3"),
    ("t_min", "min(t, 9) != 9"), ("last_big", "t + 1 < tiles or tiles < 40"),
]
FIRST_MUTANTS = [("base", "good", [])]
for n, c in FIRST_CONDS:
    FIRST_MUTANTS += [(f"first_{n}", "bad", f_first(c)), (f"start_{n}", "bad", f_start(c)),
                      (f"step_{n}", "bad", f_step(c.replace("t * k_tiles", "it")))]
FIRST_MUTANTS += [
    ("step_last_k1", "bad", f_step("k != 1 or t + 1 < tiles")),
    ("step_last3_klast", "bad", f_step("k + 1 != k_tiles or t + 3 != tiles")),
    ("release_early_last3", "bad", f_release_early("t + 3 == tiles")),
    ("release_early_last4", "bad", f_release_early("t + 4 == tiles")),
    ("release_early_rs1_last3", "bad", f_release_early("t + 3 == tiles and (t * k_tiles) % 2 == 1")),
]

# ---------------------------------------------------------------- glob
INPLACE = s40.raw_string("tests/encoder/glob44_test.cpp", "kInPlace")


def in_place(read, write, sync=True, rows=1, loop="lm.range(0, n)"):
    t = INPLACE.replace("READ", read).replace("WRITE", write).replace("ROWS", str(rows)).replace("lm.range(0, n)", loop)
    return t.replace("SYNC", "lm.sync(block)" if sync else "pass")


GLOB_MUTANTS = [
    # rows 2p loaded and p stored: a store meets only an earlier iteration's load, behind its barrier
    ("two_factors", "good", in_place("(2 * p, 32 * w)", "(p, 32 - 32 * w)")),
    ("neg_rest", "bad", in_place("(p - 1, 32 * w)", "(p, 32 - 32 * w)")),
    ("two_rows_step1", "bad", in_place("(p, 32 * w)", "(p, 32 - 32 * w)", rows=2)),
    ("descending_next_row", "bad", in_place("(p, 32 * w)", "(p - 1, 32 - 32 * w)", loop="lm.range(n, 0, -1)")),
    ("descending", "good", in_place("(p, 32 * w)", "(p, 32 - 32 * w)", loop="lm.range(n, 0, -1)")),
    ("neg_factor_next_row", "bad", in_place("(100 - p, 32 * w)", "(99 - p, 32 - 32 * w)")),
    ("neg_factor", "good", in_place("(100 - p, 32 * w)", "(100 - p, 32 - 32 * w)")),
    ("step2_two_rows", "good", in_place("(p, 32 * w)", "(p, 32 - 32 * w)", rows=2, loop="lm.range(0, n, 2)")),
    ("step2_three_rows", "bad", in_place("(p, 32 * w)", "(p, 32 - 32 * w)", rows=3, loop="lm.range(0, n, 2)")),
    ("columns_16p", "bad", in_place("(0, 16 * p)", "(1 - w, 16 * p)")),
    ("instance_in_row", "bad", in_place("(p * 2 + w, 0)", "(p * 2 + 1 - w, 0)", sync=False)),
    # even rows loaded, odd rows stored (both warps store one row: no race)
    ("even_odd_rows", "good", in_place("(2 * p + 2 * w, 0)", "(2 * p + 1, 0)")),
]

# ---------------------------------------------------------------- blockrow


def guarded_row(sync, guard="32 * w < rows", row="t"):
    return s44.block_row(row, row, True, guard).replace("        lm.sync(block)\n        if w == 0:",
                                                        f"        {sync}\n        if w == 0:")


BLOCK_ROWS = [("t_div2_minus1", "t // 2 - 1"), ("t_mod4_minus2", "t % 4 - 2"), ("max_t_minus3", "max(t - 3, -1)"),
              ("min_t_minus3", "min(t, 7) - 3"), ("t_sq_minus50", "t * t - 50"), ("grid_minus_t", "lm.grid_dim(0) - t - 5"),
              ("b1_minus_t", "lm.block_idx(1) - t"), ("two_blocks", "2 * t - 3 * lm.block_idx(1) - 1"),
              ("t_minus_rows", "t - rows + 40"), ("cdiv_t", "lm.cdiv(t, 3) - 2"), ("t_times_rows", "t * rows - 100")]
BLOCK_MUTANTS = []
for n, r in BLOCK_ROWS:
    BLOCK_MUTANTS += [(n, "good", s44.block_row(r, r)), (n + "_nosync", "bad", s44.block_row(r, r, False))]
BLOCK_MUTANTS += [
    ("t1_t2", "good", s44.block_row("t - 1", "t - 2", False)),  # rows t - 1 and t - 2 never meet
    ("sync_rows_mod13", "bad", guarded_row("if rows % 13 != 5:\n            lm.sync(block)")),
    ("sync_rows_sq", "bad", guarded_row("if (rows * rows) % 1000 != 936:\n            lm.sync(block)")),
    ("sync_t_mod7", "bad", guarded_row("if t % 7 != 3:\n            lm.sync(block)")),
    ("sync_t_rows", "bad", guarded_row("if t * 3 != rows:\n            lm.sync(block)")),
    ("sync_big", "bad", guarded_row("if rows < 5000:\n            lm.sync(block)")),
    ("sync_rows_bits", "bad", guarded_row("if (rows // 8) % 2 == 0 or (rows // 16) % 2 == 0 or (rows // 32) % 2 == 0:\n"
                                          "            lm.sync(block)")),
    ("sync_crt", "bad", guarded_row("if rows % 5 != 2:\n            lm.sync(block)", "32 * w < rows and rows % 7 == 3")),
    ("sync_crt3", "bad", guarded_row("if rows % 5 != 2 or rows % 3 != 1:\n            lm.sync(block)",
                                     "32 * w < rows and rows % 7 == 3")),
    ("sync_crt_t", "bad", guarded_row("if (t + rows) % 5 != 2:\n            lm.sync(block)",
                                      "32 * w < rows and (t * 3 + rows) % 7 == 3")),
]

# ---------------------------------------------------------------- turns
TT = read("tests/encoder/turn_taking_test.cpp")
TK = read("tests/encoder/turn_taking_kernels.h")
SCRATCH = re.search(r'inline std::string scratchKernel.*?return (.*?)\n         body;', TK, re.S).group(1)
SCRATCH_HEAD = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', SCRATCH)).encode().decode("unicode_escape")


def scratch(target, body):
    return SCRATCH_HEAD.replace('target=""', f'target="{target}"', 1) + body


def scratch_kernel(text, name):
    m = re.search(name + r' = scratchKernel\("(sm_\d+a?)", R"\((.*?)\)"\);', text, re.S)
    return scratch(m.group(1), m.group(2))


TURNS = {n: scratch_kernel(TT, n) for n in ("kSyncTurns", "kReaderOfTwoWriters")}
TURNS.update({n: scratch_kernel(TK, n) for n in ("kMbarrierTurns", "kRunningMax")})


def table_kernel(text, name):
    """`name = tableKernel(stages, R"(body)")` of turn_taking_test.cpp spelt
    out: tableKernel's string literals and `std::to_string(e)` with `stages`."""
    stages, body = re.search(name + r' = tableKernel\((\d+), R"\((.*?)\)"\);', text, re.S).groups()
    head = re.search(r'std::string tableKernel.*?return (.*?)\n         body;', text, re.S).group(1)
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"|std::to_string\(([^)]*)\)', head)
    spelt = "".join(lit.encode().decode("unicode_escape") if not e else str(eval(e, {"stages": int(stages)}))
                    for lit, e in parts)
    return spelt + body


TURNS["kRereadAcrossWait"] = table_kernel(TT, "kRereadAcrossWait")
MB_PONG_TAIL = "            lm.copy(ss[0][0:1, 0:1], y)\n            lm.copy(x, ss[0][0:1, 0:1])\n            lm.arrive(q2p, iter=r)\n"
RM_WG1_TAIL = "            lm.copy(ss[0][0:1, 0:1], y)\n            lm.bar_arrive(to0)\n"
R2_W1 = "            if g == 1:\n                lm.copy(ss[0][0:1, 0:1], x)\n            lm.sync(tg)\n            lm.sync(tg)\n"
TB_WRITE = "                lm.copy(tb[c][0:1, 0:1], x)\n"
TURN_MUTANTS = [
    ("mbarrier", "kMbarrierTurns", "good", []),
    ("mbarrier_release_before_write", "kMbarrierTurns", "bad",
     rep(MB_PONG_TAIL, "            lm.arrive(q2p, iter=r)\n            lm.copy(ss[0][0:1, 0:1], y)\n            lm.copy(x, ss[0][0:1, 0:1])\n")),
    # ping reads its own write back where pong skipped: a lost update, no sync bug
    ("mbarrier_pong_skips_r1", "kMbarrierTurns", "limit",
     rep("            lm.copy(ss[0][0:1, 0:1], y)\n            lm.copy(x", "            if r != 1:\n                lm.copy(ss[0][0:1, 0:1], y)\n            lm.copy(x")),
    ("mbarrier_wait_a_lap_behind", "kMbarrierTurns", "bad", rep("lm.wait(q2p, iter=r)", "lm.wait(q2p, iter=r - 1)")),
    ("mbarrier_write_after_release", "kMbarrierTurns", "bad",
     rep("            lm.arrive(q2p, iter=r)\n", "            lm.arrive(q2p, iter=r)\n            lm.copy(ss[0][0:1, 0:1], y)\n")),
    ("running_max", "kRunningMax", "good", []),
    ("running_max_wg1_skips_r2", "kRunningMax", "limit",
     rep(RM_WG1_TAIL, "            if j != 2:\n                lm.copy(ss[0][0:1, 0:1], y)\n            lm.bar_arrive(to0)\n")),
    ("running_max_arrive_before_write", "kRunningMax", "bad",
     rep(RM_WG1_TAIL, "            lm.bar_arrive(to0)\n            lm.copy(ss[0][0:1, 0:1], y)\n")),
    ("sync", "kSyncTurns", "good", []),
    ("sync_w1_even_rounds", "kSyncTurns", "bad", rep("            if g == 1:\n", "            if g == 1 and r % 2 == 0:\n")),
    ("sync_w1_skips_r1", "kSyncTurns", "bad", rep("            if g == 1:\n", "            if g == 1 and r != 1:\n")),
    ("sync_w0_skips_r2", "kSyncTurns", "bad", rep("            if g == 0:\n", "            if g == 0 and r != 2:\n")),
    ("two_writers", "kReaderOfTwoWriters", "good", []),
    ("two_writers_w1_late", "kReaderOfTwoWriters", "bad",
     rep(R2_W1, "            lm.sync(tg)\n            if g == 1:\n                lm.copy(ss[0][0:1, 0:1], x)\n            lm.sync(tg)\n")),
    ("two_writers_w1_skips_r1", "kReaderOfTwoWriters", "bad", rep("            if g == 1:\n", "            if g == 1 and r != 1:\n")),
    ("two_writers_w0_skips_r1", "kReaderOfTwoWriters", "bad", rep("            if g == 0:\n", "            if g == 0 and r != 1:\n")),
    ("reread", "kRereadAcrossWait", "good", []),
    ("reread_skips_b1_c2", "kRereadAcrossWait", "bad",
     rep(TB_WRITE, "                if b != 1 or c != 2:\n                    lm.copy(tb[c][0:1, 0:1], x)\n")),
    ("reread_skips_b2", "kRereadAcrossWait", "bad", rep(TB_WRITE, "                if b != 2:\n                    lm.copy(tb[c][0:1, 0:1], x)\n")),
]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    out = args[0]
    index = []
    s40.write(out, "gridring", GRIDRING, GRIDRING_MUTANTS, index)
    for name, label, text in PERSISTENT_MUTANTS:
        s40.write_text(out, "persistent", name, label, text, index)
    s40.write(out, "firstwait", FIRSTWAIT, FIRST_MUTANTS, index)
    for name, label, text in GLOB_MUTANTS:
        s40.write_text(out, "glob", name, label, text, index)
    for name, label, text in BLOCK_MUTANTS:
        s40.write_text(out, "blockrow", name, label, text, index)
    for name, base, label, edits in TURN_MUTANTS:
        s40.write_text(out, "turns", name, label, s40.edited(TURNS[base], edits, name), index)
    write_index(out, index)
    run_index_if_asked(out)


if __name__ == "__main__":
    main()
