#!/usr/bin/env python3
"""Session 52's soundness attack (helper attack52, docs/z3.md "Session 52
(helper attack52)"): broken schedules aimed at the proof arguments session 51
added, with correct twins, written to OUT/<base>/<label>_<name>.cake, then
`cake check` and `cake check --require-proof` on each:

    bench/attacks/attack52_mutants.py OUT                # writes the files
    bench/attacks/attack52_mutants.py OUT --run [CAKE]   # also runs cake on each

A "bad" schedule is broken: `cake check` must exit 1, or 2 (unknown), never 0,
and `--require-proof` must not prove it (the runner marks either HOLE). A
"good" one is correct in the model: an exit 1 is a false alarm (the runner
marks it "good reported"); unknown is allowed. ONLY=base,... and MATCH=regex
pick what runs. Bases (run from the repository root):

* fp8 (fp8_51's register hazards decided by true runs in residue cases of
  `k % q`, review51's exits): the persistent FP8 promotion interval of
  tests/encoder/fp8_interval51_test.cpp with the residue promotion kept on
  some residues of the K trip count only, under lm.assume facts that rule
  residues out exactly, one off (`K % 512 == 129` is k_tiles 2 modulo 4, not
  1), or through another parameter; a product left to the next tile on some
  tiles (`t % 2`, `t % 4`: lost within the run or only at the exit after
  1, 2 or 3 tiles modulo 4); two temporaries alternating by tile; a second
  restart at a residue; a promotion whose guard reads the ring index.
* renamed (fa4_51's tile period of the renamed reads asked first, the narrow
  16 x 12 window): the two-slot-Q store-warp reproducer of
  tests/encoder/s_ahead_kernel.h with the tile's first S reading or waiting
  a lap off from tile 2..17 on (the old warm-up 7, the new 4, the window's
  16), Q of another tile from tile x on.
* fa4 (the same on FA4 itself, corpus/attention/sm100_fa4_persistent_correction_tmem.cake):
  the first S from tile x on a lap off, the O accumulator restarted a block
  late from tile x on, Q's release a tile early from tile x on.
* far (far51's checks::bendsOver): cover47's row kernel reading `64 + part`
  columns, 64 written, where the part repeats in P (residues, floor and
  ceiling quotients by positive and negative divisors, products with large
  constants, min and comparisons of parts that gain alike) and is 1 at
  values no binding runs; facts that rule those values out exactly (correct)
  or one off (broken); a second parameter in the part.
* seed (hunt51's "a value its reader seeds, in part"): the two-warp stencil of
  StaleRead.StencilRowSeededByItsReaderUpdatedByAnother with an update
  skipped in one round (the first, the second, every other), a half-row seed,
  the reader's own rows updated by itself, an extra writer before the first
  read; correct twins (the last round's update skipped: no one reads it).
* tail (sound51's dead-tail cut premises, TailCutter::definedUnder): the
  reduced tail ring with respelled thresholds (one past: broken), conditions
  that divide by a difference that is zero in the tail, short-circuit
  conditions, inner loops whose bounds divide in the tail.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attack_runner import corpus, main_bases, raw_string, rep, strip_header  # noqa: E402
import sound49_mutants as s49  # noqa: E402
import sound51_mutants as s51  # noqa: E402


def slug(text):
    return re.sub(r"\W+", "_", text.replace(">=", "ge").replace("<=", "le").replace("!=", "ne").replace("%", "mod")
                  .replace("==", "eq").replace("<", "lt").replace(">", "gt")).strip("_")


# ---------------------------------------------------------------- fp8
def fp8():
    base = raw_string("tests/encoder/fp8_interval51_test.cpp", "kInterval")
    RES = "            if k_tiles % 4 != 0:\n                lm.binary(acc, acc, tmp, op=\"add\")\n"
    FILL = "            lm.fill(acc, 0.0)\n"
    ASSUME = "    lm.assume(K > 0)\n"

    def residue_if(cond, text=base):
        return rep(text, RES, f"            if {cond}:\n                lm.binary(acc, acc, tmp, op=\"add\")\n")

    def assume(fact, text):
        return rep(text, ASSUME, ASSUME + f"    lm.assume({fact})\n")

    out = [("good", "base", base)]
    # the residue promotion on some residues only (k_tiles = lm.cdiv(K, 64))
    for cond, label in [("k_tiles % 4 == 1", "bad"), ("k_tiles % 2 != 0", "bad"), ("k_tiles % 4 > 1", "bad"),
                        ("k_tiles % 4 != 3", "bad"), ("(k_tiles + 1) % 4 != 1", "good"),
                        ("k_tiles % 4 != 0 or k_tiles % 2 == 0", "good")]:
        out.append((label, "residue_if_" + slug(cond), residue_if(cond)))
    # facts that rule residues out: K % 512 picks lm.cdiv(K, 64) % 8, hence % 4
    for fact, cond, label in [
            ("K % 256 == 0", "k_tiles % 4 == 2", "good"),     # residue 0 only: nothing to promote
            ("K % 256 == 0", "k_tiles % 4 == 1", "good"),
            ("K % 256 == 64", "k_tiles % 4 == 1", "good"),    # 1 only (K = 256 j + 64)
            ("K % 256 == 65", "k_tiles % 4 == 1", "bad"),     # lm.cdiv: 2, not 1 (one off)
            ("K % 256 == 65", "k_tiles % 4 == 2", "good"),
            ("K % 256 == 128", "k_tiles % 4 == 3", "bad"),     # residue 2
            ("K % 256 == 192", "k_tiles % 4 == 3", "good"),
            ("K % 256 == 193", "k_tiles % 4 == 3", "good"),   # 193 / 64 rounds up to 4: residue 0
            ("K % 256 == 129", "k_tiles % 4 == 2", "bad"),    # rounds up to 3
            ("K % 256 == 129", "k_tiles % 4 == 3", "good"),
            ("K % 256 == 193", "k_tiles % 4 == 7", "good"),   # residue 0: nothing to promote
            ("K % 128 == 0 or K % 256 == 1", "k_tiles % 4 == 2", "bad"),  # K = 256 j + 1: residue 1
            ("K % 128 == 0 or K % 256 == 1", "k_tiles % 2 == 1 or k_tiles % 4 == 2", "good"),
            ("K % 1024 == 640", "k_tiles % 4 == 2", "good"),  # 640 / 64 = 10: residue 2
            ("K % 1024 == 640", "k_tiles % 4 == 1", "bad"),
            ("K > 0 - K", "k_tiles % 4 == 3", "bad"),         # no residue ruled out
            ("K % 64 == 0 and (K // 64) % 4 != 2", "k_tiles % 4 == 1 or k_tiles % 4 == 3", "good"),
            ("K % 64 == 0 and (K // 64) % 4 != 2", "k_tiles % 4 == 1", "bad")]:
        out.append((label, f"fact_{slug(fact)}_if_{slug(cond)}", assume(fact, residue_if(cond))))
    # facts through a second parameter: M picks K
    two = rep(base, "M: LM.i32, K: LM.i32):", "M: LM.i32, K: LM.i32, J: LM.i32):")
    two = rep(two, ASSUME, ASSUME + "    lm.assume(J > 0)\n")
    for fact, cond, label in [("K == 256 * J", "k_tiles % 4 == 2", "good"), ("K == 256 * J + 64", "k_tiles % 4 == 2", "bad"),
                              ("K == 256 * J + 64", "k_tiles % 4 == 1", "good"), ("K == 128 * J", "k_tiles % 4 == 2", "good"),
                              ("K == 128 * J", "k_tiles % 4 == 1", "bad")]:
        out.append((label, f"param_{slug(fact)}_if_{slug(cond)}", assume(fact, residue_if(cond, two))))
    # a product left to the next tile on some tiles: lost within the run, or
    # only at the exit (review51's form: tile t % 4 == a leaves it, t % 4 == b collects)
    for a, b in [(2, 3), (1, 2), (0, 1), (1, 3), (0, 3)]:
        t = residue_if(f"k_tiles % 4 != 0 and t % 4 != {a}")
        t = rep(t, FILL, FILL + f"            if t % 4 == {b}:\n                lm.binary(acc, acc, tmp, op=\"add\")\n")
        out.append(("bad", f"left_at_t{a}_collected_at_t{b}", t))
    t = residue_if("k_tiles % 4 != 0 and t % 2 == 0")
    out.append(("bad", "left_on_odd_tiles", t))
    t = rep(t, FILL, FILL + "            if t % 2 == 0:\n                lm.binary(acc, acc, tmp, op=\"add\")\n")
    out.append(("bad", "left_on_odd_collected_on_even", t))
    # collected by the next tile, and the last tile's residue promoted after the loop is not possible
    # (no op after the tile loop may name a fragment): the twin that collects every
    # tile's residue at the next tile and promotes the residue of every tile too (correct)
    t = rep(base, FILL, FILL + "            if t % 4 == 3:\n                lm.binary(acc, acc, tmp, op=\"add\")\n")
    out.append(("good", "collect_again_at_t3", t))
    # two temporaries alternating by tile
    alt = rep(base, "    tmp    = lm.regs(shape=(64, 128), dtype=lm.f32)\n",
              "    tmp    = lm.regs(shape=(64, 128), dtype=lm.f32)\n    tmq    = lm.regs(shape=(64, 128), dtype=lm.f32)\n")
    MMA = "                lm.mma(tmp, smem_a[it][m0:m0 + 64, :], smem_b[it], init=(k % 4 == 0))\n"
    PROMO = "                if (k + 1) % 4 == 0:\n                    lm.binary(acc, acc, tmp, op=\"add\")\n"
    alt = rep(alt, MMA, "                if t % 2 == 0:\n    " + MMA + "                else:\n    "
              + MMA.replace("mma(tmp", "mma(tmq"))
    alt_good = rep(alt, PROMO, "                if (k + 1) % 4 == 0:\n                    if t % 2 == 0:\n"
                   "                        lm.binary(acc, acc, tmp, op=\"add\")\n                    else:\n"
                   "                        lm.binary(acc, acc, tmq, op=\"add\")\n")
    alt_good = rep(alt_good, RES, "            if k_tiles % 4 != 0:\n                if t % 2 == 0:\n"
                   "                    lm.binary(acc, acc, tmp, op=\"add\")\n                else:\n"
                   "                    lm.binary(acc, acc, tmq, op=\"add\")\n")
    out.append(("good", "two_temporaries", alt_good))
    out.append(("bad", "two_temporaries_odd_residue_dropped",
                rep(alt_good, "                else:\n                    lm.binary(acc, acc, tmq, op=\"add\")\n", "")))
    out.append(("bad", "two_temporaries_odd_residue_from_tmp",
                rep(alt_good, "                else:\n                    lm.binary(acc, acc, tmq, op=\"add\")\n",
                    "                else:\n                    lm.binary(acc, acc, tmp, op=\"add\")\n")))
    # restarts and promotions at other residues
    for init, label in [("k % 4 == 0 or k % 4 == 2", "bad"), ("k % 2 == 0", "bad"), ("(k + 4) % 4 == 0", "good"),
                        ("(k * 5) % 4 == 0", "good"), ("(k * 3) % 4 == 0", "good"), ("(k * 2) % 4 == 0", "bad"),
                        ("(k + t) % 4 == 0", "bad"), ("(k + 4 * t) % 4 == 0", "good"), ("(k * k) % 4 == 0", "bad")]:
        out.append((label, "init_" + slug(init), rep(base, "init=(k % 4 == 0)", f"init=({init})")))
    for promo, label in [("(it + 1) % 4 == 0", "bad"), ("(k + 1) % 2 == 0", "good"), ("(k + 3) % 4 == 2", "good"),
                         ("(k + 2) % 4 == 0", "bad")]:
        out.append((label, "promote_if_" + slug(promo), rep(base, "if (k + 1) % 4 == 0:", f"if {promo}:")))
    # (k + 1) % 2: promotes twice an interval, the second re-reads; correct by the model
    # the persistent corpus form with its facts one off
    cf = strip_header(corpus("gemm/sm90_fp8_promotion_interval_persistent.cake"))
    CRES = "            if k_tiles % 4 != 0:\n"
    out.append(("good", "corpus", cf))
    out.append(("good", "corpus_K_512", rep(rep(cf, "    lm.assume(K > 0)\n", "    lm.assume(K > 0)\n    lm.assume(K % 512 == 0)\n"),
                                             CRES, "            if k_tiles % 4 == 5:\n")))
    out.append(("bad", "corpus_K_512_plus_1", rep(rep(cf, "    lm.assume(K > 0)\n", "    lm.assume(K > 0)\n    lm.assume(K % 512 == 1)\n"),
                                                   CRES, "            if k_tiles % 4 == 5:\n")))
    out.append(("good", "corpus_K_512_minus_1", rep(rep(cf, "    lm.assume(K > 0)\n", "    lm.assume(K > 0)\n    lm.assume(K % 512 == 511)\n"),
                                                     CRES, "            if k_tiles % 4 == 5:\n")))  # rounds up: residue 0
    out.append(("bad", "corpus_K_512_383", rep(rep(cf, "    lm.assume(K > 0)\n", "    lm.assume(K > 0)\n    lm.assume(K % 512 == 383)\n"),
                                                CRES, "            if k_tiles % 4 == 5:\n")))  # residue 3
    return out


# ---------------------------------------------------------------- renamed
def first_s_from_tile(base, first, x, wait, read, q):
    """`base` with its tile's first S (`first`: the wait on k_full and the
    MMA) as written before tile x and waiting on `wait`, reading smem_q[q]
    and smem_k[read] from tile x on."""
    alt = (f"            lm.wait(k_full, iter={wait})\n"
           f"            lm.mma(tmem_s, smem_q[{q}], smem_k[{read}], init=True)\n")
    return rep(base, first, f"            if t < {x}:\n" + "".join("    " + l + "\n" for l in first.splitlines())
               + "            else:\n" + "".join("    " + l + "\n" for l in alt.splitlines()))


def renamed():
    base = s51.q_on_two_slots()
    FIRST = ("            lm.wait(k_full, iter=base)\n"
             "            lm.mma(tmem_s, smem_q[t], smem_k[base], init=True)\n")
    out = [("good", "base", base)]

    def from_tile(x, wait, read, q="t"):
        return first_s_from_tile(base, FIRST, x, wait, read, q)

    for x in [2, 5, 6, 8, 10, 11, 13, 16, 17]:
        out.append(("bad", f"first_s_reads_next_lap_from_{x}", from_tile(x, "base", "base + 2")))
        out.append(("bad", f"first_s_reads_lap_behind_from_{x}", from_tile(x, "base - 2", "base - 2")))
        out.append(("bad", f"first_s_waits_lap_behind_from_{x}", from_tile(x, "base - 2", "base")))
        out.append(("bad", f"first_s_reads_other_q_from_{x}", from_tile(x, "base", "base", q="t + 1")))
        out.append(("good", f"first_s_respelled_from_{x}", from_tile(x, "t * n_blocks", "t * n_blocks", q="t + 2 - 2")))
    # the next block's S in a K iteration a lap off from tile x on
    NEXT = "                    lm.mma(tmem_s, smem_q[t], smem_k[it + 1], init=True)\n"
    for x in [5, 9, 13]:
        out.append(("bad", f"next_s_reads_lap_behind_from_{x}",
                    rep(base, NEXT, NEXT.replace("smem_k[it + 1]", f"smem_k[it + 1 - 2 * (t // {x})]"))))
    # the soft warps' release of S late from tile x on (a wait on s_free is the MMA's)
    for x in [5, 9]:
        out.append(("bad", f"s_free_a_lap_early_from_{x}",
                    rep(base, "                lm.arrive(s_free, iter=it)\n",
                        f"                if t < {x} or j > 0:\n                    lm.arrive(s_free, iter=it)\n")))
    return out


# ---------------------------------------------------------------- fa4
def fa4():
    base = strip_header(corpus("attention/sm100_fa4_persistent_correction_tmem.cake"))
    FIRST = ("            lm.wait(k_full, iter=g0)\n"
             "            lm.mma(tmem_s, smem_q[t], smem_k[g0], init=True)\n")

    def from_tile(x, wait, read, q="t"):
        return first_s_from_tile(base, FIRST, x, wait, read, q)

    out = [("good", "base", base)]
    for x in [5, 6, 9]:
        out.append(("bad", f"first_s_reads_lap_behind_from_{x}", from_tile(x, "g0 - 2", "g0 - 2")))
        out.append(("bad", f"first_s_reads_other_q_from_{x}", from_tile(x, "g0", "g0", q="t + 1")))
    out.append(("good", "first_s_respelled_from_5", from_tile(5, "t * n_blocks", "t * n_blocks")))
    for x in [5, 7]:
        out.append(("bad", f"q_released_a_tile_early_from_{x}",
                    rep(base, "            if t + 2 < T:\n                lm.mma_commit(barrier=q_empty, iter=t)\n",
                        f"            if t + 2 < T:\n                lm.mma_commit(barrier=q_empty, iter=t + (t >= {x}))\n")))
        out.append(("bad", f"o_init_a_block_late_from_{x}",
                    rep(base, "init=(j == 0))", f"init=(j == (t >= {x})))")))
    return out


# ---------------------------------------------------------------- far
def far():
    # 64 columns written; `64 + part` read: any part value > 0 reads unwritten ones
    def row(part, guard="", facts=""):
        t = s49.ROW.replace("GUARD", guard).replace("READ", f"64 + ({part})")
        return rep(t, "    lm.assume(P <= 1000)\n", "    lm.assume(P <= 1000)\n" + facts)

    out = [("good", "zero_part", row("P - P"))]
    for part, facts, label in [
            ("P % 250 == 137", "", "bad"),
            ("P % 250 == 137", "    lm.assume(P % 250 != 137)\n", "good"),
            ("P % 250 == 137", "    lm.assume(P % 2 == 0)\n", "good"),
            ("P % 250 == 136", "    lm.assume(P % 2 == 0)\n", "bad"),
            ("P % 250 == 137", "    lm.assume((P + 1) % 250 != 138)\n", "good"),
            ("P % 250 == 137", "    lm.assume((P + 1) % 250 != 137)\n", "bad"),
            ("(P + 9) // 700 - (P + 3) // 700", "", "bad"),
            ("(P + 9) // 700 - (P + 3) // 700", "    lm.assume(P % 7 == 0)\n", "bad"),   # 693 = 7 * 99
            ("(P + 9) // 700 - (P + 3) // 700", "    lm.assume(P % 7 == 4)\n", "good"),  # 691..696 are 5, 6, 0, 1, 2, 3 mod 7
            ("lm.cdiv(P, 300) - P // 300 - (P % 300 != 0)", "", "good"),
            ("lm.cdiv(P, 300) - P // 300 - (P % 300 > 1)", "", "bad"),
            ("P // -7 % 100 == 50", "", "bad"),
            ("(P * 1000000007) % 1000 == 777", "", "bad"),
            ("(P * 1000000007) % 1000 == 777", "    lm.assume(P % 1000 != 111)\n", "good"),
            ("min(P % 400, 200) - max(P % 400, 200) == -1", "", "bad"),
            ("(P % 300 < 150) - (P % 300 < 149)", "", "bad"),
            ("(P - 3000) % 250 == 137", "", "bad"),
            ("((P + 11) % 500 // 499) * 2", "    lm.assume(P % 64 != 0)\n", "bad"),  # 488, 988
            ("((P + 12) % 500 // 499)", "    lm.assume(P % 4 != 3)\n", "good"),  # 487, 987: both 3 mod 4
            ("P % 4096 == 999", "", "bad"),
            ("P % 4097 == 999", "", "bad"),
            ("3 * lm.cdiv(P, 64) + P // 64 - 4 * (P // 64) - 3 * (P % 64 != 0)", "", "good"),
            ("3 * lm.cdiv(P, 64) + P // 64 - 4 * (P // 64) - 3 * (P % 64 > 1)", "", "bad"),
            ("3 - 3 * lm.cdiv(P, 64) + 3 * (P // 64)", "    lm.assume(P % 64 != 0)\n", "good"),
            ("3 - 3 * lm.cdiv(P, 64) + 3 * (P // 64)", "    lm.assume(P % 64 != 1)\n", "bad")]:
        out.append((label, f"{slug(part)}_{slug(facts) or 'nofacts'}", row(part, facts=facts)))
    # a second parameter read by the part (fixed at the base while P moves)
    two = s49.ROW.replace("P: LM.i32):", "P: LM.i32, Q: LM.i32):").replace("GUARD", "")
    two = rep(two, "    lm.assume(P <= 1000)\n", "    lm.assume(P <= 1000)\n    lm.assume(Q >= 0)\n    lm.assume(Q <= 3)\n")
    for i, (part, label) in enumerate([("(P + 250 * Q) % 1000 == 777", "bad"), ("(P + Q) % 250 == 137", "bad"),
                                       ("(P * Q) % 250 == 137", "bad"), ("(P + 250 * Q) % 1000 == 1777", "good")]):
        out.append((label, f"two{i}_{slug(part)}", two.replace("READ", f"64 + ({part})")))
    return out


# ---------------------------------------------------------------- seed
STENCIL = '''@cake.schedule(target="sm_80")
def stencil(lm, X: LM.gmem, Y: LM.gmem, n: LM.i32):
    pool = lm.smem(1024)
    buf  = pool.view(offset=0, shape=(4, 8), dtype=lm.f32)
    two  = lm.regs(shape=(2, 8), dtype=lm.f32)
    all4 = lm.regs(shape=(4, 8), dtype=lm.f32)
    one  = lm.regs(shape=(1, 8), dtype=lm.f32)
    ws = lm.role(warps=[0, 1], group=1)
    bar = lm.named_barrier(roles=[ws])
    with ws:
        w = lm.instance()
        lm.copy(two, X, coords=(2 * w, 0))
        lm.copy(buf[0][2 * w:2 * w + 2, :], two)
        lm.sync(bar)
        for it in lm.range(0, n):
            lm.copy(all4, buf[0])
            lm.sync(bar)
            lm.copy(one, all4[1:2, :])
            lm.copy(buf[0][2 - w:3 - w, :], one)
            lm.sync(bar)
        lm.copy(Y, all4, coords=(4 * w, 0))
'''


def seed():
    base = STENCIL
    UPD = "            lm.copy(buf[0][2 - w:3 - w, :], one)\n"

    def upd_if(cond, text=base):
        return rep(text, UPD, f"            if {cond}:\n    {UPD}")

    out = [("good", "base", base)]
    for cond, label in [("w == 1 or it != 1", "bad"), ("w == 0 or it != 1", "bad"), ("it != 1", "bad"),
                        ("w == 1 or it != 0", "bad"), ("w == 0 or it != 0", "bad"), ("w == 1 or it % 2 == 0", "bad"),
                        ("w == 1 or it == 0", "bad"), ("it + 1 < n", "good"), ("w == 0 or it + 1 < n", "good"),
                        ("w == 1 or it != 2", "bad")]:
        out.append((label, "update_if_" + slug(cond), upd_if(cond)))
    # half-row seeds: warp 1 seeds the left half of row 2, warp 0 its right half
    half = rep(base, "        lm.copy(buf[0][2 * w:2 * w + 2, :], two)\n",
               "        lm.copy(buf[0][2 * w:2 * w + 2, 4 * w:4 * w + 4], two[0:2, 4 * w:4 * w + 4])\n"
               "        lm.copy(buf[0][2 * w:2 * w + 2, 4 - 4 * w:8 - 4 * w], two[0:2, 4 - 4 * w:8 - 4 * w])\n")
    out.append(("good", "half_seed_same", half))
    split = rep(base, "        lm.copy(buf[0][2 * w:2 * w + 2, :], two)\n",
                "        lm.copy(buf[0][2 * w:2 * w + 2, 0:4], two[0:2, 0:4])\n"
                "        lm.copy(buf[0][2 - 2 * w:4 - 2 * w, 4:8], two[0:2, 4:8])\n")
    out.append(("good", "split_seed", split))
    for cond in ["w == 1 or it != 1", "w == 0 or it != 1", "w == 1 or it != 0"]:
        out.append(("bad", "split_seed_update_if_" + slug(cond), upd_if(cond, split)))
    # the update writes half a row; its other half stays the seed (written once)
    halfupd = rep(base, UPD, "            lm.copy(buf[0][2 - w:3 - w, 0:4], one[0:1, 0:4])\n")
    out.append(("good", "half_update", halfupd))
    HALF = "            lm.copy(buf[0][2 - w:3 - w, 0:4], one[0:1, 0:4])\n"
    out.append(("bad", "half_update_skipped_round_1", rep(halfupd, HALF, "            if w == 1 or it != 1:\n    " + HALF)))
    # each warp updates a row it seeded itself, and the other warp's
    own = rep(base, UPD, "            lm.copy(buf[0][2 - w:3 - w, :], one)\n            lm.copy(buf[0][3 * w:3 * w + 1, :], one)\n")
    out.append(("good", "own_and_other", own))
    out.append(("bad", "own_and_other_other_skipped_round_1",
                rep(own, "            lm.copy(buf[0][2 - w:3 - w, :], one)\n            lm.copy(buf[0][3 * w",
                    "            if w == 1 or it != 1:\n                lm.copy(buf[0][2 - w:3 - w, :], one)\n"
                    "            lm.copy(buf[0][3 * w")))
    # three rounds with n fixed by a fact, and the middle update skipped
    fixed = rep(base, "    pool = lm.smem(1024)\n", "    lm.assume(n == 3)\n    pool = lm.smem(1024)\n")
    out.append(("good", "n_is_3", fixed))
    out.append(("bad", "n_is_3_update_if_w_1_or_it_ne_1", upd_if("w == 1 or it != 1", fixed)))
    # the row its reader seeded rewritten by its updater before the first read
    # (a pre-update): the first read finds the updater's lap 0, not the seed
    pre = rep(base, "        lm.sync(bar)\n        for it", "        lm.sync(bar)\n"
              "        lm.copy(buf[0][2 - w:3 - w, :], two[0:1, :])\n        lm.sync(bar)\n        for it")
    out.append(("good", "pre_update", pre))
    for cond, label in [("w == 1 or it != 0", "bad"), ("w == 0 or it != 0", "bad"), ("it != 0", "bad"),
                        ("w == 1 or it != 1", "bad"), ("it + 1 < n", "good")]:
        out.append((label, "pre_update_if_" + slug(cond), upd_if(cond, pre)))
    # the pre-update by the updater of the other row (w writes row 2 - w, updates row 1 + w): the seeder's row
    # then holds the other's lap 0 for its first read
    # a barrier late: the update after the round's last barrier, before the next round's reads
    late = rep(base, UPD + "            lm.sync(bar)\n", "            lm.sync(bar)\n" + UPD)
    out.append(("bad", "update_after_last_barrier", late))
    return out


# ---------------------------------------------------------------- tail
def tail():
    base = raw_string("tests/encoder/tail_ring_kernel.h", "kTailRing")
    CONS_IF = "            if i < m:\n                lm.wait(full"
    END = "                lm.copy(Out, rows, coords=(4 * i, 0))\n"

    def cons_if(cond):
        return rep(base, CONS_IF, f"            if {cond}:\n                lm.wait(full")

    def cons_tail(t):
        return rep(base, END, END + t)

    out = [("good", "base", base)]
    for cond, label in [("m > i", "good"), ("not (i >= m)", "good"), ("i - m < 0", "good"), ("2 * i < 2 * m", "good"),
                        ("i < m and i < n", "good"), ("i <= m - 1", "good"), ("i < m + (n - n)", "good"),
                        ("i <= m", "bad"), ("2 * i < 2 * m + 1", "bad"), ("not (i > m)", "bad"), ("i - m < 1", "bad"),
                        ("i < m or i == m", "bad"), ("(i + 1) // 2 <= m // 2 or i < m", "bad"),
                        ("i < m or (i - m) // (i - m) == 2", "bad"), ("i < m or 1 // (i - m + 1) == 1", "bad"),
                        ("i < m or (n - i) // (n - i) == 1", "bad"), ("i < m or m // (i - m) > n", "bad"),
                        ("i < m or i * i < 0", "good"), ("i < m or (i - m) * 4611686018427387904 < 0", "good"),
                        ("i < m or (i - m + 1) * 4611686018427387904 == 4611686018427387904", "bad")]:
        out.append((label, "cons_if_" + slug(cond), cons_if(cond)))
    # work in the tail under a condition undefined exactly at the threshold
    for cond, label in [("i >= m and (n - m) // (i - m) >= 0", "bad"), ("i > m and (n - m) // (i - m) >= 0", "bad"),
                        ("i >= m and (i - m) // (i - m + 1) < 0", "good"), ("i >= m + 1 and m // (i - m) >= 0", "bad")]:
        out.append((label, "tail_work_if_" + slug(cond),
                    cons_tail(f"            if {cond}:\n                lm.wait(full, iter=i)\n")))
    # an inner loop whose bound divides by a difference zero in the tail
    for bound, label in [("(n - m) // (i - m + 1)", "bad"), ("1 // (m - i)", "bad"), ("(i - m) // (i - m + 1)", "good")]:
        out.append((label, "tail_inner_" + slug(bound),
                    cons_tail(f"            if i >= m:\n                for j in lm.range(0, {bound}):\n"
                              "                    lm.wait(full, iter=i)\n")))
    return out


BASES = [("fp8", fp8), ("renamed", renamed), ("fa4", fa4), ("far", far), ("seed", seed), ("tail", tail)]


if __name__ == "__main__":
    main_bases(BASES, require_proof=True, timeout=240)
