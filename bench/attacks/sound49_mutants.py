#!/usr/bin/env python3
"""Session 49's soundness attack (helper sound49, docs/z3.md "Soundness review,
session 49"): broken schedules aimed at the paths session 48 added, with
correct twins, written to OUT/<base>/<label>_<name>.cake, then `cake check`
on each:

    bench/attacks/sound49_mutants.py OUT                # writes the files
    bench/attacks/sound49_mutants.py OUT --run [CAKE]   # also runs cake check on each

A "bad" schedule is broken: `cake check` must exit 1, or 2 (unknown), never 0
(the runner marks an exit 0 HOLE). A "good" one is correct in the model (a
report is a false alarm; unknown is allowed). Labels are by hand; a few forms
first written as attacks are correct in the model and labelled good (the
comment says why). Bases (run from the repository root):

* peel (peel48: foldPeeledLastIterations, coreOfValueBeside, guardCaseCopy):
  the corpus cp.async peel under near-miss guards, bounds one off, a peel
  that differs from the body in one op or index;
* seq (bounds48's reading 14, loopsInSequence): findPattern's two loops with
  a pass's last barrier skipped at a value of the other loop's bound;
* ctail (fifth48: mmaCommitNumbersReadInOrder, certainTailRefusal): the
  commit-tail GEMM with commits, waits and MMAs left out or doubled near a
  tile's end, on some tiles or lengths only;
* alias (cudnn48: reads without the caps): the empty-tile alias kernel;
* sloped (fa4_48: periodsHoldOn): fa7's ring-minus-tile kernel draining its
  MMA groups in a tile's last K iteration (its mma_wait is sm_90a only, so
  every file also fails target.feature; read the sync line);
* slots (the covering values: a slot operand's residues): a write of
  `buf[e(N)]` after the barrier racing a read of `buf[r]` (the hole: main
  exited 0 *checked* where e(N) % S == r needs a residue the targets skip);
* views (hunt48a's overlaps, cover47's crossings: a slice that reaches
  another view): `va[0][:, 0:S]` reaching `vb` at byte 2048 at the greatest
  values only (the hole: main ran S in {1,2,3});
* loops (review48's constantLoopCopies: a guard on a parameter and a loop
  past 64 values or bounded by lm.instance()) (the hole: k ran at 1 alone);
* greatest (cover48's least values, the other side): findPattern's chunks
  counted down, `141 - hit` under `hit <= 140`, the cut dropped, racing at
  hit = 140 only (the hole: main ran hit in {0,1,55,...,64}); `hit + 5001`
  chunks under `hit >= -5000` (the least value past the scan).
"""
from attack_runner import main_bases, raw_string, read, rep  # (the script's folder is on the path)


def between(text, start, end):
    return text.split(start, 1)[1].split(end, 1)[0]


# ---------------------------------------------------------------- peel
def peel():
    base = read("corpus/gemm/sm100_mixed_cpasync_peeled_k_residue.cake")
    G = "        if K % 64 != 0:\n"
    KF = "    k_full  = K // 64\n"
    ARR = "            lm.arrive(b_full, iter=k_full)\n"
    CPA = "            smem_b.cp_async(B, coords=(n_blk, k_full * 64), iter=k_full)\n"
    WT = "            lm.wait(b_empty, iter=k_full - 4)\n"
    FILL = "            lm.fill(smem_b[k_full][:, 32:64], 0.0)\n"
    return [
        ("good", "base", base),
        ("good", "guard_not_eq", rep(base, G, "        if not (K % 64 == 0):\n")),
        ("bad", "guard_ne1", rep(base, G, "        if K % 64 != 1:\n")),
        ("bad", "guard_mod32", rep(base, G, "        if K % 32 != 0:\n")),
        # (an extra tile past K at K % 64 == 0: no rule of the model forbids it)
        ("good", "guard_mod128", rep(base, G, "        if K % 128 != 0:\n")),
        ("good", "guard_or_128", rep(base, G, "        if K % 64 != 0 or K == 128:\n")),
        ("bad", "guard_and_small", rep(base, G, "        if K % 64 != 0 and K < 1000:\n")),
        ("bad", "guard_and_ne65", rep(base, G, "        if K % 64 != 0 and K != 65:\n")),
        ("bad", "guard_gt1", rep(base, G, "        if K % 64 > 1:\n")),
        ("bad", "guard_eq0", rep(base, G, "        if K % 64 == 0:\n")),
        ("bad", "guard_not_ne", rep(base, G, "        if not (K % 64 != 0):\n")),
        ("bad", "guard_K_plus_1", rep(base, G, "        if (K + 1) % 64 != 0:\n")),
        ("bad", "kfull_minus1", rep(base, KF, "    k_full  = (K - 1) // 64\n")),
        ("good", "kfull_plus1", rep(base, KF, "    k_full  = (K + 1) // 64\n")),  # (an extra tile past K only)
        ("bad", "kfull_63", rep(base, KF, "    k_full  = (K + 63) // 64 - 1\n")),
        ("bad", "kfull_div65", rep(base, KF, "    k_full  = K // 65\n")),
        ("bad", "peel_arrive_next", rep(base, ARR, "            lm.arrive(b_full, iter=k_full + 1)\n")),
        ("bad", "peel_arrive_prev", rep(base, ARR, "            lm.arrive(b_full, iter=k_full - 1)\n")),
        ("bad", "peel_arrive_twice", rep(base, ARR, ARR + ARR)),
        ("bad", "peel_cpasync_prev", rep(base, CPA, CPA.replace("iter=k_full)", "iter=k_full - 1)"))),
        ("bad", "peel_cpasync_next", rep(base, CPA, CPA.replace("iter=k_full)", "iter=k_full + 1)"))),
        # (a later release implies the earlier one: MMA groups complete in order)
        ("good", "peel_wait_3", rep(base, WT, "            lm.wait(b_empty, iter=k_full - 3)\n")),
        ("bad", "peel_wait_5", rep(base, WT, "            lm.wait(b_empty, iter=k_full - 5)\n")),
        ("bad", "peel_no_wait", rep(base, WT, "")),
        ("bad", "peel_no_cp_wait", rep(base, "            lm.cp_async_wait(pending=0)\n" + FILL, FILL)),
        ("bad", "peel_fill_other_slot", rep(base, FILL, FILL.replace("smem_b[k_full]", "smem_b[k_full + 1]"))),
        ("bad", "peel_fill_after_arrive",
         rep(base, FILL + "            lm.fence_proxy()\n" + ARR, "            lm.fence_proxy()\n" + ARR + FILL)),
        ("bad", "body_arrive_prev", rep(base, "            lm.arrive(b_full, iter=k)\n",
                                        "            lm.arrive(b_full, iter=k - 1)\n")),
        ("bad", "body_from1", rep(base, "        for k in lm.range(0, k_full):\n", "        for k in lm.range(1, k_full):\n")),
        ("bad", "tail_from_kfull", rep(base, ARR + "        for k in lm.range(k_tiles, k_tiles + 4):\n",
                                       ARR + "        for k in lm.range(k_full, k_full + 4):\n")),
    ]


# ---------------------------------------------------------------- seq
def seq():
    base = between(read("tests/encoder/find_pattern_form.h"), 'R"(', ')";').lstrip("\n")
    base = rep(base, "flag   = pool.view(offset=0,", "flag   = pool.view(offset=128,")
    end = "            lm.copy(part, cnt[0][:, 0:4])\n            lm.sync(wgroup)\n"
    skip = lambda cond: rep(base, end, "            lm.copy(part, cnt[0][:, 0:4])\n            if " + cond +
                            ":\n                lm.sync(wgroup)\n")
    two = rep(rep(skip("hit != 3"), "lm.range(0, hit + 1)", "lm.range(0, 2 * hit + 1)"), "if i == hit and", "if i == 2 * hit and")
    return [
        ("good", "base", base),
        ("bad", "skip_at_hit_3", skip("hit != 3")),
        ("bad", "skip_at_hit_3_doubled_chunks", two),
        ("bad", "skip_at_passes_3", skip("n_passes != 3")),
        ("bad", "skip_from_passes_3", skip("n_passes < 3")),
        ("bad", "skip_below_hit_700", skip("hit < 700")),
    ]


# ---------------------------------------------------------------- ctail
def ctail():
    base = between(read("tests/encoder/commit_tail_gemm.h"), 'R"(', ')";')
    C = "                if k + 1 < k_tiles:\n                    lm.mma_commit(barrier=empty, iter=it)\n"
    A = "            lm.mma_commit(barrier=empty, iter=t * k_tiles + k_tiles - 1)\n"
    WF = "                lm.wait(full, iter=it)\n"
    WE = "                lm.wait(empty, iter=it - 2)\n"
    commit_if = lambda cond: rep(base, C, "                if " + cond + ":\n                    lm.mma_commit(barrier=empty, iter=it)\n")
    after_if = lambda cond: rep(base, A, "            if " + cond + ":\n    " + A)
    return [
        ("good", "base", base),
        ("bad", "two_left_out", commit_if("k + 2 < k_tiles")),
        ("bad", "doubled_on_tile_0", commit_if("k + 1 < k_tiles or t == 0")),
        ("bad", "doubled_on_odd_tiles", commit_if("k + 1 < k_tiles or t % 2 == 1")),
        ("bad", "doubled_at_one_k_tile", commit_if("k + 1 < k_tiles or k_tiles == 1")),
        ("bad", "doubled_at_three_k_tiles", commit_if("k + 1 < k_tiles or k_tiles == 3")),
        ("bad", "release_skipped_on_tile_1", after_if("t != 1")),
        ("bad", "release_skipped_at_three_k_tiles", after_if("k_tiles != 3")),
        # (no producer tail: the last MMA joins acc_full's group, which the epilogue observes)
        ("good", "release_skipped_on_the_last_tile", after_if("t + 1 < n_tiles")),
        ("bad", "acc_full_skipped_on_the_last_tile",
         rep(base, "            lm.mma_commit(barrier=acc_full, iter=t)\n",
             "            if t + 1 < n_tiles:\n                lm.mma_commit(barrier=acc_full, iter=t)\n")),
        ("bad", "plain_arrive_on_tile_0", rep(base, A, "            if t == 0:\n                lm.arrive(empty, iter=t * k_tiles + "
                                              "k_tiles - 1)\n            else:\n    " + A)),
        ("bad", "first_left_out", rep(commit_if("k > 0"), A, "            lm.mma_commit(barrier=empty, iter=t * k_tiles)\n")),
        ("bad", "last_commits_the_next_slot", rep(base, C, C + "                else:\n                    lm.mma_commit(barrier=empty, iter=it + 1)\n")),
        ("bad", "last_wait_skipped", rep(base, WF, "                if k + 1 < k_tiles:\n    " + WF)),
        ("bad", "last_wait_skipped_but_tile_2", rep(base, WF, "                if k + 1 < k_tiles or t != 2:\n    " + WF)),
        ("bad", "acc_empty_wait_from_3_k_tiles",
         rep(base, "            lm.wait(acc_empty, iter=t - 1)\n", "            if k_tiles < 3:\n                lm.wait(acc_empty, iter=t - 1)\n")),
        ("bad", "load_last_wait_skipped", rep(base, WE, "                if k + 1 < k_tiles:\n    " + WE)),
        ("bad", "load_last_wait_a_lap_back", rep(base, WE, "                lm.wait(empty, iter=it - 2 - (k + 1 == k_tiles))\n")),
    ]


# ---------------------------------------------------------------- alias
def alias():
    base = between(read("tests/encoder/empty_alias48_test.cpp"), 'const char* kAlias = R"(', ')";')
    W = "            lm.fill(o_r, 0.0)\n            lm.copy(smem_qo[0], o_r)\n"
    return [
        ("good", "base", base),
        ("bad", "half_written", rep(base, "            lm.copy(smem_qo[0], o_r)\n", "            lm.copy(smem_qo[0][0:64, :], o_r[0:64, :])\n")),
        ("bad", "half_written_on_empty_tiles",
         rep(base, W, "            lm.fill(o_r, 0.0)\n            if t >= n_empty:\n                lm.copy(smem_qo[0], o_r)\n"
                      "            else:\n                lm.copy(smem_qo[0][0:64, :], o_r[0:64, :])\n")),
        ("bad", "read_back_before_written", rep(base, W, "            lm.copy(o_r, smem_qo[0])\n            lm.copy(smem_qo[0], o_r)\n")),
        ("bad", "consumer_reads_after_release",
         rep(base, "                lm.copy(q_r, smem_qo[0])\n                lm.fence_proxy()\n                lm.arrive(o_full, iter=t - n_empty)\n",
             "                lm.fence_proxy()\n                lm.arrive(o_full, iter=t - n_empty)\n                lm.copy(q_r, smem_qo[0])\n")),
        ("bad", "gate_two_back_on_empty_tiles", rep(base, "            lm.wait(gate, iter=t - 1)\n", "            lm.wait(gate, iter=t - 1 - (t < n_empty))\n")),
        ("bad", "store_wait_only_with_kv", rep(base, "            lm.tma_store_wait(pending=0)\n",
                                               "            if t >= n_empty:\n                lm.tma_store_wait(pending=0)\n")),
        ("bad", "fence_only_with_kv", rep(base, "            lm.copy(smem_qo[0], o_r)\n            lm.fence_proxy()\n",
                                          "            lm.copy(smem_qo[0], o_r)\n            if t >= n_empty:\n                lm.fence_proxy()\n")),
    ]


# ---------------------------------------------------------------- sloped
def sloped():
    base = between(read("tests/encoder/persistent_kernels.h"), 'inline const std::string kRingMinusTile = R"CAKE(', ')CAKE";')
    G = "                lm.mma_commit(barrier=o_done, iter=g)\n"
    sl = rep(base, G, G + "                if j + 1 < n_blocks:\n                    lm.mma_wait(pending=1)\n"
                           "                else:\n                    lm.mma_wait(pending=0)\n")
    W = "                    lm.wait(o_ready, iter=g - t - 1)\n"
    return [
        ("good", "base", sl),
        ("bad", "last_waits_from_tile_5", rep(sl, "                else:\n" + W, "                elif j + 1 < n_blocks or t < 5:\n" + W)),
        ("bad", "soft_last_skips_p_empty", rep(sl, "                lm.wait(p_empty, iter=g - 1)\n",
                                               "                if j + 1 < n_blocks or j == 0:\n                    lm.wait(p_empty, iter=g - 1)\n")),
        ("bad", "soft_last_p_empty_a_lap_back", rep(sl, "                lm.wait(p_empty, iter=g - 1)\n",
                                                    "                lm.wait(p_empty, iter=g - 1 - (j + 1 == n_blocks))\n")),
        ("bad", "load_last_v_empty_a_lap_back", rep(sl, "                lm.wait(v_empty, iter=g - 2)\n",
                                                    "                lm.wait(v_empty, iter=g - 2 - (j + 1 == n_blocks))\n")),
        ("bad", "o_full_skipped_on_tile_0", rep(sl, "            lm.mma_commit(barrier=o_full, iter=t)\n",
                                                "            if t > 0:\n                lm.mma_commit(barrier=o_full, iter=t)\n")),
        ("bad", "o_ready_one_back_every_third_tile", rep(sl, W, "                    lm.wait(o_ready, iter=g - t - 1 - (t % 3 == 2) * (j + 1 == n_blocks))\n")),
    ]


# ---------------------------------------------------------------- slots
SLOTS = '''@cake.schedule(target="sm_80")
def slots(lm, Data: LM.gmem, Out: LM.gmem, N: LM.i32):
    lm.assume(N >= 1)
    lm.assume(N <= 4096)
    pool = lm.smem(POOL)
    buf  = pool.view(offset=0, shape=(1, 64), dtype=lm.f32, stages=STAGES)
    r    = lm.regs(shape=(1, 64), dtype=lm.f32)
    ws   = lm.role(warps=[0, 1], group=1)
    nb   = lm.named_barrier(roles=[ws])
    with ws:
        w = lm.instance()
        if w == 0:
            lm.copy(r, Data, coords=(0, 0))
            lm.copy(buf[READ], r)
        lm.sync(nb)
        if w == 1:
            lm.copy(r, buf[READ])
            lm.copy(Out, r, coords=(0, 0))
        if w == 0:
WRITE'''


def slot(stages, read, write):
    t = SLOTS.replace("POOL", str(256 * stages)).replace("STAGES", str(stages)).replace("READ", read)
    if not write.startswith(" "):
        write = "            lm.copy(buf[" + write + "], r)\n"
    return t.replace("WRITE", write)


def slots():
    return [
        ("good", "slot_1", slot(4, "0", "1")),
        ("good", "odd_slots_of_8", slot(8, "4", "2 * N + 1")),
        ("bad", "N_of_8_against_4", slot(8, "4", "N")),
        ("bad", "N_of_8_against_5", slot(8, "5", "N")),
        ("bad", "N_minus_1_of_8_against_3", slot(8, "3", "N - 1")),
        ("bad", "3N_of_8_against_4", slot(8, "4", "3 * N")),
        ("bad", "N_plus_2_of_4_against_2", slot(4, "2", "N + 2")),
        ("bad", "N_plus_12289_of_4_against_0", slot(4, "0", "N + 12289")),
        ("bad", "block_of_8_against_4", slot(8, "4", "lm.block_idx(0)")),
        ("bad", "3_blocks_of_8_against_4", slot(8, "4", "lm.block_idx(0) * 3")),
        ("bad", "loop_plus_N_of_8_against_5", slot(8, "5", "            for k in lm.range(0, 2):\n                lm.copy(buf[k + N + 1], r)\n")),
        ("bad", "N_div_4096", slot(4, "0", "1 - N // 4096")),
        ("bad", "N_is_4096", slot(4, "0", "1 - (N == 4096)")),
        ("bad", "N_square_steps", slot(4, "0", "1 + 3 * (N * N // 16777216)")),
    ]


# ---------------------------------------------------------------- views
VIEWS = '''@cake.schedule(target="sm_80")
def views(lm, Data: LM.gmem, Out: LM.gmem, PARAMS S: LM.i32):
FACTS    lm.assume(S >= 1)
    lm.assume(S <= SMAX)
    pool = lm.smem(4096)
    va   = pool.view(offset=VA, shape=(1, 256), dtype=lm.f32)
    vb   = pool.view(offset=2048, shape=(1, 256), dtype=lm.f32)
    r    = lm.regs(shape=(1, 256), dtype=lm.f32)
    ws   = lm.role(warps=[0, 1], group=1)
    nb   = lm.named_barrier(roles=[ws])
    with ws:
        w = lm.instance()
        if w == 1:
            lm.copy(r, Data, coords=(0, 0))
            lm.copy(vb[0], r)
        lm.sync(nb)
        if w == 1:
            lm.copy(r, vb[0])
            lm.copy(Out, r, coords=(0, 0))
SYNC        if w == 0:
            lm.copy(r[:, 0:S], Data, coords=(1, 0))
            lm.copy(va[0][:, 0:S], r[:, 0:S])
'''


def view(va, smax, params="", facts="", synced=False):
    return (VIEWS.replace("PARAMS ", params).replace("FACTS", facts).replace("SMAX", str(smax)).replace("VA", va)
            .replace("SYNC", "        lm.sync(nb)\n" if synced else ""))


def views():
    off = "    lm.assume(off >= 0)\n    lm.assume(off <= 2032)\n    lm.assume(off % 16 == 0)\n"
    mod = "    lm.assume(off >= 0)\n    lm.assume(off <= 2048)\n    lm.assume(off % 1024 == 1008)\n"
    return [
        ("bad", "slice_reaches_at_61", view("1808", 64)),
        ("good", "slice_reaches_after_a_barrier", view("1808", 64, synced=True)),
        ("bad", "slice_reaches_at_5", view("2032", 8)),
        ("bad", "placed_slice_reaches_at_the_greatest_offset", view("off", 8, "off: LM.i32,", off)),
        ("bad", "placed_slice_at_a_residue", view("off", 256, "off: LM.i32,", mod)),
        ("good", "placed_slice_at_a_residue_after_a_barrier", view("off", 256, "off: LM.i32,", mod, synced=True)),
    ]


# ---------------------------------------------------------------- loops
def guarded(rng, cond, write_slot="0"):
    t = slot(4, "0", "            for t in lm.range(" + rng + "):\n                if " + cond +
             ":\n                    lm.copy(buf[" + write_slot + "], r)\n")
    return t.replace("N: LM.i32", "k: LM.i32").replace("lm.assume(N >= 1)", "lm.assume(k >= 0)").replace(
        "lm.assume(N <= 4096)", "lm.assume(k <= 4096)")


def loops():
    return [
        ("bad", "plus_over_64_values", guarded("0, 64", "t + k == 779")),
        ("bad", "plus_over_65_values", guarded("0, 65", "t + k == 779")),
        ("bad", "plus_over_100_values", guarded("0, 100", "t + k == 779")),
        ("bad", "plus_over_67_values_by_3", guarded("0, 200, 3", "t + k == 779")),
        ("bad", "product_over_100_values", guarded("0, 100", "t * k == 7007")),
        ("bad", "plus_over_an_instance_bound", guarded("0, (1 - lm.instance()) * 100", "t + k == 779")),
        ("bad", "plus_over_a_short_instance_bound", guarded("0, lm.instance() + 3", "t * 100 + k == 779")),
        ("good", "plus_over_100_values_to_slot_1", guarded("0, 100", "t + k == 779", "1")),
        ("good", "plus_over_a_short_instance_bound_to_slot_1", guarded("0, lm.instance() + 3", "t * 100 + k == 779", "1")),
    ]


def greatest():
    base = between(read("tests/encoder/find_pattern_form.h"), 'R"(', ')";').lstrip("\n")
    bad = rep(base, "            lm.copy(flag[0], fz)\n        lm.sync(wgroup)\n", "            lm.copy(flag[0], fz)\n")
    def down(text, match):
        t = rep(text, "    lm.assume(hit >= 0)\n", "    lm.assume(hit >= 0)\n    lm.assume(hit <= 140)\n")
        return rep(rep(t, "lm.range(0, hit + 1)", "lm.range(0, 141 - hit)"), "if i == hit and", "if " + match + " and")
    far = rep(rep(rep(bad, "lm.assume(hit >= 0)", "lm.assume(hit >= -5000)"), "lm.range(0, hit + 1)", "lm.range(0, hit + 5001)"),
              "if i == hit and", "if i == hit + 5000 and")
    return [
        ("good", "counted_down", down(base, "i == 140 - hit")),
        ("bad", "counted_down_match_last", down(bad, "i == 140 - hit")),
        ("bad", "counted_down_match_last_spelled", down(bad, "i + 1 == 141 - hit")),
        ("bad", "counted_down_match_first", down(bad, "i == 0")),
        ("bad", "least_past_the_scan", far),
    ]


ROW = raw_string("tests/encoder/cover_kernels.h", "kGuardedRowRead")  # (sound50_test.cpp's form too)


def covered():
    read = "64 + (P * P % 1009 == 777)"
    row = lambda guard, r=read: ROW.replace("GUARD", guard).replace("READ", r)
    return [
        ("bad", "square_residue", row("")),
        ("bad", "square_residue_beside_P_1000", row("        if P == 1000:\n            lm.sync(block)\n")),
        ("bad", "square_residue_beside_P_999", row("        if P >= 999:\n            lm.sync(block)\n")),
        ("good", "square_residue_twin_beside_P_1000",
         row("        if P == 1000:\n            lm.sync(block)\n", "64 - (P * P % 1009 == 777)")),
    ]


BASES = [("peel", peel), ("seq", seq), ("ctail", ctail), ("alias", alias), ("sloped", sloped), ("slots", slots),
         ("views", views), ("loops", loops), ("greatest", greatest),
         ("covered", covered)]


if __name__ == "__main__":
    main_bases(BASES)
