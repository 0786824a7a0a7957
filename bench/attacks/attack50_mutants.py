#!/usr/bin/env python3
"""Session 50's attack on session 49's proof and check paths (helper
attack50, docs/known-limits.md "Attacks on session 49's paths (helper
attack50, session 50)"): broken schedules aimed at left49's left-out MMA
reads near a tile's end, ring49's ring generations compared by the far
grids' shift, fp49's products left unread at exit and views49's slot-pair
overlaps joined with guard outcomes, with correct twins, written to
OUT/<base>/<label>_<name>.cake, then `cake check` (and `--require-proof`)
on each:

    bench/attacks/attack50_mutants.py OUT                # writes the files
    bench/attacks/attack50_mutants.py OUT --run [CAKE]   # also runs cake on each

A "bad" schedule is broken: `cake check` must exit 1, or 2 (unknown), never 0,
and `--require-proof` must not prove it (the runner marks either HOLE). A
"good" one is correct in the model (a report is a false alarm; unknown is
allowed). Bases (run from the repository root):

* left (left49: leftOutReadIsNoReturn, leftOutReadsChangeNoRead): the reduced
  one-ahead S reproducer of tests/encoder/s_ahead_kernel.h and the
  store-warp FMHA, with Q released or refilled near the left-out read, the
  one-ahead S reading another slot or index, the left-out read moved.
* ring (ring49: noteRingGenShifts, sameBesidesRingGenShift): the ring
  generation kernel of tests/encoder/trip_ring_gen_test.cpp with the last
  K iteration's P generation one off, or one off in one tile only.
* fp (fp49: productsUnreadAtExit): the FP8 promotion kernel without its
  residue promotion, the lost product cleared by a non-MMA op, the residue
  dropped only at large K.
* views (views49: guardCombinations, combineOutcomes): warp b's slot under
  guards that read the offset too, or split the slot pair's overlap.
"""
from attack_runner import main_bases, raw_string, read, rep  # (the script's folder is on the path)


# ---------------------------------------------------------------- left
def released_in(cond):
    """Whether some K iteration of the tile meets `cond` (j, t read)."""
    return cond.replace("j + 2 == n_blocks", "True").replace("j == 6", "n_blocks == 8")


def left():
    base = raw_string("tests/encoder/s_ahead_kernel.h", "kSAhead")
    NEXT_Q = "                    lm.mma(tmem_s, smem_q[0], smem_k[it + 1], init=True)\n"
    REL = "            lm.mma_commit(barrier=q_empty, iter=t)\n"
    IF = "                if j + 1 < n_blocks:\n"
    out = [("good", "base", base)]
    # Q released inside the K iteration second from the end, before the
    # one-ahead S that reads it there (the loader may refill Q under it)
    out.append(("bad", "q_released_before_last_ahead_read",
                rep(rep(base, REL, ""), IF,
                    "                if j + 2 == n_blocks or n_blocks == 1:\n"
                    "                    lm.mma_commit(barrier=q_empty, iter=t)\n" + IF)))
    # the same release after the one-ahead S: correct (its last read of Q)
    out.append(("good", "q_released_after_last_ahead_read",
                rep(rep(base, REL, ""), "                    lm.mma_commit(barrier=s_full, iter=it + 1)\n",
                    "                    lm.mma_commit(barrier=s_full, iter=it + 1)\n"
                    "                if j + 2 == n_blocks or n_blocks == 1:\n"
                    "                    lm.mma_commit(barrier=q_empty, iter=t)\n")))
    # the loader refills Q while the K loop of the tile runs (its q_empty
    # wait on the tile before's tile before)
    out.append(("bad", "q_refilled_two_tiles_back", rep(base, "lm.wait(q_empty, iter=t - 1)", "lm.wait(q_empty, iter=t - 2)")))
    # two Q slots, the one-ahead S reading the next tile's slot (the loader's)
    two = rep(base, 'shape=(128, 64),  dtype=lm.bf16, stages=1, swizzle="128B")',
              'shape=(128, 64),  dtype=lm.bf16, stages=2, swizzle="128B")')
    two = rep(two, "offset=16384,", "offset=32768,")
    two = rep(two, "    q_full  = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)\n"
                   "    q_empty = lm.barrier(count=1, prod=[mma], cons=[load], init_count=1)\n",
              "    qp      = lm.pipeline(stages=2)\n"
              "    q_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=qp)\n"
              "    q_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=qp)\n")
    two = rep(two, "lm.wait(q_empty, iter=t - 1)", "lm.wait(q_empty, iter=t - 2)")
    two = rep(two, "smem_q.tma_load(Q, coords=(0, q0, 0), iter=t, barrier=q_full)",
              "smem_q.tma_load(Q, coords=(0, q0, 0), iter=t, barrier=q_full)")
    two = rep(two, "lm.mma(tmem_s, smem_q[0], smem_k[base], init=True)", "lm.mma(tmem_s, smem_q[t], smem_k[base], init=True)")
    out.append(("good", "q_two_slots", rep(two, NEXT_Q, NEXT_Q.replace("smem_q[0]", "smem_q[t]"))))
    out.append(("bad", "q_two_slots_ahead_reads_next_tile", rep(two, NEXT_Q, NEXT_Q.replace("smem_q[0]", "smem_q[t + 1]"))))
    # the one-ahead S reads the K slot two ahead (the loader's next refill)
    out.append(("bad", "ahead_reads_k_two_ahead", rep(base, NEXT_Q, NEXT_Q.replace("smem_k[it + 1]", "smem_k[it + 2]"))))
    # the one-ahead S also in the last K iteration (reads the next tile's K
    # slot without its wait): the left-out read kept, its wait left out
    out.append(("bad", "ahead_read_kept_wait_left_out",
                rep(base, "                    lm.wait(k_full, iter=it + 1)\n" + NEXT_Q,
                    "                    lm.wait(k_full, iter=it + 1)\n" + IF.replace("if j + 1 < n_blocks", "if True") + "    " + NEXT_Q)))
    # the Q wait in the last K iteration only, after the first S read Q
    out.append(("bad", "q_wait_moved_into_last_iteration",
                rep(rep(base, "            lm.wait(q_full, iter=t)\n", ""),
                    "                lm.wait(s_free, iter=it)\n",
                    "                lm.wait(s_free, iter=it)\n"
                    "                if j + 1 == n_blocks:\n                    lm.wait(q_full, iter=t)\n")))
    # the loader's Q load moved into its K loop, after the tile's first K
    # block (correct: the MMA waits q_full before any read of Q; first
    # written as an attack, exit 0 checked)
    out.append(("good", "q_loaded_after_first_k_block",
                rep(rep(base, "            smem_q.tma_load(Q, coords=(0, q0, 0), iter=t, barrier=q_full)\n", ""),
                    "                smem_k.tma_load(K, coords=(0, j * 128, 0), iter=it, barrier=k_full)\n",
                    "                smem_k.tma_load(K, coords=(0, j * 128, 0), iter=it, barrier=k_full)\n"
                    "                if j == 0:\n"
                    "                    smem_q.tma_load(Q, coords=(0, q0, 0), iter=t, barrier=q_full)\n")))
    # broken only at a tile or K block past the bounded check's values
    # (the proof must find it or refuse)
    for name, cond in [("t5", "j + 2 == n_blocks and t == 5"), ("j6", "j == 6 and j + 2 == n_blocks"),
                       ("t5_j6", "j == 6 and j + 2 == n_blocks and t == 5")]:
        out.append(("bad", "q_released_before_ahead_read_" + name,
                    rep(rep(base, REL, "            if not (n_blocks >= 2 and " + released_in(cond) + "):\n    " + REL), IF,
                        f"                if {cond}:\n"
                        "                    lm.mma_commit(barrier=q_empty, iter=t)\n" + IF)))
    for name, cond in [("t5", "t == 5"), ("j6", "j == 6"), ("last_t5", "t == 5 and j + 2 == n_blocks")]:
        out.append(("bad", "ahead_reads_k_two_ahead_" + name,
                    rep(base, NEXT_Q, f"                    if {cond}:\n    " + NEXT_Q.replace("smem_k[it + 1]", "smem_k[it + 2]") +
                        "                    else:\n    " + NEXT_Q)))
        out.append(("bad", "ahead_reads_q_without_wait_" + name,
                    rep(base, "            lm.wait(q_full, iter=t)\n",
                        f"            if not ({cond.replace('j + 2 == n_blocks', 'n_blocks >= 2').replace('j == 6', 'n_blocks >= 7')}):\n"
                        "                lm.wait(q_full, iter=t)\n")))
    # broken only at a tile or ring index no small run reaches (a square residue)
    bounded = rep(base, "    lm.assume(n_tiles > 0)\n", "    lm.assume(n_tiles > 0)\n    lm.assume(n_tiles <= 1000)\n"
                  "    lm.assume(seqlen_k <= 4096)\n")
    for name, cond in [("t_square", "t * t % 1009 == 777"), ("t40", "t == 40"), ("it_square", "it * it % 1009 == 777")]:
        out.append(("bad", "ahead_reads_k_two_ahead_" + name,
                    rep(bounded, NEXT_Q, f"                    if {cond}:\n    " + NEXT_Q.replace("smem_k[it + 1]", "smem_k[it + 2]") +
                        "                    else:\n    " + NEXT_Q)))
    # Q released before the one-ahead S where the tile starts at an odd ring position
    cond = "j + 2 == n_blocks and (t * n_blocks) % 2 == 1"
    out.append(("bad", "q_released_before_ahead_read_odd_start",
                rep(rep(base, REL, "            if not (n_blocks >= 2 and (t * n_blocks) % 2 == 1):\n    " + REL), IF,
                    f"                if {cond}:\n"
                    "                    lm.mma_commit(barrier=q_empty, iter=t)\n" + IF)))
    sw = read("corpus/attention/sm100_fmha_persistent_store_warp.cake")
    out.append(("good", "store_warp", sw))
    SW_NEXT = "                    lm.mma(tmem_s, smem_q[0], smem_k[it + 1], init=True)\n"
    SW_REL = "            lm.mma_commit(barrier=q_empty, iter=t)\n"
    out.append(("bad", "store_warp_q_released_before_last_ahead_read",
                rep(rep(sw, SW_REL, ""), "                if j + 1 < n_blocks:\n",
                    "                if j + 2 == n_blocks or n_blocks == 1:\n"
                    "                    lm.mma_commit(barrier=q_empty, iter=t)\n"
                    "                if j + 1 < n_blocks:\n")))
    out.append(("bad", "store_warp_ahead_reads_k_two_ahead", rep(sw, SW_NEXT, SW_NEXT.replace("smem_k[it + 1]", "smem_k[it + 2]"))))
    out.append(("bad", "store_warp_q_refilled_two_tiles_back",
                rep(sw, "lm.wait(q_empty, iter=t - 1)", "lm.wait(q_empty, iter=t - 2)")))
    return out


# ---------------------------------------------------------------- ring
PFULL = "                lm.wait(p_full, iter=g)\n"
PEMPTY = "                lm.wait(p_empty, iter=g - 1)\n"
PV = "                lm.mma(tmem_o, smem_p[0], smem_vt[g], init=(j == 0))\n"


def ring_gen_kernel():
    k = raw_string("tests/encoder/read_gen_kernel.h", "kReadGenKernel")
    k = rep(k, "lm.assume(seqlen_k > 0)", "lm.assume(seqlen_k > 128)")
    k = rep(k, "    s = lm.regs(", "    tmem_x  = lm.tmem(cols=64, width=64, shape=(64, 64), dtype=lm.f32)\n"
                                  "    x = lm.regs(shape=(64, 64), dtype=lm.f32)\n    s = lm.regs(")
    k = rep(k, "            lm.wait(o_empty, iter=t - 1)\n",
            "            lm.wait(o_empty, iter=t - 1)\n            lm.wait(v_full, iter=t * n_blocks)\n")
    k = rep(k, PV, PV + "                if j + 1 < n_blocks:\n"
                        "                    lm.mma(tmem_x, smem_vt[g], smem_vt[g], init=(j == 0))\n")
    return rep(k, "            lm.tmem_load(o, tmem_o)\n", "            lm.tmem_load(o, tmem_o)\n            lm.tmem_load(x, tmem_x)\n")


def when(cond, then, other):
    """`then` (a 16-column K-loop line) where `cond` holds, else `other`."""
    return (f"                if {cond}:\n    " + then + "                else:\n    " + other)


def released_before_pv(base, cond):
    """The PV's P release (its commit) moved before its MMA where `cond` holds."""
    tail = ("                if j + 1 < n_blocks:\n"
            "                    lm.mma(tmem_x, smem_vt[g], smem_vt[g], init=(j == 0))\n"
            "                lm.mma_commit(barrier=v_empty, iter=g)\n")
    release = "                lm.mma_commit(barrier=p_empty, iter=g)\n"
    return rep(base, PV + tail + release,
               f"                if {cond}:\n    " + release + PV + tail + f"                if not ({cond}):\n    " + release)


def bounded_t(base):
    return rep(base, "    lm.assume(T > 0)\n", "    lm.assume(T > 0)\n    lm.assume(T <= 1000)\n    lm.assume(seqlen_k <= 4096)\n")


def ring():
    base = ring_gen_kernel()
    bad_pfull = PFULL.replace("iter=g)", "iter=g - 1)")
    bad_pempty = PEMPTY.replace("iter=g - 1)", "iter=g - 2)")
    return [
        ("good", "base", base),
        # the last K iteration's PV waits for the P before its own
        ("bad", "last_pv_waits_p_one_back", rep(base, PFULL, when("j + 1 == n_blocks", bad_pfull, PFULL))),
        # ... in the last tile only
        ("bad", "last_tile_last_pv_waits_p_one_back",
         rep(base, PFULL, when("j + 1 == n_blocks and t + 1 == T", bad_pfull, PFULL))),
        # ... in tile 1 only (a tile start other than 0)
        ("bad", "tile1_last_pv_waits_p_one_back", rep(base, PFULL, when("j + 1 == n_blocks and t == 1", bad_pfull, PFULL))),
        # the softmax's last K iteration writes P a lap early
        ("bad", "last_p_written_a_lap_early", rep(base, PEMPTY, when("j + 1 == n_blocks", bad_pempty, PEMPTY))),
        ("bad", "last_tile_last_p_written_a_lap_early",
         rep(base, PEMPTY, when("j + 1 == n_blocks and t + 1 == T", bad_pempty, PEMPTY))),
        # the first K iteration of a tile waits for the P before (a shift at
        # the ring start)
        ("bad", "first_pv_waits_p_one_back", rep(base, PFULL, when("j == 0", bad_pfull, PFULL))),
        ("bad", "tile1_first_pv_waits_p_one_back", rep(base, PFULL, when("j == 0 and t == 1", bad_pfull, PFULL))),
        # the PV's P release before its MMA in the last K iteration (correct:
        # the softmax waits o_full, committed after that MMA, before it
        # writes the next tile's P; first written as an attack)
        ("good", "last_p_released_before_pv", released_before_pv(base, "j + 1 == n_blocks")),
        # ... in the K iteration before the last (the softmax's last P may
        # overwrite it under that MMA)
        ("bad", "second_last_p_released_before_pv", released_before_pv(base, "j + 2 == n_blocks")),
        ("bad", "last_tile_second_last_p_released_before_pv",
         released_before_pv(base, "j + 2 == n_blocks and t + 1 == T")),
        # one off only at a tile or K block past the bounded check's values
        ("bad", "t5_last_pv_waits_p_one_back", rep(base, PFULL, when("j + 1 == n_blocks and t == 5", bad_pfull, PFULL))),
        ("bad", "j6_last_pv_waits_p_one_back", rep(base, PFULL, when("j + 1 == n_blocks and j == 6", bad_pfull, PFULL))),
        ("bad", "t5_last_p_written_a_lap_early", rep(base, PEMPTY, when("j + 1 == n_blocks and t == 5", bad_pempty, PEMPTY))),
        ("bad", "t5_second_last_p_released_before_pv", released_before_pv(base, "j + 2 == n_blocks and t == 5")),
        ("bad", "j6_second_last_p_released_before_pv", released_before_pv(base, "j + 2 == n_blocks and j == 6")),
        # one off at a tile or ring index no small run reaches
        ("bad", "t_square_second_last_p_released_before_pv",
         released_before_pv(bounded_t(base), "j + 2 == n_blocks and t * t % 1009 == 777")),
        ("bad", "g_square_p_released_before_pv", released_before_pv(bounded_t(base), "g * g % 1009 == 777")),
        ("bad", "t40_last_p_written_a_lap_early",
         rep(bounded_t(base), PEMPTY, when("j + 1 == n_blocks and t == 40", bad_pempty, PEMPTY))),
        # one off only where the tile starts at an odd ring position (the
        # copies per ring start)
        ("bad", "odd_start_last_pv_waits_p_one_back",
         rep(base, PFULL, when("j + 1 == n_blocks and (t * n_blocks) % 2 == 1", bad_pfull, PFULL))),
        ("bad", "odd_start_second_last_p_released_before_pv",
         released_before_pv(base, "j + 2 == n_blocks and (t * n_blocks) % 2 == 1")),
        ("bad", "odd_ring_last_p_written_a_lap_early",
         rep(base, PEMPTY, when("j + 1 == n_blocks and g % 2 == 1", bad_pempty, PEMPTY))),
        # the tile start's V wait one block on (the ring start shifted by one)
        ("bad", "tile_start_waits_v_one_on_second_acc_reads_p",
         rep(rep(base, "lm.wait(v_full, iter=t * n_blocks)", "lm.wait(v_full, iter=t * n_blocks + 1)"),
             "lm.mma(tmem_x, smem_vt[g], smem_vt[g], init=(j == 0))", "lm.mma(tmem_x, smem_vt[g + 1], smem_vt[g + 1], init=(j == 0))")),
    ]


# ---------------------------------------------------------------- fp
def fp():
    base = read("corpus/gemm/sm90_fp8_promotion_interval.cake")
    dropped = read("docs/limits/fp8_promotion_residue_dropped_one_tile.cake")
    PROMO = '            if (k + 1) % 4 == 0:\n'
    AFTER = "        lm.copy(smem_c[lm.instance()], acc)\n"
    out = [("good", "base", base), ("bad", "dropped", dropped)]
    # the lost product cleared by a fill / overwritten by a copy after the loop
    out.append(("bad", "dropped_then_tmp_filled", rep(dropped, AFTER, "        lm.fill(tmp, 0.0)\n" + AFTER)))
    out.append(("bad", "dropped_then_tmp_copied_over", rep(dropped, AFTER, "        lm.copy(tmp, acc)\n" + AFTER)))
    out.append(("bad", "dropped_then_tmp_mma_init",
                rep(dropped, AFTER, "        lm.mma(tmp, smem_a[0][0:64, :], smem_b[0], init=True)\n        lm.mma_commit()\n"
                                    "        lm.mma_wait(pending=0)\n" + AFTER)))
    # the residue promoted only below a large K
    big = rep(dropped, "    lm.assume(K > 0)\n", "    lm.assume(K > 0)\n    lm.assume(K <= 1000000)\n")
    out.append(("bad", "residue_promoted_below_900000",
                rep(big, PROMO, "            if (k + 1) % 4 == 0 or (k + 1 == k_tiles and K < 900000):\n")))
    out.append(("good", "residue_promoted_always",
                rep(big, PROMO, "            if (k + 1) % 4 == 0 or k + 1 == k_tiles:\n")))
    # the residue promoted in part (half the rows)
    out.append(("bad", "residue_promoted_half_rows",
                rep(dropped, "                lm.binary(acc, acc, tmp, op=\"add\")\n",
                    "                lm.binary(acc, acc, tmp, op=\"add\")\n"
                    "            elif k + 1 == k_tiles:\n"
                    "                lm.binary(acc[0:32, :], acc[0:32, :], tmp[0:32, :], op=\"add\")\n")))
    # the promotion spelt otherwise (operands swapped; through the temporary
    # and a copy), its residue still dropped
    PR = '                lm.binary(acc, acc, tmp, op="add")\n'
    out.append(("bad", "dropped_swapped_operands", rep(dropped, PR, PR.replace("acc, acc, tmp", "acc, tmp, acc"))))
    out.append(("bad", "dropped_through_tmp_and_copy",
                rep(dropped, PR, '                lm.binary(tmp, tmp, acc, op="add")\n                lm.copy(acc, tmp)\n')))
    # the temporary restarted by a fill and MMAs that add to it (not an init=
    # MMA): the hole (main: proved at every K), and its correct twin
    MMA = "            lm.mma(tmp, smem_a[k][m0:m0 + 64, :], smem_b[k], init=(k % 4 == 0))\n"
    FILLED = ("            if k % 4 == 0:\n                lm.fill(tmp, 0.0)\n"
              "            lm.mma(tmp, smem_a[k][m0:m0 + 64, :], smem_b[k], init=False)\n")
    out.append(("bad", "dropped_tmp_restarted_by_fill", rep(dropped, MMA, FILLED)))
    out.append(("good", "tmp_restarted_by_fill", rep(base, MMA, FILLED)))
    # the corpus spelling (the promotion after the loop) skipped only at k-block
    # counts past the least (the proof's builds do not judge products at exit)
    RES = "        if k_tiles % 4 != 0:\n"
    for name, cond in [("k_tiles_below_9", "k_tiles % 4 != 0 and k_tiles < 9"),
                       ("k_tiles_not_7", "k_tiles % 4 != 0 and k_tiles != 7"),
                       ("k_tiles_not_mod_8_is_5", "k_tiles % 4 != 0 and k_tiles % 8 != 5"),
                       ("K_not_1100", "k_tiles % 4 != 0 and K != 1100")]:
        out.append(("bad", "residue_skipped_" + name, rep(base, RES, f"        if {cond}:\n")))
    return out


# ---------------------------------------------------------------- views
def slices(guard, stages=1, loop="2", handshake=False, b_stage=0, params="", facts=""):
    n = str(stages)
    a = b = ""
    for s in range(stages):
        it = f"{n} * t + {s}"
        if handshake and s == 0:
            a += f"            if {guard}:\n                lm.wait(free, iter=t - 1)\n"
        a += f"            mid.tma_load(Src, coords=(t * 4, 0), iter={it}, barrier=ba)\n"
        a += f"            lm.wait(ba, iter={it})\n"
        a += f"            mid.tma_store(Dst, coords=(t * 4, 0), stage={s})\n"
        a += "            lm.tma_store_commit()\n            lm.tma_store_wait(pending=0)\n"
    if handshake:
        a += f"            if {guard}:\n                lm.arrive(done, iter=t)\n"
    b += f"            if {guard}:\n"
    if handshake:
        b += "                lm.wait(done, iter=t)\n"
    # slot b_stage of mine, on slot b_stage of bb (one slot where b_stage is 0)
    b_it = f"{n} * t + {b_stage}" if b_stage else "t"
    b_at = f"iter={b_it}" if b_stage else "stage=0"
    b += f"                mine.tma_load(Src, coords=(t * 4, 128), {b_at}, barrier=bb)\n"
    b += f"                lm.wait(bb, iter={b_it})\n"
    b += f"                mine.tma_store(Dst, coords=(t * 4, 128), stage={b_stage})\n"
    b += "                lm.tma_store_commit()\n                lm.tma_store_wait(pending=0)\n"
    if handshake:
        b += "                lm.arrive(free, iter=t)\n"
    return f'''@cake.schedule(target="sm_90a")
def slices(lm, Src: LM.tma2d, Dst: LM.tma2d, g: LM.i32, off: LM.i32, n: LM.i32{params}):
    lm.assume(g >= 0)
    lm.assume(g <= 1000)
    lm.assume(off >= 0)
    lm.assume(off <= 204800)
    lm.assume(off % 1024 == 0)
    lm.assume(n >= 1)
    lm.assume(n <= 4)
{facts}    pool = lm.smem(210944)
    mid  = pool.view(offset=102400, shape=(4, 128), dtype=lm.bf16, stages={n})
    mine = pool.view(offset=off, shape=(4, 128), dtype=lm.bf16, stages={n})
    a = lm.role(warps=[0])
    b = lm.role(warps=[1])
    ba = lm.barrier(count={n}, prod=[a], cons=[a], init_count=1)
    bb = lm.barrier(count={n if b_stage else 1}, prod=[b], cons=[b], init_count=1)
    done = lm.barrier(count=1, prod=[a], cons=[b], init_count=1)
    free = lm.barrier(count=1, prod=[b], cons=[a], init_count=1)
    with a:
        for t in lm.range(0, {loop}):
{a}    with b:
        for t in lm.range(0, {loop}):
{b}'''


def views():
    out = []
    for name, guard, stages, loop, b_stage in [
        ("guard_reads_off", "off == 102400 and g == 777", 1, "2", 0),
        ("guard_reads_off_sum", "off + g == 103177", 1, "2", 0),
        ("guard_product", "(g * off) % 1009 == 5", 1, "2", 0),
        ("guard_off_not_overlap_side", "off != 101376", 2, "n", 0),
        ("guard_only_at_other_slot_pair", "off == 101376 and g == 777", 2, "n", 1),
        ("guard_splits_slot_pair", "off >= 102400 and g == 777", 2, "n", 1),
        ("guard_greatest_off", "off == 204800 or off == 103424", 2, "2", 0),
        ("guard_on_t", "t == 1 and g == 777", 2, "n", 0),
        ("guard_on_n", "n == 3 and g == 777", 2, "n", 1),
    ]:
        out.append(("bad", name, slices(guard, stages, loop, False, b_stage)))
        if "t ==" not in guard:  # (the handshake's a-side wait would need the guard at t - 1)
            out.append(("good", name + "_handshake", slices(guard, stages, loop, True, b_stage)))
    return out


BASES = [("left", left), ("ring", ring), ("fp", fp), ("views", views)]


if __name__ == "__main__":
    main_bases(BASES, require_proof=True, timeout=240)
