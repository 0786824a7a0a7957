#!/usr/bin/env python3
"""Session 43's soundness attack (helper sound43, docs/z3.md "Soundness review,
session 43"): broken mutations of the schedules session 42's steps newly
prove or newly accept, and correct twins, written to OUT/<base>/<name>.cake
(sound40_mutants.py's format and runner):

    bench/attacks/sound43_mutants.py OUT          # writes the files and OUT/index.tsv
    bench/attacks/sound41_run.py OUT [CAKE]       # cake check on each (sound40_run.py's counts)

Targets (one base each):
* fa4y (`ring`): TripFa11's peeking kernel, whose peek reads `smem_k[g0]`
  (g0 = t * n_blocks) before the MMA's K loop: ring starts off by one, reads
  that are not the peek's first access of the index, the hand-off broken.
* respell42 (`flat`): the flat K loop of the re-spelled TileLang pair,
  `lm.range(w * k_blocks, (w + 1) * k_blocks)`: bounds that differ from the
  other loops' `k_blocks` at one value, respellings equal for every value.
* cover42 (`residue`): the split-K range's wait behind a residue guard,
  with one extra fact whose residue spelling fixes the case or hides a wrong
  one (labelled by cover42_guards.py's enumeration; a fact allowing a
  residue only past the enumerated values is labelled by hand).
* sound42 (`stride`): Triton #2146's stride respelled so that it differs
  from the trip count at one block, one grid size or one tile count.
* hunt42b (`cpasync`): Triton's one-i32 cp.async ring with slots of other
  row widths and offsets: `layout.misaligned` exactly where the slot is not
  aligned to the chunk the lowering copies (ir::cpAsyncChunkBytes).
* ir42 (`ir`): the corpus GEMM written with positional arguments, tabs,
  `lm.range(hi)` and pipeline depths, and broken forms of each.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cover42_guards as c42  # noqa: E402
import sound40_mutants as s40  # noqa: E402
from attack_runner import corpus, read, strip_header, write_index  # noqa: E402


def raw_cake(path, name):
    """A C++ raw string `name = R"CAKE(...)CAKE"` of a test file."""
    text = read(path)
    return re.search(name + r' = R"CAKE\((.*?)\)CAKE";', text, re.S).group(1).lstrip("\n")


# ---------------------------------------------------------------- fa4y: reads named by the ring start
PEEK = raw_cake("tests/encoder/trip_fa11_test.cpp", "kPeekKernel")
PWAIT = "            lm.wait(k_full, iter=g0)\n"
PREAD = "            lm.copy(kf, smem_k[g0])\n"
PG0 = "            g0 = t * n_blocks\n"
PDONE = "            lm.arrive(peek_done, iter=t)\n"
PFREE_WAIT = "            lm.wait(peek_free, iter=t - 1)\n"
PFENCE = "            lm.fence_proxy()\n"
PKLOOP = "            for j in lm.range(0, n_blocks):\n                lm.fill(r, 0.0)\n"
MDONE = "            lm.wait(peek_done, iter=t)\n"
MFREE = "            lm.arrive(peek_free, iter=t)\n"
MG = "                g = t * n_blocks + j\n                lm.wait(k_full, iter=g)\n                lm.wait(s_empty"


def peek(wait=PWAIT, read=PREAD):
    return [(PWAIT + PREAD, wait + read)]


RING_MUTANTS = [
    ("base", "good", []),
    # ring starts off by one
    ("wait_next_read_g0", "bad", peek(wait="            lm.wait(k_full, iter=g0 + 1)\n")),
    ("both_g0_plus1", "bad", [(PG0, "            g0 = t * n_blocks + 1\n")]),
    ("both_g0_minus1", "bad", [(PG0, "            g0 = t * n_blocks - 1\n")]),
    ("both_prev_tile_first", "bad", peek("            if t > 0:\n                lm.wait(k_full, iter=g0 - n_blocks)\n",
                                          "            if t > 0:\n                lm.copy(kf, smem_k[g0 - n_blocks])\n")),
    ("both_last_of_tile", "bad", peek("            lm.wait(k_full, iter=g0 + n_blocks - 1)\n",
                                      "            lm.copy(kf, smem_k[g0 + n_blocks - 1])\n")),
    ("read_next_at_t2", "bad", peek(read=PREAD + "            if t == 2:\n                lm.copy(kf, smem_k[g0 + 1])\n")),
    # the ring start spelled otherwise (equal for every value)
    ("g0_respelled", "good", [(PG0, "            g0 = (t + 1) * n_blocks - n_blocks\n")]),
    ("g0_commuted", "good", [(PG0, "            g0 = n_blocks * t\n")]),
    ("mma_g_commuted", "good", [(MG, MG.replace("t * n_blocks + j", "j + n_blocks * t"))]),
    # reads that are not the peek's first access of the index
    ("read_twice", "good", peek(read=PREAD + PREAD)),
    ("read_twice_after_done", "bad", peek(read=PREAD) + [(PDONE, PDONE + PREAD)]),
    ("read_after_done", "bad", peek(read="") + [(PDONE, PDONE + PREAD)]),
    ("kloop_reads_ring", "bad", [(PKLOOP, "            for j in lm.range(0, n_blocks):\n                lm.wait(k_full, iter=g0 + j)\n"
                                          "                lm.copy(kf, smem_k[g0 + j])\n")]),
    ("kloop_reads_first_again", "bad", [(PKLOOP, "            for j in lm.range(0, n_blocks):\n                lm.copy(kf, smem_k[g0])\n")]),
    ("read_only_t0", "good", peek(read="            if t == 0:\n                lm.copy(kf, smem_k[g0])\n")),
    ("read_from_t1", "good", peek(read="            if t >= 1:\n                lm.copy(kf, smem_k[g0])\n")),
    # the hand-off broken
    ("mma_waits_prev_peek", "bad", [(MDONE, "            lm.wait(peek_done, iter=t - 1)\n")]),
    ("peek_no_free_wait", "bad", [(PFREE_WAIT, "")]),
    # (the peek runs a tile ahead and waits k_full two phases early: sync.stale-phase)
    ("peek_free_early", "bad", [(MFREE, ""), (MDONE, MDONE + "            lm.arrive(peek_free, iter=t)\n")]),
    ("peek_free_wait_t2", "bad", [(PFREE_WAIT, "            lm.wait(peek_free, iter=t - 2)\n")]),
    ("no_fence", "bad", [(PFENCE, "")]),
    ("fence_from_t1", "bad", [(PFENCE, "            if t >= 1:\n                lm.fence_proxy()\n")]),
    ("peek_waits_only_t0", "bad", peek(wait="            if t == 0:\n                lm.wait(k_full, iter=g0)\n")),
]

# ---------------------------------------------------------------- respell42: the flat K loop's bound
FLAT = corpus("bugs/data.stale-read/tilelang_ws_persistent_slot_k_vs_phase_fixed_respelled.cake")
FRANGE = "            for it in lm.range(w * k_blocks, (w + 1) * k_blocks):\n                k = it - w * k_blocks\n"
FWAIT = "                lm.wait(consumed, iter=it - 4)\n"


def flat(lo, hi, k="it - w * k_blocks"):
    return [(FRANGE, f"            for it in lm.range({lo}, {hi}):\n                k = {k}\n")]


FLAT_MUTANTS = [
    ("base", "good", []),
    ("hi_plus_one_at_k", "bad", flat("w * k_blocks", "(w + 1) * k_blocks + (K == 640)")),
    ("hi_minus_one_at_k", "bad", flat("w * k_blocks", "(w + 1) * k_blocks - (K == 640)")),
    ("hi_plus_one_at_tile1", "bad", flat("w * k_blocks", "(w + 1) * k_blocks + (w == 1)")),
    ("hi_plus_one_at_m", "bad", flat("w * k_blocks", "(w + 1) * k_blocks + (M == 300)")),
    ("hi_capped", "bad", flat("w * k_blocks", "min((w + 1) * k_blocks, w * k_blocks + 9)")),
    ("hi_plus_one_sq", "bad", flat("w * k_blocks", "(w + 1) * k_blocks + (k_blocks * k_blocks == 9)")),
    ("hi_floor_half", "bad", flat("w * k_blocks", "((2 * w + 2) * k_blocks + 1) // 2 + (k_blocks == 3)")),
    ("lo_minus_one", "bad", flat("w * k_blocks - (w == 2)", "(w + 1) * k_blocks", "it - w * k_blocks + (w == 2)")),
    ("hi_sum", "good", flat("w * k_blocks", "w * k_blocks + k_blocks")),
    ("hi_cdiv", "good", flat("w * lm.cdiv(K, 64)", "(w + 1) * lm.cdiv(K, 64)", "it - w * lm.cdiv(K, 64)")),
    ("hi_floor", "good", flat("w * ((K + 63) // 64)", "(w + 1) * ((K + 63) // 64)", "it - w * ((K + 63) // 64)")),
    ("hi_floor_exact", "good", flat("w * k_blocks", "((2 * w + 2) * k_blocks + 1) // 2")),
    ("shifted_by_one", "good", flat("w * k_blocks + 1", "(w + 1) * k_blocks + 1", "it - w * k_blocks - 1") +
     [(FWAIT, "                lm.wait(consumed, iter=it - 1 - 4)\n"),
      ("                smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it, barrier=loaded)\n"
       "                smem_b.tma_load(B, coords=(n_blk, k * 64), iter=it, barrier=loaded)\n",
       "                smem_a.tma_load(A, coords=(m_blk, k * 64), iter=it - 1, barrier=loaded)\n"
       "                smem_b.tma_load(B, coords=(n_blk, k * 64), iter=it - 1, barrier=loaded)\n")]),
    ("hi_other_params", "good", flat("w * k_blocks", "(w + 1) * k_blocks + num_tiles - num_tiles")),
    # (a later slot's release: the commit of iteration 2 completes after iteration 1's MMA, correct)
    ("wait_later_at_5", "good", [(FWAIT, "                lm.wait(consumed, iter=it - 4 + (it == 5))\n")]),
    ("wait_earlier_at_5", "bad", [(FWAIT, "                lm.wait(consumed, iter=it - 4 - (it == 5))\n")]),
]

# ---------------------------------------------------------------- cover42: residues of facts in any spelling
RESIDUE_FACTS = [
    ("or_seven", "{P} % 3 == 0 or {P} == 7"),
    ("or_mod6_4", "{P} % 6 == 0 or {P} % 6 == 4"),
    ("square0", "({P} * {P}) % 3 == 0"),
    ("square1", "({P} * {P}) % 3 == 1"),
    ("cdiv0", "lm.cdiv({P}, 3) * 3 == {P}"),
    ("cdiv1", "lm.cdiv({P}, 3) * 3 == {P} + 2"),
    ("floor1", "{P} // 3 * 3 == {P} - 1"),
    ("mod6_mod3_1", "({P} % 6) % 3 == 1"),
    ("negdiv0", "{P} % -3 == 0"),
    ("negdiv1", "{P} % -3 == -2"),
    ("with_k", "({P} + K) % 3 == 0"),
    ("or_small_k", "{P} % 3 == 0 or K < 640"),
    ("or_far", "{P} % 3 == 0 or {P} > 100000"),
    ("or_negative", "{P} % 3 == 0 or {P} < 0"),
    ("max1", "max({P} % 3, 1) == 1"),
    ("min0", "min({P} % 3, 1) == 0"),
    ("not_0_not_2", "not ({P} % 3 == 0) and not ({P} % 3 == 2)"),
    ("times2_mod6", "{P} * 2 % 6 == 2"),
    ("mod9_3", "{P} % 9 == 3"),
    ("mod9_4", "{P} % 9 == 4"),
]
RESIDUE_GUARDS = [("or_residue1", "{L} < {N} or {P} % 3 != 1"),
                  ("not_and_residue", "not ({L} >= {N} and {P} % 3 == 0 and {B} == 1)")]
# broken only past the enumerated values: kpc = 100003 (residue 1) runs 6 iterations and more
RESIDUE_BY_HAND = {("or_residue1", "or_far"): "bad"}


def residue_mutants():
    base = c42.bases()[0]
    out = []
    for (gname, g) in RESIDUE_GUARDS:
        for fname, f in RESIDUE_FACTS:
            guard = g.format(L="k - k0", B="lm.block_idx(1)", P="kpc", N=6)
            fact = f.format(P="kpc")
            label = RESIDUE_BY_HAND.get((gname, fname)) or ("bad" if base.skips(guard, fact) else "good")
            out.append((f"{gname}_{fname}", label, base.mutant(guard, fact)))
    return out


# whole guards that read a second loop variable (the persistent ring's t
# beside its k): cover42 left their goal the loop part alone (docs/z3.md
# "Guards combined with and/or/not"), so a binding that flips the part where
# the other loop variable keeps the wait could be taken for the flip.
TWO_VAR_GUARDS = [
    ("k6_or_t_ne1", "k < 6 or t != 1"),
    ("k6_or_t_ne2", "k < 6 or t != 2"),
    ("not_k40_and_t1", "not (k >= 40 and t == 1)"),
    ("k6_or_t_lt3", "k < 6 or t < 3"),
    ("k_plus_t", "k + t < 9"),
    ("k6_or_t1_or_block", "k < 6 or t != 1 or lm.block_idx(0) != 2"),
    ("k7_t2_only", "k != 7 or t != 2"),
    ("k6_or_t_even", "k < 6 or t % 2 == 0"),
    ("k6_or_not_last_tile", "k < 6 or t != tiles - 1"),
    ("last_k_of_t2", "k < k_tiles - 1 or t != 2"),
    ("k6_or_t1_or_m", "k < 6 or t != 1 or M % 3 != 0"),
    ("k_times_t", "k < 6 or t * k_tiles < 40"),
    ("k_ge0_or_t1", "k >= 0 or t != 1"),
    ("k_far_or_t1", "k < 30000000 or t != 1"),
]
# broken only where k_tiles > 30000000 (K > 1.92e9): past the enumeration
TWO_VAR_BY_HAND = {"k_far_or_t1": "bad"}


def two_var_mutants():
    base = c42.bases()[1]
    return [(name, TWO_VAR_BY_HAND.get(name) or ("bad" if base.skips(g, None) else "good"), base.mutant(g, None))
            for name, g in TWO_VAR_GUARDS]


# ---------------------------------------------------------------- sound42: stride corners
TRITON = "bugs/sync.race/triton_ws_persistent_inner_steps_floor_max_unaligned_k_fixed.cake"
STEPS = "    num_inner_loop_steps = max(K // 64, 1)\n"
CIDX = ("                idx = t * num_inner_loop_steps + k\n                lm.wait(full")


def steps(expr):
    return [(STEPS, f"    num_inner_loop_steps = {expr}\n")]


STRIDE_MUTANTS = [
    ("at_block1_grid3", "bad", steps("max(K // 64, 1) + (lm.grid_dim(0) == 3) * (lm.block_idx(0) == 1)")),
    ("at_m640_k64", "bad", steps("max(K // 64, 1) + (M == 640) * (K == 64)")),
    ("at_three_tiles", "bad", steps("max(K // 64, 1) + (lm.cdiv(max(lm.cdiv(M, 64) - lm.block_idx(0), 0), lm.grid_dim(0)) == 3)")),
    ("at_k128_many_m", "bad", steps("max(K // 64, 1) * (1 + (K == 128) * (M > 192))")),
    ("at_k_mod128_grid", "bad", steps("max(K // 64, 1) + (K % 128 == 64) * (lm.grid_dim(0) > 1)")),
    ("cdiv_minus_grid2", "bad", steps("lm.cdiv(K, 64) - (K == 320) * (lm.grid_dim(0) == 2)")),
    ("unaligned_term", "good", steps("max(K // 64 + (K % 64 != 0) * (K > 64), 1)")),
    ("grid_term_zero", "good", steps("max(K // 64, 1) + (lm.grid_dim(0) == 0)")),
    ("consumer_block1_k192", "bad", [(CIDX, "                idx = t * (num_inner_loop_steps + (K == 192) * (lm.block_idx(0) == 1)) + k\n"
                                            "                lm.wait(full")]),
]

# ---------------------------------------------------------------- hunt42b: cp.async chunks
CP = corpus("bugs/sync.race/triton_swp_later_cluster_use_one_buffer_fixed.cake")
CPVIEW = "    idx  = pool.view(offset=0, shape=(1, 1), dtype=lm.i32, stages=2)\n"
CPREG = "    v    = lm.regs(shape=(1, 1), dtype=lm.i32)\n"
DT_BYTES = {"lm.i32": 4, "lm.f32": 4, "lm.f16": 2, "lm.bf16": 2}


def chunk(row_bytes):
    return next((c for c in (16, 8, 4) if row_bytes % c == 0), 0)


def cp_mutant(offset, rows, cols, dtype):
    """The ring's slots at `offset`, rows x cols of dtype; "bad" iff a slot
    start is not aligned to the chunk the lowering copies a row with (the
    element where no chunk divides the row) or the view does not start on
    16 bytes (every view does, docs/rules/layout.misaligned.md). Slot s
    starts at offset + s * rows * row bytes, a multiple of the chunk past
    the view's start, so only the start can break the chunk's alignment."""
    eb = DT_BYTES[dtype]
    need = max(chunk(cols * eb) or eb, 16)
    label = "good" if offset % need == 0 else "bad"
    name = f"off{offset}_{rows}x{cols}_{dtype[3:]}"
    return (name, label, [(CPVIEW, f"    idx  = pool.view(offset={offset}, shape=({rows}, {cols}), dtype={dtype}, stages=2)\n"),
                          (CPREG, f"    v    = lm.regs(shape=({rows}, {cols}), dtype={dtype})\n")])


CP_MUTANTS = [cp_mutant(o, r, c, d) for o, r, c, d in [
    (4, 1, 2, "lm.i32"), (8, 1, 2, "lm.i32"), (8, 1, 4, "lm.i32"), (16, 1, 4, "lm.i32"), (4, 1, 3, "lm.i32"),
    (12, 2, 3, "lm.f32"), (2, 1, 1, "lm.f16"), (2, 1, 3, "lm.f16"), (2, 2, 2, "lm.f16"), (4, 2, 2, "lm.f16"),
    (6, 1, 4, "lm.f16"), (8, 1, 4, "lm.f16"), (24, 1, 8, "lm.bf16"), (32, 2, 8, "lm.bf16"), (4, 2, 1, "lm.i32"),
    (1, 1, 1, "lm.f16"), (2, 1, 1, "lm.i32"), (16, 3, 3, "lm.f16"), (16, 1, 3, "lm.i32"), (32, 5, 1, "lm.f16"),
    (16, 2, 6, "lm.f16"), (48, 1, 2, "lm.i32"),
]]

# ---------------------------------------------------------------- ir42: positions, tabs, lm.range(hi), depths
def ir_base():
    """The split-K range with its declarations by position (IR.md's order)."""
    return c42.raw_string("tests/encoder/split_k_range.h", "kSplitKRange")


SK_A = "    smem_a = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=4, swizzle=\"128B\")\n"
SK_B = "    smem_b = pool.view(offset=65536, shape=(128, 64), dtype=lm.bf16, stages=4, swizzle=\"128B\")\n"
SK_FULL = "    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)\n"
SK_EMPTY = "    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)\n"
SK_PWAIT = "            lm.wait(empty, iter=k - k0 - 4)\n"
SK_PLOOP = "        for k in lm.range(k0, k1):\n            lm.wait(empty"
SK_MMA = "            lm.mma(acc, smem_a[k - k0][m0:m0 + 64, :], smem_b[k - k0], init=False)\n"
SK_ROLE = "    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4)\n"
POS_A = "    smem_a = pool.view(0, (128, 64), lm.bf16, {s}, \"128B\")\n"
POS_B = "    smem_b = pool.view(65536, (128, 64), lm.bf16, {s}, \"128B\")\n"
POS_FULL = "    full  = lm.barrier(4, [producer], [consumers], 1, pipe)\n"
POS_EMPTY = "    empty = lm.barrier(4, [consumers], [producer], 2, pipe)\n"


SK_PIPE = "    pipe  = lm.pipeline(stages=4)\n"


def depth_views(stages):
    """The views' depth given by the pipeline (declared before them), of `stages` stages."""
    return [(SK_PIPE, ""), (SK_A, f"    pipe  = lm.pipeline(stages={stages})\n" + SK_A.replace("stages=4", "pipeline=pipe")),
            (SK_B, SK_B.replace("stages=4", "stages=pipe"))]


def positional(stages_a="4", stages_b="4", full=POS_FULL, empty=POS_EMPTY):
    return [(SK_A, POS_A.format(s=stages_a)), (SK_B, POS_B.format(s=stages_b)), (SK_FULL, full), (SK_EMPTY, empty)]


def tabs(text):
    """Every indentation level one tab (consistent: Python accepts it)."""
    return "\n".join(re.sub(r"^((?:    )+)", lambda m: "\t" * (len(m.group(1)) // 4), l) for l in text.split("\n"))


IR_MUTANTS = [
    ("positional", "good", positional()),
    ("positional_stages3", "bad", positional("3", "3")),
    ("positional_init1_empty", "bad", positional(empty="    empty = lm.barrier(4, [consumers], [producer], 1, pipe)\n")),
    ("positional_swapped_dirs", "bad", positional(full="    full  = lm.barrier(4, [consumers], [producer], 1, pipe)\n")),
    ("positional_count2", "bad", positional(full="    full  = lm.barrier(2, [producer], [consumers], 1)\n",
                                            empty="    empty = lm.barrier(2, [consumers], [producer], 2)\n")),
    ("positional_mma", "good", [(SK_MMA, "            lm.mma(acc, smem_a[k - k0][m0:m0 + 64, :], smem_b[k - k0], False)\n")]),
    ("positional_role_group2", "bad", [(SK_ROLE, "    consumers = lm.role([4, 5, 6, 7, 8, 9, 10, 11], 8)\n")]),
    ("view_stages_wait", "good", [(SK_PWAIT, "            lm.wait(empty, iter=k - k0 - smem_a.stages)\n")]),
    ("pipe_stages_wait", "good", [(SK_PWAIT, "            lm.wait(empty, iter=k - k0 - pipe.stages)\n")]),
    ("barrier_count_wait", "good", [(SK_PWAIT, "            lm.wait(empty, iter=k - k0 - full.count)\n")]),
    ("view_stages_wait_off", "bad", [(SK_PWAIT, "            lm.wait(empty, iter=k - k0 - smem_a.stages - 1)\n")]),
    ("view_pipeline_depth", "good", depth_views(4)),
    ("view_pipeline_depth3", "bad", depth_views(3)),
    ("range_hi_from_zero", "good", [(SK_PLOOP, "        for kk in lm.range(k1 - k0):\n            k = kk + k0\n            lm.wait(empty")]),
    ("range_hi_one_short", "bad", [(SK_PLOOP, "        for kk in lm.range(k1 - k0 - 1):\n            k = kk + k0\n            lm.wait(empty")]),
]


def main():
    out = sys.argv[1]
    index = []
    s40.write(out, "ring", PEEK, RING_MUTANTS, index)
    s40.write(out, "flat", FLAT, FLAT_MUTANTS, index)
    for name, label, text in residue_mutants():
        s40.write_text(out, "residue", name, label, strip_header(text), index)
    for name, label, text in two_var_mutants():
        s40.write_text(out, "twovar", name, label, strip_header(text), index)
    s40.write(out, "stride", corpus(TRITON), STRIDE_MUTANTS, index)
    s40.write(out, "cpasync", CP, CP_MUTANTS, index)
    ir = strip_header(ir_base())
    s40.write(out, "ir", ir, IR_MUTANTS, index)
    s40.write_text(out, "ir", "tabs", "good", tabs(ir), index)
    # a tab where Python's two measures disagree (TabError): rejected, never read at some depth
    for name, indent in (("tabs_mixed_three", "\t\t\t"), ("tabs_mixed_tab4", "\t    ")):
        s40.write_text(out, "ir", name, "bad", s40.edited(ir, [("            lm.wait(full, iter=k - k0)\n",
                                                                 indent + "lm.wait(full, iter=k - k0)\n")]), index)
    write_index(out, index)


if __name__ == "__main__":
    main()
