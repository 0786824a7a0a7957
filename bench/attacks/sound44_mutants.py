#!/usr/bin/env python3
"""Session 44's soundness attack (helper sound44, docs/z3.md "Soundness review,
session 44"): one synchronization bug at a time injected into known-good
schedules that exercise session 43's steps, with correct twins, written to
OUT/<base>/<name>.cake with OUT/index.tsv (sound40_mutants.py's format), then
`cake check` (whose proof runs by default: --proof-timeout 3) on each:

    bench/attacks/sound44_mutants.py OUT                # writes the files and OUT/index.tsv
    bench/attacks/sound44_mutants.py OUT --run [CAKE]   # also runs cake check --timeout 300 on each (OUT/check.tsv)
    bench/attacks/attack_runner.py OUT [CAKE] [JOBS] -- --timeout 300   # (the same, JOBS at a time)

A "bad" mutant is broken: `cake check` must exit 1, or 2 (unknown), never 0;
one said *proved* is always a hole. A "good" one is a correct twin (a report
is a false alarm, unknown is allowed). Labels are by hand, each line saying
why where it is not plain. Targets (one base each):

* blockrow (`encoder/block_coords.h`, the bounded check's neverClipped /
  clippedCoordGoals): block_coords_test.cpp's kBlockRow, two or three warps
  storing a row of a read-and-written global tensor at a coordinate that
  names `t = lm.block_idx(0)` and loading it after a barrier: `t - 1`,
  two block indices, a block index times a stride, rests that read the
  instance (negative for some instance only), the block index named in two
  dimensions or two tensors through one node.
* tileend (`encoder/trip_ring_end.h`, lastPostsByRingEnd): trip_fa12_test's
  persistent kernel whose epilogue waits for its tile's ring end
  `t * n_blocks + n_blocks - 1` and releases its Q slot `if t + 2 < T`:
  ring ends off by one, spelled `(t + 1) * n_blocks - 1`, the last tiles'
  parts shifted.
* firstwait (lastTilesFirstIterations): trip_fa13_test's two-slot Q ring
  whose consumer waits for Q `if k == 0:` in its K loop, read with the tile
  count to depth 2.
* slotmod (ir/resolver.cpp nameSlotsByIteration): the TileLang persistent
  ring read as `smem_a[e % m]`.
* twovar (FlipGoal::others): guards on two loop variables around the
  persistent Q/K ring's consumer wait, and around the grid-strided
  Triton ring's (`tile = lm.block_idx(0) + t * lm.grid_dim(0)`).
* pairs (BindingSearch::offTheirLine): gap43's two-slot ring with a
  consumer count apart from the producer's on other lines.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sound40_mutants as s40  # noqa: E402
from attack_runner import corpus, read, run_index_if_asked, strip_header, write_index  # noqa: E402


def raw_cake(path, name):
    """A C++ raw string `name = R"CAKE(...)CAKE"` of a test file."""
    text = read(path)
    return re.search(name + r' = R"CAKE\((.*?)\)CAKE";', text, re.S).group(1).lstrip("\n")


def rep(old, new):
    return [(old, new)]


# ---------------------------------------------------------------- blockrow: block coordinates
BLOCKROW = s40.raw_string("tests/encoder/block_row.h", "kBlockRow")


def block_row(write, read, sync=True, guard="32 * w < rows"):
    t = BLOCKROW.replace("GUARD", guard).replace("WRITE", write).replace("READ", read)
    return t.replace("SYNC", "lm.sync(block)" if sync else "pass")


# Three warps, each storing a tile of ROWS rows at row R(w) of B and loading
# it back (the same coordinate expression in every access of the dimension),
# with a barrier between unless SYNC is off; a fourth role that only reads
# A (walked last by the bounded check's goal collector, one instance).
THREE = '''@cake.schedule(target="sm_80")
def k(lm, A: LM.gmem, B: LM.gmem, rows: LM.i32):
    x = lm.regs(shape=(ROWS, 32), dtype=lm.i32)
    y = lm.regs(shape=(ROWS, 32), dtype=lm.i32)
    z = lm.regs(shape=(1, 32), dtype=lm.i32)
    warps = lm.role(warps=[0, 1, 2], group=1)
    idle = lm.role(warps=[3])
    block = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        t = lm.block_idx(0)
        if 32 * w < rows:
            lm.copy(x, A, coords=(t, 0))
            lm.copy(B, x, coords=(ROW, 0))
        SYNC
        lm.copy(y, B, coords=(ROW, 0))
        lm.sync(block)
    with idle:
        lm.copy(z, A, coords=(0, 0))
'''


def three(row, rows=3, sync=False, idle_last=True):
    t = THREE.replace("ROWS", str(rows)).replace("ROW", row).replace("SYNC", "lm.sync(block)" if sync else "pass")
    if not idle_last:  # the idle role walked first
        body = "    with idle:\n        lm.copy(z, A, coords=(0, 0))\n"
        t = t.replace(body, "")
        t = t.replace("    with warps:\n", body + "    with warps:\n")
    return t


# Tensor B's column coordinate and row coordinate one node `t` (the name
# substituted): rows all `t` (the block's own), columns `64` (store) and
# `t` (load): the load's columns [t, t + 32) meet the store's [64, 96) only
# at blocks 33 to 95.
TWODIM = '''@cake.schedule(target="sm_80")
def k(lm, A: LM.gmem, B: LM.gmem, rows: LM.i32):
    x = lm.regs(shape=(1, 32), dtype=lm.i32)
    y = lm.regs(shape=(1, 32), dtype=lm.i32)
    warps = lm.role(warps=[0, 1], group=1)
    block = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        t = lm.block_idx(0)
        if w == 1:
            lm.copy(x, A, coords=(t, 0))
            lm.copy(B, x, coords=(t, COL))
        SYNC
        if w == 0:
            lm.copy(y, B, coords=(t, t))
        lm.sync(block)
'''

# Two tensors through one node: B's rows all `t` (owned), C's rows `t`
# (load) and `1` (store): block 1 loads the row warp 1 stores.
TWOTENSOR = s40.raw_string("tests/encoder/sound44_test.cpp", "kTwoTensors")

BLOCK_MUTANTS = [
    # (name, label, text)
    ("row_t", "good", block_row("t", "t")),
    ("row_t_nosync", "bad", block_row("t", "t", False)),
    ("row_4t1", "good", block_row("4 * t + 1", "4 * t + 1")),
    ("row_4t1_nosync", "bad", block_row("4 * t + 1", "4 * t + 1", False)),
    ("row_t_minus1", "good", block_row("t - 1", "t - 1")),
    ("row_t_minus1_nosync", "bad", block_row("t - 1", "t - 1", False)),
    ("row_t_minus1_noguard_nosync", "bad", block_row("t - 1", "t - 1", False, "w < 2")),
    ("row_t_minus2_nosync", "bad", block_row("t - 2", "t - 2", False)),
    ("row_neg_t_plus3_nosync", "bad", block_row("3 - t", "3 - t", False)),
    # the store of warp 1 at t - 1, the load at t - 1: a race from block 1 on
    ("row_t_minus_w_read_t1_nosync", "bad", block_row("t - w", "t - 1", False)),
    ("row_t_minus_w_read_t1", "good", block_row("t - w", "t - 1")),
    # (the load at t - 1 and the stores at t: apart at every block)
    ("row_t_read_t1_nosync", "good", block_row("t", "t - 1", False)),
    # two block indices (grid (x, y)): one term each
    ("two_blocks", "good", block_row("t + lm.block_idx(1)", "t + lm.block_idx(1)")),
    ("two_blocks_nosync", "bad", block_row("t + lm.block_idx(1)", "t + lm.block_idx(1)", False)),
    ("two_blocks_apart_nosync", "bad", block_row("t + lm.block_idx(1)", "t + 1", False)),
    ("block_product_nosync", "bad", block_row("t * lm.block_idx(1)", "t * lm.block_idx(1)", False)),
    ("block_product_minus1_nosync", "bad", block_row("t * lm.block_idx(1) - 1", "t * lm.block_idx(1) - 1", False)),
    # a block index times a stride (the grid size)
    ("grid_stride", "good", block_row("t * lm.grid_dim(0)", "t * lm.grid_dim(0)")),
    ("grid_stride_nosync", "bad", block_row("t * lm.grid_dim(0)", "t * lm.grid_dim(0)", False)),
    ("grid_stride_minus1_nosync", "bad", block_row("t * lm.grid_dim(0) - 1", "t * lm.grid_dim(0) - 1", False)),
    ("grid_minus_t_nosync", "bad", block_row("lm.grid_dim(0) - 1 - t", "lm.grid_dim(0) - 1 - t", False)),
    ("stride_32", "good", block_row("32 * t", "32 * t")),
    ("stride_32_minus1_nosync", "bad", block_row("32 * t - 1", "32 * t - 1", False)),
    # the rest reads the parameter: negative below rows = 96
    ("row_rows_nosync", "bad", block_row("t + rows - 96", "t + rows - 96", False)),
    ("row_rows", "good", block_row("t + rows - 96", "t + rows - 96")),
    # rests that read the instance: three warps, 3-row tiles at R(w)
    ("inst_all_nonneg", "good", three("t + 2 - w", sync=True)),
    ("inst_all_nonneg_nosync", "bad", three("t + 2 - w")),
    # rows 5, -2, -4 past t: warps 1 and 2 meet at row t - 2 only, so only
    # from block 2 on (every box of warps 1 and 2 below 0 at block 0)
    ("inst_neg_nosync", "bad", three("t + 7 * (w == 0) - 2 * w")),
    ("inst_neg_nosync_idle_first", "bad", three("t + 7 * (w == 0) - 2 * w", idle_last=False)),
    ("inst_neg", "good", three("t + 7 * (w == 0) - 2 * w", sync=True)),
    ("inst_neg_minus", "bad", three("t - 2 * w + 7 * (w == 0)")),
    # a coordinate whose distance between instances is the block index:
    # rows 1000, t + 37, 2t (one row each): warps 1 and 2 meet at block 37 only (0 and 2 at 500)
    ("inst_times_block_nosync", "bad", three("t * w + 37 * (w == 1) + 1000 * (w == 0)", rows=1)),
    ("inst_times_block", "good", three("t * w + 37 * (w == 1) + 1000 * (w == 0)", rows=1, sync=True)),
    # the block index named in two dimensions of B through one node
    ("twodim_col64_nosync", "bad", TWODIM.replace("COL", "64").replace("SYNC", "pass")),
    ("twodim_col64", "good", TWODIM.replace("COL", "64").replace("SYNC", "lm.sync(block)")),
    # ... and in two tensors
    ("twotensor_nosync", "bad", TWOTENSOR.replace("SYNC", "pass")),
    ("twotensor", "good", TWOTENSOR.replace("SYNC", "lm.sync(block)")),
]

# ---------------------------------------------------------------- tileend: the last tiles' parts per ring end
TILEEND = raw_cake("tests/encoder/persistent_kernels.h", "kTileEndKernel")
TEWAIT = "            lm.wait(o_done, iter=t * n_blocks + n_blocks - 1)\n"
TEREL = "            if t + 2 < T:\n                lm.arrive(q_empty, iter=t)\n"
TEPWAIT = "            lm.wait(q_empty, iter=t - 2)\n"
TEMMAQ = "            lm.wait(q_full, iter=t)\n"
TEREADY = "                    lm.arrive(o_ready, iter=g - 1)\n"


def tewait(it):
    return rep(TEWAIT, f"            lm.wait(o_done, iter={it})\n")


def terel(cond, it="t"):
    return rep(TEREL, f"            if {cond}:\n                lm.arrive(q_empty, iter={it})\n")


TILEEND_MUTANTS = [
    ("base", "good", []),
    # the ring end respelled (equal for every value)
    ("end_respelled", "good", tewait("(t + 1) * n_blocks - 1")),
    ("end_commuted", "good", tewait("n_blocks * (t + 1) - 1")),
    ("end_grouped", "good", tewait("t * n_blocks + (n_blocks - 1)")),
    ("end_minus_zero", "good", tewait("(t + 1) * n_blocks - 1 + T - T")),
    # ring ends off by one
    ("end_minus2_respelled", "bad", tewait("(t + 1) * n_blocks - 2")),
    ("end_slope", "bad", tewait("(t + 1) * (n_blocks - 1)")),  # t * n + n - 1 - t: short from tile 1 on
    ("end_next", "bad", tewait("(t + 1) * n_blocks")),
    ("end_first", "bad", tewait("t * n_blocks")),
    ("end_prev_tile", "bad", tewait("t * n_blocks - 1")),
    ("end_short_last_tile", "bad", tewait("t * n_blocks + n_blocks - 1 - (t + 1 == T)")),
    ("end_short_tile2", "bad", tewait("t * n_blocks + n_blocks - 1 - (t == 2)")),
    ("end_short_tile1_n2", "bad", tewait("t * n_blocks + n_blocks - 1 - (t == 1) * (n_blocks == 2)")),
    ("end_long_second_last", "bad", tewait("t * n_blocks + n_blocks - 1 + (t + 2 == T)")),
    # the release moved
    ("rel_depth1", "good", terel("t + 1 < T")),
    ("rel_all", "good", terel("t >= 0")),
    ("rel_depth3", "bad", terel("t + 3 < T")),
    ("rel_next_phase", "bad", terel("t + 2 < T", "t + 1")),
    ("rel_t_minus_T", "bad", terel("t < T - 3")),
    ("rel_not_second_last", "good", terel("t + 2 != T and t + 1 < T")),  # t < T - 2: the base's
    ("rel_skips_third_last", "bad", terel("t + 3 != T and t + 2 < T")),
    ("rel_before_wait", "bad", [(TEWAIT + TEREL, TEREL.replace("t + 2 < T", "t + 1 < T") + TEWAIT)]),
    # the loader's wait for the Q slot moved
    ("loader_wait_t1", "bad", rep(TEPWAIT, "            lm.wait(q_empty, iter=t - 1)\n")),
    ("loader_wait_t3", "good", rep(TEPWAIT, "            lm.wait(q_empty, iter=t - 3)\n")
     + terel("t + 3 < T") + [("stages=2, swizzle=\"128B\")\n    smem_k", "stages=3, swizzle=\"128B\")\n    smem_k"),
                             ("    q_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=two)\n"
                              "    q_empty = lm.barrier(prod=[epi], cons=[load], init_count=1, pipeline=two)\n",
                              "    q_full  = lm.barrier(count=3, prod=[load], cons=[mma], init_count=1)\n"
                              "    q_empty = lm.barrier(count=3, prod=[epi], cons=[load], init_count=1)\n"),
                             ("offset=32768, shape", "offset=49152, shape"),
                             ("pool   = lm.smem(65536)", "pool   = lm.smem(81920)")]),
    ("no_pace", "bad", rep(TEREADY, "")),
    ("pace_last_tile_skipped", "bad", rep(TEREADY, "                    if t + 1 < T:\n    " + TEREADY)),
]

# ---------------------------------------------------------------- firstwait: first K iterations of the last tiles
QE = s40.raw_string("tests/encoder/persistent_kernels.h", "kQueryEmpty")
FW = "                if k == 0:\n                    lm.wait(q_full, iter=t)\n"
FWREL = "            if t + 2 < tiles:\n                lm.arrive(q_empty, iter=t)\n"
FIRSTWAIT = s40.edited(QE, [
    ("def q_empty_handoff(", "def q_ring_first_wait("),
    ("stages=1, swizzle", "stages=2, swizzle"),
    ("offset=8192,", "offset=16384,"),
    ("    q_full  = lm.barrier(count=1, prod=[producer], cons=[consumer], init_count=1)\n",
     "    q_full  = lm.barrier(prod=[producer], cons=[consumer], init_count=1, pipeline=pipe)\n"),
    ("    q_empty = lm.named_barrier(roles=[producer, consumer])\n",
     "    q_empty = lm.barrier(prod=[consumer], cons=[producer], init_count=1, pipeline=pipe)\n"),
    ("            if t > 0:\n                lm.sync(q_empty)\n", "            lm.wait(q_empty, iter=t - 2)\n"),
    ("            if t + 1 < tiles:\n                lm.bar_arrive(q_empty)\n", FWREL),
    ("            lm.wait(q_full, iter=t)\n", ""),
    ("                lm.wait(full, iter=it)\n", FW + "                lm.wait(full, iter=it)\n"),
])
FWMMA = "                lm.mma(acc, smem_q[t], smem_a[it], init=(k == 0))\n"


def fw(cond_wait):
    return rep(FW, cond_wait)


FIRST_MUTANTS = [
    ("base", "good", []),
    ("wait_k_lt1", "good", fw("                if k < 1:\n                    lm.wait(q_full, iter=t)\n")),
    ("wait_every_k", "good", fw("                lm.wait(q_full, iter=t)\n")),
    ("wait_it_start", "good", fw("                if it == t * k_tiles:\n                    lm.wait(q_full, iter=t)\n")),
    ("wait_k_eq1", "bad", fw("                if k == 1:\n                    lm.wait(q_full, iter=t)\n")),
    ("wait_last_k", "bad", fw("                if k + 1 == k_tiles:\n                    lm.wait(q_full, iter=t)\n")),
    ("wait_t1", "bad", fw("                if k == 0:\n                    lm.wait(q_full, iter=t + 1)\n")),
    ("wait_tm1", "bad", fw("                if k == 0:\n                    lm.wait(q_full, iter=t - 1)\n")),
    ("wait_not_last", "bad", fw("                if k == 0 and t + 1 < tiles:\n                    lm.wait(q_full, iter=t)\n")),
    ("wait_not_second_last", "bad", fw("                if k == 0 and t + 2 != tiles:\n                    lm.wait(q_full, iter=t)\n")),
    ("wait_not_tile2", "bad", fw("                if k == 0 and t != 2:\n                    lm.wait(q_full, iter=t)\n")),
    ("wait_last_tile_shift", "bad", fw("                if k == 0:\n                    lm.wait(q_full, iter=t - (t + 1 == tiles))\n")),
    ("wait_k_last_tile", "bad", fw("                if k == (t + 1 == tiles):\n                    lm.wait(q_full, iter=t)\n")),
    ("rel_depth1", "good", rep(FWREL, FWREL.replace("t + 2 < tiles", "t + 1 < tiles"))),
    ("rel_depth3", "bad", rep(FWREL, FWREL.replace("t + 2 < tiles", "t + 3 < tiles"))),
    ("rel_in_k0", "bad", rep(FWREL, "") + fw(FW + "                    if t + 2 < tiles:\n"
                                                  "                        lm.arrive(q_empty, iter=t)\n")),
    ("mma_reads_next_q", "bad", rep(FWMMA, "                lm.mma(acc, smem_q[t + 1], smem_a[it], init=(k == 0))\n")),
    ("mma_reads_q_tile_end", "bad",
     rep(FWMMA, "                lm.mma(acc, smem_q[t + (t + 1 == tiles) * (k == 1)], smem_a[it], init=(k == 0))\n")),
]

# ---------------------------------------------------------------- slotmod: view[e % m]
TL = strip_header(corpus("bugs/data.stale-read/tilelang_ws_persistent_slot_k_vs_phase_fixed.cake"))
TLMMA = "                lm.mma(tmem_c, smem_a[it], smem_b[it], init=(k == 0))\n"
TLWAIT = "                lm.wait(loaded, iter=it)\n"
TLFENCE = "            lm.fence_proxy()\n"
TLCOPY = "            lm.copy(smem_c[0], c_frag)\n"


def tl_read(a, b=None):
    return rep(TLMMA, f"                lm.mma(tmem_c, smem_a[{a}], smem_b[{b or a}], init=(k == 0))\n")


SLOT_MUTANTS = [
    ("mod4", "good", tl_read("it % 4")),
    ("mod8", "good", tl_read("it % 8")),
    ("mod12", "good", tl_read("it % 12")),
    ("mod_mod", "good", tl_read("(it % 8) % 4")),
    ("mod4_b_only", "good", tl_read("it", "it % 4")),
    ("plus4_mod8", "good", tl_read("(it + 4) % 8")),  # the same slot and, past the rewrite, iteration it + 4 (a false alarm is allowed)
    ("plus1_mod8", "bad", tl_read("(it + 1) % 8")),
    ("plus1_mod4", "bad", tl_read("(it + 1) % 4")),
    ("minus1_mod4", "bad", tl_read("(it - 1) % 4")),
    ("k_mod4", "bad", tl_read("k % 4")),
    ("k_mod8", "bad", tl_read("k % 8")),
    ("w_mod4", "bad", tl_read("(w * k_blocks + k + (k == 1)) % 4")),
    ("mod4_wait_next", "bad", tl_read("it % 4") + rep(TLWAIT, "                lm.wait(loaded, iter=it - 1)\n")),
    # (the producer waits for a later release: the commit of it - 3 completes after the MMA of it - 4, correct)
    ("mod8_release_later", "good", tl_read("it % 8") +
     rep("                lm.wait(consumed, iter=it - 4)\n", "                lm.wait(consumed, iter=it - 3)\n")),
    ("mod8_release_early", "bad", tl_read("it % 8") +
     rep("                lm.wait(consumed, iter=it - 4)\n", "                lm.wait(consumed, iter=it - 5)\n")),
    # the epilogue's fence dropped or swapped with the copy it orders, beside the respelled ring
    ("mod8_no_fence", "bad", tl_read("it % 8") + rep(TLFENCE, "")),
    ("mod8_fence_swapped", "bad", tl_read("it % 8") + rep(TLCOPY + TLFENCE, TLFENCE + TLCOPY)),
    ("mod8_store_wait_dropped", "bad", tl_read("it % 8") + rep("            lm.tma_store_wait(pending=0)\n            lm.copy(smem_c[0]",
                                                               "            lm.copy(smem_c[0]")),
    ("mod6", "bad", tl_read("it % 6")),  # 6 is no multiple of 4: another slot from it = 6 on
    ("mod2", "bad", tl_read("it % 2")),
]

# ---------------------------------------------------------------- twovar: guards on two loop variables
QWAIT = "                lm.wait(full, iter=it)\n"


def guarded(wait, g):
    """The consumer's wait line `wait` run only where `g` holds (a skipped wait: a race)."""
    return rep(wait, f"                if {g}:\n    {wait}")


def qguard(g):
    return guarded(QWAIT, g)


TWOVAR_MUTANTS = [
    ("k_or_t_ne_last", "bad", qguard("k < 3 or t != tiles - 1")),
    ("k_or_t_ne_second_last", "bad", qguard("k < 3 or t + 2 != tiles")),
    ("k_last_or_t", "bad", qguard("k + 1 != k_tiles or t != 1")),
    ("k_or_t_mod3", "bad", qguard("k < 2 or t % 3 != 2")),
    ("k_or_t_ge", "bad", qguard("k < 5 or t < 4")),
    ("k_or_t_tiles_k", "bad", qguard("k < 4 or t * 3 != tiles")),
    ("k_or_t_block", "bad", qguard("k < 3 or t != lm.block_idx(0)")),
    ("k_or_t_block1", "bad", qguard("k < 3 or t != lm.block_idx(0) + 1")),
    ("k_or_t_or_m", "bad", qguard("k < 3 or t != 1 or M < 500")),
    ("not_k_t_m", "bad", qguard("not (k == 4 and t == 2 and K > 300)")),
    ("k_t_diff", "bad", qguard("k - t != 3")),
    ("k_or_t_tautology", "good", qguard("k < 3 or t == t")),
    ("k_or_t_contradiction", "bad", qguard("k < 3 or t != t")),  # k < 3
    ("k_ge0_or_t2", "good", qguard("k >= 0 or t == 2")),
    ("k_lt_ktiles_or", "good", qguard("k < k_tiles or t == 1")),
]

TRITON = strip_header(corpus("bugs/sync.race/triton_ws_persistent_inner_steps_floor_max_unaligned_k_fixed.cake"))
TWAIT = "                lm.wait(full, iter=idx)\n"


def tguard(g):
    return guarded(TWAIT, g)


TRITON_MUTANTS = [
    ("k_or_tile2", "bad", tguard("k < 2 or tile != 2")),
    ("k_or_tile_grid", "bad", tguard("k < 2 or tile != lm.grid_dim(0)")),
    ("k_or_t1", "bad", tguard("k < 2 or t != 1")),
    ("k_or_t1_grid3", "bad", tguard("k < 2 or t != 1 or lm.grid_dim(0) != 3")),
    ("not_k3_t2", "bad", tguard("not (k == 3 and t == 2)")),
    ("k_or_tile_last", "bad", tguard("k < 1 or tile + 1 != lm.cdiv(M, 64)")),
    ("k_or_t_ne_t", "good", tguard("k < 2 or t == t")),
]

# ---------------------------------------------------------------- pairs: counts off their line
FLOOR = strip_header(corpus("bugs/sync.deadlock/sm90_ws_two_slots_producer_bound_floored_fixed.cake"))
PBOUND = "        for k in lm.range(0, 2 * lm.cdiv(K, 128)):\n"
CBOUND = "        for j in lm.range(0, (K + 127) // 128):\n"


def cbound(e):
    return rep(CBOUND, f"        for j in lm.range(0, {e}):\n")


PAIR_MUTANTS = [
    ("cap_sq", "bad", cbound("min((K + 127) // 128, 30 + (K // 128) // 64)")),
    ("cap_two_lines", "bad", cbound("(K + 127) // 128 - (K > 3000) * (K < 3200)")),
    ("quadratic", "bad", cbound("(K + 127) // 128 + ((K // 128) * (K // 128) == 49)")),
    ("floor_3", "bad", cbound("(K + 127) // 128 + (K % 384 == 1) * (K > 1000)")),
    ("half_slope", "bad", cbound("(K + 127) // 128 - (K // 256) * (K > 10000)")),
    ("respelled", "good", cbound("(K - 1) // 128 + 1")),
    ("respelled_cdiv", "good", cbound("lm.cdiv(K + 128, 128) - 1")),
]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    out = args[0]
    index = []
    for name, label, text in BLOCK_MUTANTS:
        s40.write_text(out, "blockrow", name, label, text, index)
    s40.write(out, "tileend", TILEEND, TILEEND_MUTANTS, index)
    s40.write(out, "firstwait", FIRSTWAIT, FIRST_MUTANTS, index)
    s40.write(out, "slotmod", TL, SLOT_MUTANTS, index)
    s40.write(out, "twovar", QE, TWOVAR_MUTANTS, index)
    s40.write(out, "triton", TRITON, TRITON_MUTANTS, index)
    s40.write(out, "pairs", FLOOR, PAIR_MUTANTS, index)
    write_index(out, index)
    run_index_if_asked(out)


if __name__ == "__main__":
    main()
