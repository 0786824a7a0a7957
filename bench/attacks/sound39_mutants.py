#!/usr/bin/env python3
"""Session 39's soundness attack (helper sound39, docs/z3.md "Soundness review,
session 39"): broken mutations of the schedules session 38's proof steps fire
on, written to OUT/<base>/<name>.cake, one per line of the tables below.

    bench/attacks/sound39_mutants.py OUT        # writes the files and OUT/index.tsv

Each mutant is (name, expected, [(from, to), ...]): every `from` must occur
exactly once in the base; `expected` is "bad" (a broken schedule: cake check
must exit 1, the proof must not say proved) or "good" (a correct twin).
Run them with bench/attacks/attack_runner.py OUT [CAKE] (cake check; sound39_run.sh
OUT [CAKE] calls it), or through the proof audit (cake_bench_proof_audit reads files marked `expect: pass` only):

    bench/attacks/sound39_mutants.py OUT --all-pass   # every file marked pass
    build/bench/cake_bench_proof_audit OUT --every=1000000000 --verbose > AUDIT
    bench/attacks/sound39_mutants.py --summary OUT AUDIT

Labels checked by hand where a first guess was wrong (kept "good" below): a
commit's or a count-1 barrier's iter= names its slot only, so committing for
`t + 2` or `it + 3` is the same arrival; `(2 * K + 127) // 128` equals
`(K + 63) // 64` (2K + 127 is never a multiple of 128); under `K <= 256`
`(K + 63) // 64 % 5` is the tile count; a one-instance role's
`lm.instance()` is 0; `(K * K + 63 * K) // (64 * K)` is `(K + 63) // 64`.
"""
import os
import re
import sys

from attack_runner import corpus, read, strip_header, write_index  # (the script's folder is on the path)

ALL_PASS = "--all-pass" in sys.argv  # (for the proof audit, which reads files marked pass only)


def test_kernel(path, name):
    text = read(path)
    m = re.search(r'const std::string ' + name + r' = R"CAKE\((.*?)\)CAKE";', text, re.S)
    return m.group(1).lstrip("\n")


# ---------------------------------------------------------------- K split (ksplit5)
KSPLIT = "gemm/sm100_persistent_two_mma_warps_k_split.cake"
LO_EVEN = "                    lm.mma(tmem_acc0, smem_a[it], smem_b[it], init=(k == 0))\n"
LO_ODD = "                    lm.mma(tmem_acc1, smem_a[it], smem_b[it], init=(k == 0))\n"
HI_EVEN = "                    lm.mma(tmem_acc0, smem_a[it], smem_b[it])\n"
HI_ODD = "                    lm.mma(tmem_acc1, smem_a[it], smem_b[it])\n"
EPI_EVEN = "                    lm.tmem_load(acc_q, tmem_acc0[q:q + 32, h * 64:h * 64 + 64])\n"
EPI_ODD = "                    lm.tmem_load(acc_q, tmem_acc1[q:q + 32, h * 64:h * 64 + 64])\n"
SYNC1 = ("                    lm.tma_store_wait(pending=1)\n"
         "                lm.sync(epi_sync)\n")
SYNC2 = ("                lm.fence_proxy()\n"
         "                lm.sync(epi_sync)\n")


def by_parity(indent, even, odd):
    """`if t % 2 == 0: even else: odd` at `indent` spaces (each a list of lines)."""
    pad = " " * indent
    out = pad + "if t % 2 == 0:\n"
    out += "".join(pad + "    " + l + "\n" for l in even)
    out += pad + "else:\n"
    out += "".join(pad + "    " + l + "\n" for l in odd)
    return out


def sync1(even, odd):
    return "                    lm.tma_store_wait(pending=1)\n" + by_parity(16, even, odd)


def sync2(even, odd):
    return "                lm.fence_proxy()\n" + by_parity(16, even, odd)


S = "lm.sync(epi_sync)"
KSPLIT_MUTANTS = [
    ("lo_odd_into_acc0", "bad", [(LO_ODD, LO_ODD.replace("tmem_acc1", "tmem_acc0"))]),
    ("lo_odd_no_init", "bad", [(LO_ODD, LO_ODD.replace(", init=(k == 0)", ""))]),
    ("lo_odd_init_at_1", "bad", [(LO_ODD, LO_ODD.replace("k == 0", "k == 1"))]),
    ("lo_even_init_at_1", "bad", [(LO_EVEN, LO_EVEN.replace("k == 0", "k == 1"))]),
    ("hi_odd_into_acc0", "bad", [(HI_ODD, HI_ODD.replace("tmem_acc1", "tmem_acc0"))]),
    ("hi_odd_init", "bad", [(HI_ODD, HI_ODD.replace(")\n", ", init=(k == kh))\n"))]),
    ("hi_even_init", "bad", [(HI_EVEN, HI_EVEN.replace(")\n", ", init=(k == kh))\n"))]),
    ("epi_odd_reads_acc0", "bad", [(EPI_ODD, EPI_ODD.replace("tmem_acc1", "tmem_acc0"))]),
    ("epi_even_reads_acc1", "bad", [(EPI_EVEN, EPI_EVEN.replace("tmem_acc0", "tmem_acc1"))]),
    # named barrier generations that differ between the branches
    ("sync1_odd_warp3_skips", "bad",
     [(SYNC1, sync1([S], ["if lm.instance() != 3:", "    " + S]))]),
    ("sync1_odd_extra_all", "good", [(SYNC1, sync1([S], [S, S]))]),
    ("sync1_even_extra_all", "good", [(SYNC1, sync1([S, S], [S]))]),
    ("sync1_odd_extra_w0_even_extra_w123", "bad",
     [(SYNC1, sync1([S, "if lm.instance() != 0:", "    " + S], [S, "if lm.instance() == 0:", "    " + S]))]),
    ("sync2_odd_dropped", "bad", [(SYNC2, sync2([S], ["lm.fence_proxy()"]))]),
    ("sync2_odd_dropped_w0", "bad", [(SYNC2, sync2([S], ["if lm.instance() != 0:", "    " + S]))]),
    ("sync2_even_dropped_w0", "bad", [(SYNC2, sync2(["if lm.instance() != 0:", "    " + S], [S]))]),
    ("sync2_odd_twice_w0", "bad", [(SYNC2, sync2([S], [S, "if lm.instance() == 0:", "    " + S]))]),
    ("sync2_odd_bar_arrive_w0", "bad",
     [(SYNC2, sync2([S], ["if lm.instance() == 0:", "    lm.bar_arrive(epi_sync)", "else:", "    " + S]))]),
    # slots and phases that differ between the branches
    ("acc_empty_odd_early", "bad", [("                if h == 1:\n", "                if h == 1 - t % 2:\n")]),
    ("acc_empty_even_early", "bad", [("                if h == 1:\n", "                if h == t % 2:\n")]),
    ("k_half_odd_two_tiles_on", "good",
     [("            lm.mma_commit(barrier=k_half, iter=t)\n",
       by_parity(12, ["lm.mma_commit(barrier=k_half, iter=t)"], ["lm.mma_commit(barrier=k_half, iter=t + 2)"]))]),
    ("hi_done_odd_two_back", "bad",
     [("            lm.wait(hi_done, iter=t - 1)\n",
       by_parity(12, ["lm.wait(hi_done, iter=t - 1)"], ["lm.wait(hi_done, iter=t - 3)"]))]),
    ("hi_done_even_skipped", "bad",
     [("            lm.wait(hi_done, iter=t - 1)\n", by_parity(12, ["pass"], ["lm.wait(hi_done, iter=t - 1)"]))]),
    ("acc_empty_odd_lap_early", "bad",
     [("            lm.wait(acc_empty, iter=t - 2)\n",
       by_parity(12, ["lm.wait(acc_empty, iter=t - 2)"], ["lm.wait(acc_empty, iter=t - 4)"]))]),
    ("acc_full_odd_lap_early", "bad",
     [("            lm.wait(acc_full, iter=t)\n",
       by_parity(12, ["lm.wait(acc_full, iter=t)"], ["lm.wait(acc_full, iter=t - 2)"]))]),
    ("load_empty_odd_lap_early", "bad",
     [("                lm.wait(empty, iter=it - 3)\n",
       by_parity(16, ["lm.wait(empty, iter=it - 3)"], ["lm.wait(empty, iter=it - 6)"]))]),
    ("lo_full_odd_lap_early", "bad",
     [("                lm.wait(full, iter=it)\n                if t % 2 == 0:\n                    lm.mma(tmem_acc0, smem_a[it], smem_b[it], init=(k == 0))\n",
       "                if t % 2 == 0:\n                    lm.wait(full, iter=it)\n                    lm.mma(tmem_acc0, smem_a[it], smem_b[it], init=(k == 0))\n"),
      (LO_ODD, "                    lm.wait(full, iter=it - 3)\n" + LO_ODD)]),
    ("hi_commit_empty_odd_lap_late", "good",
     [(HI_ODD + "                lm.mma_commit(barrier=empty, iter=it)\n",
       HI_ODD + "                    lm.mma_commit(barrier=empty, iter=it + 3)\n"
       "                if t % 2 == 0:\n                    lm.mma_commit(barrier=empty, iter=it)\n")]),
    ("hi_odd_arrive_hi_done_first", "bad",
     [("            lm.arrive(hi_done, iter=t)\n", ""),
      ("            lm.wait(k_half, iter=t)\n",
       "            lm.wait(k_half, iter=t)\n" + by_parity(12, ["pass"], ["lm.arrive(hi_done, iter=t)"])),
      ("            lm.mma_commit(barrier=acc_full, iter=t)\n",
       by_parity(12, ["lm.arrive(hi_done, iter=t)"], ["pass"]) + "            lm.mma_commit(barrier=acc_full, iter=t)\n")]),
    ("store_odd_other_stage", "bad",
     [("                    smem_d.tma_store(D, coords=(m_blk, n_blk + h * 64), stage=h)\n",
       by_parity(20, ["smem_d.tma_store(D, coords=(m_blk, n_blk + h * 64), stage=h)"],
                 ["smem_d.tma_store(D, coords=(m_blk, n_blk + h * 64), stage=1 - h)"]))]),
    ("copy_odd_other_stage", "bad",
     [("                lm.copy(smem_d[h][q:q + 32, :], acc_q)\n",
       by_parity(16, ["lm.copy(smem_d[h][q:q + 32, :], acc_q)"], ["lm.copy(smem_d[1 - h][q:q + 32, :], acc_q)"]))]),
    ("store_wait_odd_pending2", "bad",
     [("                    lm.tma_store_wait(pending=1)\n",
       by_parity(20, ["lm.tma_store_wait(pending=1)"], ["lm.tma_store_wait(pending=2)"]))]),
    ("fence_odd_dropped", "bad",
     [("                lm.fence_proxy()\n", by_parity(16, ["lm.fence_proxy()"], ["pass"]))]),
    ("tmem_wait_odd_dropped", "bad",
     [("                lm.tmem_load_wait()\n", by_parity(16, ["lm.tmem_load_wait()"], ["pass"]))]),
]


# round 2: the same kinds of difference from a later tile on (the window's
# tiles, its edge, past it)
def late(name, cond_first, first, later, line, indent):
    return (name, "bad", [(line, " " * indent + "if " + cond_first + ":\n" + " " * (indent + 4) + first.strip() + "\n"
                           + " " * indent + "else:\n" + " " * (indent + 4) + later.strip() + "\n")])


for T in (3, 6, 9, 15, 17, 33):
    KSPLIT_MUTANTS += [
        late(f"lo_odd_accumulates_from_t{T}", f"t < {T}", LO_ODD, LO_ODD.replace(", init=(k == 0)", ""), LO_ODD, 20),
        late(f"hi_odd_init_from_t{T}", f"t < {T}", HI_ODD, HI_ODD.replace(")\n", ", init=(k == kh))\n"), HI_ODD, 20),
        late(f"epi_odd_reads_acc0_from_t{T}", f"t < {T}", EPI_ODD, EPI_ODD.replace("tmem_acc1", "tmem_acc0"), EPI_ODD, 20),
        (f"sync2_odd_dropped_w0_from_t{T}", "bad",
         [(SYNC2, sync2([S], [f"if t < {T} or lm.instance() != 0:", "    " + S]))]),
        (f"acc_empty_odd_early_from_t{T}", "bad",
         [("                if h == 1:\n",
           f"                if (h == 1 and (t % 2 == 0 or t < {T})) or (h == 0 and t % 2 == 1 and t >= {T}):\n")]),
    ]

# ---------------------------------------------------------------- fa7's sloped periods
FA7_WAIT = "                    lm.wait(o_ready, iter=g - t - 1)\n"


def fa7_wait_if(cond, then_iter, else_iter):
    return ("                    if " + cond + ":\n"
            "                        lm.wait(o_ready, iter=" + then_iter + ")\n"
            "                    else:\n"
            "                        lm.wait(o_ready, iter=" + else_iter + ")\n")


FA7_MUTANTS = [
    ("own_block_from_d30", "bad", [(FA7_WAIT, fa7_wait_if("g - t < 30", "g - t - 1", "g - t"))]),
    ("early_from_d30", "bad", [(FA7_WAIT, fa7_wait_if("g - t < 30", "g - t - 1", "g - t - 2"))]),
    ("own_block_from_d12", "bad", [(FA7_WAIT, fa7_wait_if("g - t < 12", "g - t - 1", "g - t"))]),
    ("early_from_d12", "bad", [(FA7_WAIT, fa7_wait_if("g - t < 12", "g - t - 1", "g - t - 2"))]),
    ("own_block_from_j30", "bad", [(FA7_WAIT, fa7_wait_if("j < 30", "g - t - 1", "g - t"))]),
    ("early_from_j20", "bad", [(FA7_WAIT, fa7_wait_if("j < 20", "g - t - 1", "g - t - 2"))]),
    ("own_block_from_g40", "bad", [(FA7_WAIT, fa7_wait_if("g < 40", "g - t - 1", "g - t"))]),
    ("early_from_g40", "bad", [(FA7_WAIT, fa7_wait_if("g < 40", "g - t - 1", "g - t - 2"))]),
    ("early_from_t20", "bad", [(FA7_WAIT, fa7_wait_if("t < 20", "g - t - 1", "g - t - 2"))]),
    ("own_block_from_t20", "bad", [(FA7_WAIT, fa7_wait_if("t < 20", "g - t - 1", "g - t"))]),
    ("early_at_d_mod_7", "bad", [(FA7_WAIT, fa7_wait_if("(g - t) % 7 != 6", "g - t - 1", "g - t - 2"))]),
    ("early_when_g_ge_2t_plus_9", "bad", [(FA7_WAIT, fa7_wait_if("g < 2 * t + 9", "g - t - 1", "g - t - 2"))]),
    ("early_when_d_ge_t_plus_9", "bad", [(FA7_WAIT, fa7_wait_if("g - t < t + 9", "g - t - 1", "g - t - 2"))]),
    ("sloped_by_t_over_3", "bad", [(FA7_WAIT, "                    lm.wait(o_ready, iter=g - t - 1 - t // 3)\n")]),
    ("sloped_by_t_over_9", "bad", [(FA7_WAIT, "                    lm.wait(o_ready, iter=g - t - 1 - t // 9)\n")]),
    ("wait_min_d", "bad", [(FA7_WAIT, "                    lm.wait(o_ready, iter=min(g - t - 1, 20))\n")]),
    ("wait_max_d", "good", [(FA7_WAIT, "                    lm.wait(o_ready, iter=max(g - t - 1, 0))\n")]),
    ("corr_skips_rescale_from_d30", "bad",
     [("                if j > 0:\n                    lm.wait(o_done, iter=g - 1)\n",
       "                if j > 0 and g - t < 30:\n                    lm.wait(o_done, iter=g - 1)\n")]),
    ("corr_o_done_early_from_d20", "bad",
     [("                    lm.wait(o_done, iter=g - 1)\n",
       "                    if g - t < 20:\n                        lm.wait(o_done, iter=g - 1)\n"
       "                    else:\n                        lm.wait(o_done, iter=g - 2)\n")]),
    ("corr_store_wait_dropped_from_d20", "bad",
     [("                    lm.tmem_store_wait()\n",
       "                    if g - t < 20:\n                        lm.tmem_store_wait()\n")]),
    ("load_empty_early_from_d25", "bad",
     [("                lm.wait(v_empty, iter=g - 2)\n",
       "                if g - t < 25:\n                    lm.wait(v_empty, iter=g - 2)\n"
       "                else:\n                    lm.wait(v_empty, iter=g - 4)\n")]),
    ("soft_p_empty_early_from_d25", "bad",
     [("                lm.wait(p_empty, iter=g - 1)\n",
       "                if g - t < 25:\n                    lm.wait(p_empty, iter=g - 1)\n"
       "                else:\n                    lm.wait(p_empty, iter=g - 2)\n")]),
    ("o_empty_early_from_t20", "bad",
     [("                    lm.wait(o_empty, iter=t - 1)\n",
       "                    if t < 20:\n                        lm.wait(o_empty, iter=t - 1)\n"
       "                    else:\n                        lm.wait(o_empty, iter=t - 2)\n")]),
]


for T in (5, 9, 13, 15, 16, 17, 31, 33, 64):
    FA7_MUTANTS += [
        (f"own_block_from_t{T}", "bad", [(FA7_WAIT, fa7_wait_if(f"t < {T}", "g - t - 1", "g - t"))]),
        (f"early_from_t{T}", "bad", [(FA7_WAIT, fa7_wait_if(f"t < {T}", "g - t - 1", "g - t - 2"))]),
        (f"o_empty_early_from_t{T}", "bad",
         [("                    lm.wait(o_empty, iter=t - 1)\n",
           f"                    if t < {T}:\n                        lm.wait(o_empty, iter=t - 1)\n"
           "                    else:\n                        lm.wait(o_empty, iter=t - 2)\n")]),
        (f"corr_arrives_early_from_t{T}", "bad",
         [("                    lm.tmem_store_wait()\n",
           f"                    if t < {T}:\n                        lm.tmem_store_wait()\n")]),
    ]

# ---------------------------------------------------------------- bounds38's respelled bounds
SPELLED = "bugs/data.stale-read/sm90_table_row_tile_count_spelled_apart_first_tile_only_fixed.cake"
CONS_LOOP = "        for t in lm.range(0, (K + 63) // 64):\n"


def cons_bound(expr):
    return [(CONS_LOOP, "        for t in lm.range(0, " + expr + "):\n")]


BOUNDS_MUTANTS = [
    ("k_over_64_plus_corner_200", "bad", cons_bound("(K + 63) // 64 + K // 200 - K // 201")),
    ("k_over_64_plus_corner_250", "bad", cons_bound("(K + 63) // 64 + K // 250 - K // 251")),
    ("min_3", "bad", cons_bound("min((K + 63) // 64, 3)")),
    ("min_4", "good", cons_bound("min((K + 63) // 64, 4)")),
    ("max_1", "good", cons_bound("max((K + 63) // 64, 1)")),
    ("max_2", "bad", cons_bound("max((K + 63) // 64, 2)")),
    ("k_plus_62", "bad", cons_bound("(K + 62) // 64")),
    ("k_plus_64", "bad", cons_bound("(K + 64) // 64")),
    ("cdiv_k_plus_1", "bad", cons_bound("lm.cdiv(K + 1, 64)")),
    ("cdiv_k_minus_1_plus_1", "bad", cons_bound("lm.cdiv(K - 1, 64) + 1")),
    ("k_minus_1_over_64_plus_1", "good", cons_bound("(K - 1) // 64 + 1")),
    ("cdiv_2k_128", "good", cons_bound("lm.cdiv(2 * K, 128)")),
    ("cdiv_2k_plus_1_128", "bad", cons_bound("lm.cdiv(2 * K + 1, 128)")),
    ("k_plus_63_over_64_times_1", "good", cons_bound("(K + 63) // 64 * 1")),
    ("two_k_plus_126_over_128", "good", cons_bound("(2 * K + 126) // 128")),
    ("two_k_plus_127_over_128", "good", cons_bound("(2 * K + 127) // 128")),
    ("k_over_64_plus_rest", "good", cons_bound("K // 64 + (K % 64 > 0)")),
    ("cdiv_cdiv_32_2", "good", cons_bound("lm.cdiv(lm.cdiv(K, 32), 2)")),
    ("cdiv_cdiv_48_2", "bad", cons_bound("lm.cdiv(lm.cdiv(K, 48), 2)")),
    ("cdiv_neg", "bad", cons_bound("-lm.cdiv(-K, 64)")),
    ("cdiv_k_neg64", "bad", cons_bound("-lm.cdiv(K, -64)")),
    ("floor_of_neg", "good", cons_bound("-((-K) // 64)")),
    ("k_plus_63_over_64_mod_5", "good", cons_bound("(K + 63) // 64 % 5 + (K > 256)")),
    ("instance_term", "good", cons_bound("(K + 63 + lm.instance()) // 64")),
    ("k_times_k", "good", cons_bound("(K * K + 63 * K) // (64 * K)")),
    ("block_term", "bad", cons_bound("(K + 63) // 64 + lm.block_idx(0)")),
    ("grid_term", "bad", cons_bound("(K + 63) // 64 + lm.grid_dim(0) - 1")),
    ("offset_2_apart", "bad",
     [("        for t in lm.range(0, lm.cdiv(K, 64)):\n", "        for t in lm.range(0, lm.cdiv(K, 64) + 1):\n"),
      (CONS_LOOP, "        for t in lm.range(0, (K + 63) // 64 - 1):\n")]),
    ("offset_both_1", "good",
     [("        for t in lm.range(0, lm.cdiv(K, 64)):\n", "        for t in lm.range(0, lm.cdiv(K, 64) + 1):\n"),
      (CONS_LOOP, "        for t in lm.range(0, (K + 63) // 64 + 1):\n")]),
    ("start_1_both", "good",
     [("        for t in lm.range(0, lm.cdiv(K, 64)):\n", "        for t in lm.range(1, lm.cdiv(K, 64)):\n"),
      (CONS_LOOP, "        for t in lm.range(1, (K + 63) // 64):\n")]),
    ("start_1_cons", "bad", [(CONS_LOOP, "        for t in lm.range(1, (K + 63) // 64):\n")]),
    ("step_2_cons", "bad", [(CONS_LOOP, "        for t in lm.range(0, (K + 63) // 64, 2):\n")]),
]
BOUNDS_FACTS = [
    # the facts move: the corner where the spellings differ is allowed
    ("fact_k_le_257_k_plus_62", "bad",
     [("    lm.assume(K <= 256)\n", "    lm.assume(K <= 257)\n")] + cons_bound("(K + 62) // 64 + (K == 257) - (K == 257)")),
    ("fact_k_mod_64_k_over_64", "good",
     [("    lm.assume(K <= 256)\n", "    lm.assume(K <= 256)\n    lm.assume(K % 64 == 0)\n")] + cons_bound("K // 64")),
    ("fact_k_mod_32_k_over_64", "bad",
     [("    lm.assume(K <= 256)\n", "    lm.assume(K <= 256)\n    lm.assume(K % 32 == 0)\n")] + cons_bound("K // 64")),
    ("fact_k_ge_64_max", "bad",
     [("    lm.assume(K > 0)\n", "    lm.assume(K > 63)\n")] + cons_bound("max((K + 63) // 64, 2)")),
    ("fact_k_ge_63_max", "bad",
     [("    lm.assume(K > 0)\n", "    lm.assume(K > 62)\n")] + cons_bound("max((K + 63) // 64, 2)")),
]

# ---------------------------------------------------------------- cover38's reach targets
RING = "basics/release_every_block_proved.cake"
RING_WAIT = "            lm.wait(full, iter=k)\n"
RING_ARRIVE = "            lm.arrive(empty, iter=k)\n"


def ring_wait(it):
    return [(RING_WAIT, "            lm.wait(full, iter=" + it + ")\n")]


def ring_arrive_unless(cond):
    return [(RING_ARRIVE, "            if " + cond + ":\n                lm.arrive(empty, iter=k)\n")]


COVER_MUTANTS = [
    ("w_2k_plus_50_eq_T", "bad", ring_wait("k - (2 * k + 50 == k_tiles)")),
    ("w_k_eq_T_minus_600", "bad", ring_wait("k - (k == k_tiles - 600)")),
    ("w_k_sq_900", "bad", ring_wait("k - (k * k == 900)")),
    ("w_k_mod_37", "bad", ring_wait("k - 2 * (k % 37 == 36)")),
    ("w_min_k_40", "bad", ring_wait("min(k, 40)")),
    ("w_k_gt_half_plus_30", "bad", ring_wait("k - (k > k_tiles // 2 + 30)")),
    ("w_k_plus_K_mod_97", "bad", ring_wait("k - ((k + K) % 97 == 0)")),
    ("w_k_div_45_lap", "bad", ring_wait("k - 2 * (k // 45)")),
    ("w_k_and_T", "bad", ring_wait("k - (k > 40 and k_tiles > 50)")),
    ("a_skip_3k_150", "bad", ring_arrive_unless("k * 3 != 150")),
    ("a_skip_k_sq_2500", "bad", ring_arrive_unless("k * k != 2500")),
    ("a_skip_k_mod_41_last", "bad", ring_arrive_unless("k % 41 != 40")),
    ("a_skip_k_T_minus_600", "bad", ring_arrive_unless("k + 600 != k_tiles")),
    ("a_skip_k_T_minus_700", "bad", ring_arrive_unless("k + 700 != k_tiles")),
]


def write(out, base_name, base_text, mutants, index):
    d = os.path.join(out, base_name)
    os.makedirs(d, exist_ok=True)
    base = strip_header(base_text)
    for name, expected, edits in mutants:
        text = base
        for a, b in edits:
            n = text.count(a)
            if n != 1:
                sys.exit(f"{base_name}/{name}: {n} matches of {a!r}")
            text = text.replace(a, b)
        path = os.path.join(d, name + ".cake")
        with open(path, "w") as f:
            label = "pass" if expected == "good" or ALL_PASS else "bug"
            f.write(f"# sound39 mutant of {base_name}: {name}\n# expect: {label}\n")
            f.write(text)
        index.append((os.path.relpath(path, out), expected))


def summary(out, audit):
    """Counts per (label, audit verdict), and each broken file proved or passed."""
    labels = dict(l.split() for l in open(os.path.join(out, "index.tsv")))
    counts, holes = {}, []
    for line in open(audit):
        m = re.match(r"(?:DISCREPANCY )?(\S+\.cake) \S+ (\S+)(.*)", line)
        if not m:
            continue
        rel = os.path.relpath(m.group(1), os.path.basename(out.rstrip("/"))) if not m.group(1).startswith("/") else m.group(1)
        key = next((k for k in labels if m.group(1).endswith(k)), None)
        if key is None:
            continue
        verdict = m.group(2) + (" proof-proved" if "proof-on-broken=proved" in m.group(3) else "")
        counts[(labels[key], verdict)] = counts.get((labels[key], verdict), 0) + 1
        if labels[key] == "bad" and m.group(2) in ("proved", "checked") or "proof-on-broken=proved" in m.group(3):
            holes.append(line.strip())
    for k in sorted(counts):
        print(counts[k], *k)
    for h in holes:
        print("HOLE?", h)


def main():
    if sys.argv[1] == "--summary":
        return summary(sys.argv[2], sys.argv[3])
    out = sys.argv[1]
    index = []
    write(out, "ksplit", corpus(KSPLIT), KSPLIT_MUTANTS, index)
    write(out, "fa7", test_kernel("tests/encoder/persistent_kernels.h", "kRingMinusTile"), FA7_MUTANTS, index)
    write(out, "bounds", corpus(SPELLED), BOUNDS_MUTANTS + BOUNDS_FACTS, index)
    write(out, "cover", corpus(RING), COVER_MUTANTS, index)
    write_index(out, index)


if __name__ == "__main__":
    main()
