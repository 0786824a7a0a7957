#!/usr/bin/env python3
"""Session 48's soundness attack (helper sound48, docs/z3.md "Soundness review,
session 48"): broken schedules aimed at the paths session 47 added, with
correct twins, written to OUT/<base>/<name>.cake with OUT/index.tsv
(sound40_mutants.py's format), then `cake check` on each (attack_runner.py's
runner):

    bench/attacks/sound48_mutants.py OUT                # writes the files and OUT/index.tsv
    bench/attacks/sound48_mutants.py OUT --run [CAKE]   # also runs cake check on each (OUT/check.tsv)

A "bad" mutant is broken: `cake check` must exit 1, or 2 (unknown), never 0;
one said *proved* is always a hole. A "good" one is a correct twin (a report
is a false alarm, unknown is allowed). Labels are by hand. Targets (one base
each):

* far (checks/model_check.cpp BindingSearch::nameStepPastTrips, bendsAt,
  ownSamples): trip_exit_count_test.cpp's producer tail one phase short from
  a far tile count on, where the step is not at the operand's constants +-1
  or their quotients +-1 (`(n_tiles + 7) // 1000` steps at 993, `(n_tiles +
  13) % 997 // 996` at 983, `n_tiles // 10 // 100` at 1000), after the
  tile loop and in the tile loop's own wait; the same on the ring end; twins whose non-affine parts repeat what the values run
  show (`n_tiles // 2 * 0`).
* peel (encoder/trip_proof.cpp alignPeel, bestPeel, unpeeledBody,
  AlignedFields::first_only): peeled_first47_test.cpp's MMA whose first K
  step is peeled with a wait of its own: the loop from 2 or to one step
  more, the peel's statements reordered, its MMA or commit on other
  operands, a wait of the buffer in a later K step too; twins spelling the
  peel otherwise.
* carried (alignCountersToTheRing's start_apart): carried_phase47_test.cpp's
  counted wait skipped for the CTA's first MMA: skipped at other positions
  of tile 0 or of other tiles, a second counted barrier at ring position 0.
* prefetch (trip::bytesItsOwn, leftOutWritesOncePerRun, nameWritesAsThePreCopy,
  collectGuards, checked_least): trip_self_prefetch_test.cpp's self-prefetching
  ring: a second view over the third stage's bytes, a refill into the slot
  being read, the prologue's guard reading K otherwise, a read of a slot
  the tail leaves unloaded.
* slices (GoalCollector::sliceCrossGoals, sliceKinks): cover47_test.cpp's two
  warps' row: reads whose bound is not monotone in the parameter (a bump
  at one value only, a crossing and a crossing back, a residue of a square)
  past the stored floats.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sound40_mutants as s40  # noqa: E402
import sound47_mutants as s47  # noqa: E402
from attack_runner import run_index_if_asked, write_index  # noqa: E402

rep = s47.rep

# ---------------------------------------------------------------- far: steps away from the operand's constants
tail, W = s47.tail, s47.W
rtail = s47.rtail
FAR_MUTANTS = [
    ("base", "good", []),
    ("tail_plus7_div_1000", "bad", tail("n_tiles - 1 - (n_tiles + 7) // 1000")),
    ("tail_plus13_mod_997", "bad", tail("n_tiles - 1 - (n_tiles + 13) % 997 // 996")),
    ("tail_div_10_div_100", "bad", tail("n_tiles - 1 - n_tiles // 10 // 100")),
    ("tail_times3_div_1000", "bad", tail("n_tiles - 1 - (3 * n_tiles + 1) // 1000")),
    ("tail_times7_div_5000", "bad", tail("n_tiles - 1 - n_tiles * 7 // 5000")),
    ("tail_eq_far", "bad", tail("n_tiles - 1 - (n_tiles + 11 == 600)")),
    ("tail_min_shifted", "bad", tail("min(n_tiles + 23, 777) - 24")),
    ("tail_max_shifted", "bad", tail("max(n_tiles - 1, 2 * n_tiles - 1010)")),
    ("tail_mod_plus_div", "bad", tail("n_tiles - 1 - (n_tiles % 500 + 3) // 502")),
    ("tail_steps_far", "bad", tail("n_tiles - 1 - (n_tiles + steps + 5) // 900")),
    # the same steps in the tile loop's own wait: every tile's phase one early
    ("loop_plus13_mod_997", "bad", rep("            lm.wait(k_empty, iter=t - 1)\n",
                                       "            lm.wait(k_empty, iter=t - 1 - (n_tiles + 13) % 997 // 996)\n")),
    ("loop_plus7_div_1000", "bad", rep("            lm.wait(k_empty, iter=t - 1)\n",
                                       "            lm.wait(k_empty, iter=t - 1 - (n_tiles + 7) // 1000)\n")),
    ("tail_div2_zero", "good", tail("n_tiles - 1 + n_tiles // 2 * 0")),
    ("tail_div2_twice", "good", tail("n_tiles - 1 + n_tiles // 2 - n_tiles // 2")),
]
RING_MUTANTS = [
    ("base", "good", []),
    ("tail_plus7_div_1000", "bad", rtail("(n_tiles * k_tiles) - 1 - (n_tiles * k_tiles + 7) // 1000")),
    ("tail_plus13_mod_997", "bad", rtail("(n_tiles * k_tiles) - 1 - (n_tiles * k_tiles + 13) % 997 // 996")),
]

# ---------------------------------------------------------------- peel: a peeled first K step with a wait of its own
HEAD = s47.SKIP_T["kHead"]


def producer_tile(pad, count, k0):
    return (f"{pad}for kk in lm.range(0, {count}):\n{pad}    lm.wait(empty, stage=0)\n"
            f"{pad}    smem_a.tma_load(A, coords=(t * 128, ({k0} + kk) * 64), stage=0, barrier=full)\n"
            f"{pad}    smem_b.tma_load(B, coords=(0, ({k0} + kk) * 64), stage=0, barrier=full)\n")


def mma_tile(pad, count):
    return (f"{pad}lm.wait(full, stage=0)\n{pad}lm.wait(tmem_empty, stage=0)\n"
            f"{pad}lm.mma(acc, smem_a[0], smem_b[0], init=True)\n{pad}lm.mma_commit(barrier=empty, stage=0)\n"
            f"{pad}for kk in lm.range(1, {count}):\n{pad}    lm.wait(full, stage=0)\n"
            f"{pad}    lm.mma(acc, smem_a[0], smem_b[0], init=False)\n{pad}    lm.mma_commit(barrier=empty, stage=0)\n"
            f"{pad}lm.mma_commit(barrier=tmem_full, stage=0)\n")


def epi_tile(pad):
    return (f"{pad}lm.wait(tmem_full, stage=0)\n{pad}lm.tmem_load(res, acc)\n{pad}lm.tmem_load_wait()\n"
            f"{pad}lm.arrive(tmem_empty, stage=0)\n{pad}lm.copy(W, res, coords=(t * 128, 0))\n")


def roles(tiles, count, k0):
    loop = f"        for t in lm.range(0, {tiles}):\n"
    pad = " " * 12
    return ("    with producer:\n" + loop + producer_tile(pad, count, k0) + "    with mma:\n        lm.arrive(empty, stage=0)\n"
            + loop + mma_tile(pad, count) + "    with epi:\n        lm.arrive(tmem_empty, stage=0)\n" + loop + epi_tile(pad))


PEELED = ('@cake.schedule(target="sm_100a")\n'
          "def peeled_first_k_step(lm, A: LM.tma2d, B: LM.tma2d, W: LM.gmem, T: LM.i32, K: LM.i32):\n"
          "    lm.assume(T >= 0)\n    lm.assume(K > 0)" + HEAD + roles("T", "k_tiles", "0"))
P_FULL = "            lm.wait(full, stage=0)\n            lm.wait(tmem_empty, stage=0)\n"
P_MMA = "            lm.mma(acc, smem_a[0], smem_b[0], init=True)\n"
P_COMMIT = "            lm.mma_commit(barrier=empty, stage=0)\n            for kk"
P_LOOP = "            for kk in lm.range(1, k_tiles):\n"
B_WAIT = "                lm.wait(full, stage=0)\n                lm.mma(acc, smem_a[0], smem_b[0], init=False)\n"
PEEL_MUTANTS = [
    ("base", "good", []),
    ("waits_swapped", "good", rep(P_FULL, "            lm.wait(tmem_empty, stage=0)\n            lm.wait(full, stage=0)\n")),
    # the K loop from 2: one K step fewer than the producer loads (it waits for a release never given)
    ("loop_from_2", "bad", rep(P_LOOP, "            for kk in lm.range(2, k_tiles):\n")),
    ("loop_one_more", "bad", rep(P_LOOP, "            for kk in lm.range(1, k_tiles + 1):\n")),
    # the peel's MMA before its ring wait: it reads the slot before the load lands
    ("mma_before_full_wait", "bad", rep(P_FULL + P_MMA, "            lm.wait(tmem_empty, stage=0)\n" + P_MMA
                                        + "            lm.wait(full, stage=0)\n")),
    # the peel's MMA before the buffer wait: it overwrites the accumulator the epilogue reads
    ("mma_before_buffer_wait", "bad", rep(P_FULL + P_MMA, "            lm.wait(full, stage=0)\n" + P_MMA
                                          + "            lm.wait(tmem_empty, stage=0)\n")),
    # the peel commits the ring's release to the accumulator's barrier
    ("peel_commit_tmem_full", "bad", rep(P_COMMIT, "            lm.mma_commit(barrier=tmem_full, stage=0)\n            for kk")),
    # the peel waits for the ring twice (one load consumed twice)
    ("peel_full_twice", "bad", rep(P_FULL, "            lm.wait(full, stage=0)\n" + P_FULL)),
    # the body waits the buffer too (a phase the epilogue completes once a tile)
    ("body_buffer_wait", "bad", rep(B_WAIT, "                lm.wait(full, stage=0)\n                lm.wait(tmem_empty, stage=0)\n"
                                    "                lm.mma(acc, smem_a[0], smem_b[0], init=False)\n")),
    # the peel's MMA init=False into an accumulator of the last tile
    ("peel_init_false", "bad", rep(P_MMA, "            lm.mma(acc, smem_a[0], smem_b[0], init=False)\n")),
    # the body's MMA init=True: every K step overwrites (a value error no rule sees: correct sync)
    ("peel_extra_arrive_empty", "bad", rep(P_MMA, P_MMA + "            lm.arrive(empty, stage=0)\n")),
    # the body's first iteration skipped its ring wait
    ("body_wait_not_first", "bad", rep(B_WAIT, "                if kk > 1:\n                    lm.wait(full, stage=0)\n"
                                       "                lm.mma(acc, smem_a[0], smem_b[0], init=False)\n")),
    # the peel's buffer wait only on even tiles
    ("buffer_wait_even_tiles", "bad", rep(P_FULL, "            lm.wait(full, stage=0)\n            if t % 2 == 0:\n"
                                          "                lm.wait(tmem_empty, stage=0)\n")),
]

# ---------------------------------------------------------------- carried: a counted phase carried across tiles
CAR_T = s47.cpp_strings("tests/encoder/carried_phase47_test.cpp")
CARRIED = CAR_T["kCarried"].lstrip("\n")
C_WAIT = CAR_T["kWait"]


def cwait(guard):
    return rep(C_WAIT, C_WAIT.replace("(j > 0) or (t > 0)", guard))


CARRIED_MUTANTS = [
    ("base", "good", []),
    ("guard_spelled_ne", "good", cwait("j != 0 or t != 0")),
    ("guard_ring_index", "good", cwait("t * steps + j > 0")),
    ("skip_j1_of_tile0", "bad", cwait("(j != 1) or (t > 0)")),
    ("skip_first_of_tile1", "bad", cwait("(j > 0) or (t != 1)")),
    ("skip_first_two_tiles", "bad", cwait("(j > 0) or (t > 1)")),
    ("skip_all_first", "bad", cwait("j > 0")),
    ("skip_last_tile_first", "bad", cwait("(j > 0) or (t > 0 and t < n_tiles - 1)")),
    ("skip_steps1", "bad", cwait("(j > 0) or (t > 0) or (steps == 1)")),
    ("skip_tile0_both", "bad", cwait("(j > 1) or (t > 0)")),
    ("wait_twice_first", "bad", rep(C_WAIT, C_WAIT + "                if j == 0 and t > 0:\n                    lm.wait(d_empty, stage=0)\n")),
]

# ---------------------------------------------------------------- prefetch: a self-prefetching persistent ring
PF_T = s47.cpp_strings("tests/encoder/trip_self_prefetch_test.cpp")
PF = PF_T["kSelfPrefetch"].lstrip("\n")
PF_POOL = "    pool = lm.smem(49152)\n"
PF_XS = '    xs   = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=3, swizzle="128B")\n'
PF_YS = PF_XS + '    ys   = pool.view(offset=16384, shape=(64, 64), dtype=lm.bf16, swizzle="128B")\n'
PF_REGS = "    acc  = lm.regs(shape=(64, 64), dtype=lm.f32)\n"
PF_R = PF_REGS + "    rb   = lm.regs(shape=(64, 64), dtype=lm.bf16)\n"
PF_END = "            lm.mma_wait(pending=0)\n"
PF_REFILL = "                if k + 2 < K:\n                    xs.tma_load(A, coords=(t * 64, (k + 2) * 64), iter=it + 2, barrier=full)\n"
PF_MMA = "                lm.mma(acc, xs[it], xs[it], init=(k == 0))\n"
PREFETCH_MUTANTS = [
    ("base", "good", []),
    # a second view over the third stage's bytes, written at each tile's end:
    # it overwrites ring steps the next tile's prologue did not load (slot 2
    # holds the step the last refill loaded, still read where K % 3 != 0...)
    ("ys_written_tile_end", "bad", rep(PF_XS, PF_YS) + rep(PF_REGS, PF_R)
     + rep(PF_MMA, PF_MMA + "                if k == 0:\n                    lm.fill(rb, 0.5)\n                    lm.copy(ys, rb)\n")),
    ("ys_written_last_k", "bad", rep(PF_XS, PF_YS) + rep(PF_REGS, PF_R)
     + rep(PF_REFILL, PF_REFILL + "                if k + 2 == K:\n                    lm.fill(rb, 0.5)\n                    lm.copy(ys, rb)\n")),
    # (a read through ys of bytes the ring's loads write through xs: data.stale-read)
    ("ys_read_only", "bad", rep(PF_XS, PF_YS) + rep(PF_REGS, PF_R) + rep(PF_END, PF_END + "            lm.copy(rb, ys)\n")),
    # the refill one step further ahead in the tile's last refill only
    ("refill_last_far", "bad", rep(PF_REFILL, "                if k + 3 == K:\n                    xs.tma_load(A, coords=(t * 64, (k + 2) * 64), iter=it + 3, barrier=full)\n"
                                   "                elif k + 2 < K:\n                    xs.tma_load(A, coords=(t * 64, (k + 2) * 64), iter=it + 2, barrier=full)\n")),
    # the last K step reads the slot of the next ring step (not loaded yet)
    ("last_reads_next", "bad", rep(PF_MMA, "                if k + 1 == K:\n                    lm.mma(acc, xs[it + 1], xs[it], init=(k == 0))\n"
                                   "                else:\n    " + PF_MMA)),
    # a copy of the slot into registers in the tile's last step: after its mma_wait(pending=1)
    ("last_copy_pending", "bad", rep(PF_REGS, PF_R) + rep(PF_REFILL, PF_REFILL + "                if k + 1 == K:\n                    lm.copy(rb, xs[it + 2])\n")),
    # the refill waits nothing and the wait reads the step two ahead
    ("refill_at_k_plus_1", "bad", rep(PF_REFILL, PF_REFILL.replace("k + 2 < K", "k + 1 < K"))),
]

# ---------------------------------------------------------------- slices: read bounds not monotone in the parameter
def row(n, read, p_max, q_max=64):
    return ('@cake.schedule(target="sm_80")\n'
            "def slices(lm, Src: LM.gmem, Dst: LM.gmem, P: LM.i32, Q: LM.i32):\n"
            f"    lm.assume(P >= 1)\n    lm.assume(P <= {p_max})\n    lm.assume(Q >= 1)\n    lm.assume(Q <= {q_max})\n"
            "    pool = lm.smem(1024)\n"
            "    buf = pool.view(offset=0, shape=(1, 128), dtype=lm.f32)\n"
            "    part = lm.regs(shape=(1, 128), dtype=lm.f32)\n"
            "    got = lm.regs(shape=(1, 128), dtype=lm.f32)\n"
            "    red = lm.regs(shape=(1, 1), dtype=lm.f32)\n"
            "    warps = lm.role(warps=[0, 1], group=1)\n"
            "    block = lm.named_barrier(roles=[warps])\n"
            "    with warps:\n"
            "        w = lm.instance()\n"
            f"        n = {n}\n"
            "        lm.copy(part[0:1, 0:n], Src, coords=(lm.block_idx(0), 0))\n"
            "        lm.copy(buf[0][0:1, 32 * w:32 * w + n], part[0:1, 0:n])\n"
            "        lm.sync(block)\n"
            f"        lm.copy(got[0:1, 0:{read}], buf[0][0:1, 0:{read}])\n"
            f"        lm.reduce(red, got[0:1, 0:{read}], op=\"max\", axis=1)\n"
            "        lm.copy(Dst, red, coords=(lm.block_idx(0), w))\n")


SLICE_TEXTS = [
    ("read_64", "good", row("32", "64", 1000)),
    # a bump of one float at P = 41 only
    ("bump_at_41", "bad", row("32", "64 + max(0, P - 40) * max(0, 42 - P)", 1000)),
    ("bump_at_541", "bad", row("32", "64 + max(0, P - 540) * max(0, 542 - P)", 1000)),
    # up past 64 and back: 2 * P below 40, then 104 - P
    ("tent", "bad", row("32", "min(2 * P, 104 - P)", 1000)),
    ("tent_twin", "good", row("32", "min(min(2 * P, 104 - P), 64)", 1000)),
    # a read down to 62 floats and back up past 64 from P = 700
    ("valley", "bad", row("32", "max(64 - P, P - 636, 1)", 1000)),
    # a residue past the stores at one value in 97
    ("residue", "bad", row("32", "64 + (P % 97 == 50)", 1000)),
    ("residue_twin", "good", row("32", "64 - (P % 97 == 50)", 1000)),
    # a residue of a square: one float too many at P = 500 and 509 only (main
    # ran P = 1 alone: exit 0 checked)
    ("square_residue", "bad", row("32", "64 + (P * P % 1009 == 777)", 1000)),
    ("square_residue_twin", "good", row("32", "64 - (P * P % 1009 == 777)", 1000)),
    # a bump of a square: one float too many at P = 541 only
    ("square_bump", "bad", row("32", "min(128, 65 - (P - 541) * (P - 541))", 1000)),
    ("square_bump_twin", "good", row("32", "min(64, 65 - (P - 541) * (P - 541))", 1000)),
    # stores that shrink at one value only
    ("store_dip", "bad", row("32 - max(0, P - 300) * max(0, 302 - P)", "64", 1000)),
]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    out = args[0]
    index = []
    s40.write(out, "far", s47.EXIT, FAR_MUTANTS, index)
    s40.write(out, "farring", s47.RING, RING_MUTANTS, index)
    s40.write(out, "peel", PEELED, PEEL_MUTANTS, index)
    s40.write(out, "carried", CARRIED, CARRIED_MUTANTS, index)
    s40.write(out, "prefetch", PF, PREFETCH_MUTANTS, index)
    for name, label, text in SLICE_TEXTS:
        s40.write_text(out, "slices", name, label, text, index)
    write_index(out, index)
    run_index_if_asked(out)


if __name__ == "__main__":
    main()
