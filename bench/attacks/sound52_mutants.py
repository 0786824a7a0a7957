#!/usr/bin/env python3
"""Session 52's soundness attack (helper sound52, docs/z3.md "Session 52
(helper sound52)"): guards and lm.assume facts that leave 64 bits (or divide
by zero) exactly where an op breaks a gate's rule, in every gate that reads
an op's enclosing guards as premises, with correct twins:

    bench/attacks/sound52_mutants.py OUT                # writes the files
    bench/attacks/sound52_mutants.py OUT --run [CAKE]   # also runs cake on each

The prover reads a premise as "defined and true"; a guard such as
`if BM * 2**55 > 0:` (written as a literal: the language has no `**`) is
defined only for BM < 256 but true in Python's integers for every BM > 0, so
read that way it drops BM >= 256 from the gate's question. Each broken
schedule (label "bad") is wrong exactly there and names the gates it is
aimed at in a `# aimed:` header: none of them may be on the "proved for all
parameter values" line, and `cake check` must not exit 0 (the runner marks
either HOLE). A correct twin ("good") must not exit 1. Bases (run from the
repository root; the corpus files named are the gates' own pairs):

* box (tma.box-extent): bad_tma_box_rows_unbounded (BM up to 512) with the
  load under `BM * 2**55 > 0`; the fact `BM * 2**55 > 0` in place of the
  guard; twins bounded by BM <= 256.
* span (tma.swizzle-span): bad_tma_swizzle_span_bk_128 with the load under
  `BK * 2**56 > 0` (defined for BK <= 64 only).
* inner (tma.inner-bytes): bad_tma_inner_bytes_bk_even, BK % 4 == 0 below
  16 and any even BK from 18 on, the load under `BK * 2**59 > 0`.
* tx (sync.tx-imbalance): good_tx_balance_symbolic whose expect_tx
  announces a slot less from D = 2**23 on, under `D * 2**40 > 0`.
* slot (struct.slot-out-of-range): a 3-slot ring whose consumer waits
  `stage=k % 3 + K // 2**23 * 3` under `K * 2**40 > 0`, or under the fact.
* cpasync (layout.misaligned): the sm_80 cp.async GEMM with K0 % 8 == 0
  only below 256 and its copies under `K0 * 2**55 >= 0`.
* mma (mma.shape-mismatch): good_mma_shape_instances_in_range whose A slice
  moves 64 rows down from M = 2**23 on, under `M * 2**40 > 0`.
* divzero: a guard `8 // N >= 0 or N == 0` (true wherever it evaluates,
  undefined at N == 0, where the slot is out of range) around the slot
  ring's wait; `N == 0 or 8 // N >= 0` (defined: the slot is found).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attack_runner import corpus, main_bases, rep, strip_header  # noqa: E402

P40 = "1099511627776"  # 2**40: X * P40 > 0 is defined for |X| < 2**23
P55 = "36028797018963968"  # 2**55: defined for |X| < 256
P56 = "72057594037927936"  # 2**56: defined for |X| < 128
P59 = "576460752303423488"  # 2**59: defined for |X| < 16


def aimed(rules, text):
    return f"# aimed: {', '.join(rules)}\n" + text


def fenced(text):
    """A reducer that reads its slot with generic loads and releases it to
    TMA: the fence the gate pairs' bad files leave out (proxy.missing-fence)."""
    if "lm.fence_proxy()" in text:
        return text
    return rep(text, "            lm.arrive(empty, iter=j)\n", "            lm.fence_proxy()\n            lm.arrive(empty, iter=j)\n")


def guard(text, line, cond, indent=12):
    """`text` with the op line `line` (its first occurrence, `indent`
    spaces deep) under `if cond:`."""
    pad = " " * indent
    return rep(text, pad + line, f"{pad}if {cond}:\n{pad}    {line}")


# ---------------------------------------------------------------- box
def box():
    bad = fenced(strip_header(corpus("layout/bad_tma_box_rows_unbounded.cake")))
    load = "smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)"
    bounded = rep(bad, "lm.assume(BM <= 512)", "lm.assume(BM <= 256)")
    fact = rep(bad, "    lm.assume(BM <= 512)\n", f"    lm.assume(BM <= 512)\n    lm.assume(BM * {P55} > 0)\n")
    return [
        ("bad", "load_under_overflowing_guard", aimed(["tma.box-extent"], guard(bad, load, f"BM * {P55} > 0"))),
        ("bad", "overflowing_fact", aimed(["tma.box-extent"], fact)),
        ("bad", "only_overflowing_fact", aimed(["tma.box-extent"],
                                                rep(bad, "lm.assume(BM <= 512)", f"lm.assume(BM * {P55} > 0)"))),
        ("good", "bounded_under_defined_guard", guard(bounded, load, "BM > 0")),
        ("good", "bounded_under_overflowing_guard", guard(bounded, load, f"BM * {P55} > 0")),
        ("good", "bounded_with_overflowing_fact",
         rep(bounded, "    lm.assume(BM <= 256)\n", f"    lm.assume(BM <= 256)\n    lm.assume(BM * {P55} > 0)\n")),
        ("good", "bounded_with_wide_fact",
         rep(bounded, "    lm.assume(BM <= 256)\n", f"    lm.assume(BM <= 256)\n    lm.assume(BM * {P40} > 0)\n")),
    ]


# ---------------------------------------------------------------- span
def span():
    bad = fenced(strip_header(corpus("layout/bad_tma_swizzle_span_bk_128.cake")))
    good = fenced(strip_header(corpus("layout/good_tma_swizzle_span_bk_64.cake")))
    load = "smem_x.tma_load(X, coords=(row0, j * BK), iter=j, barrier=full)"
    good_load = next(l.strip() for l in good.splitlines() if "smem_x.tma_load(" in l)
    return [
        ("bad", "load_under_overflowing_guard", aimed(["tma.swizzle-span"], guard(bad, load, f"BK * {P56} > 0"))),
        ("good", "load_under_overflowing_guard", guard(good, good_load, f"BK * {P56} > 0")),
        ("good", "load_under_defined_guard", guard(good, good_load, "BK > 0")),
    ]


# ---------------------------------------------------------------- inner
def inner():
    bad = fenced(strip_header(corpus("layout/bad_tma_inner_bytes_bk_even.cake")))
    load = "smem_x.tma_load(X, coords=(row0, j * BK), iter=j, barrier=full)"
    # BK % 4 == 0 below 16, any even BK from 18 on (18 * 4 bytes: not a multiple of 16)
    split = rep(bad, "lm.assume(BK % 2 == 0)", "lm.assume(BK % 2 == 0)\n    lm.assume(BK % 4 == 0 or BK >= 18)")
    return [
        ("bad", "load_under_overflowing_guard", aimed(["tma.inner-bytes"], guard(split, load, f"BK * {P59} > 0"))),
        ("good", "multiple_of_4_under_overflowing_guard",
         guard(rep(bad, "lm.assume(BK % 2 == 0)", "lm.assume(BK % 4 == 0)"), load, f"BK * {P59} > 0")),
    ]


# ---------------------------------------------------------------- tx
def tx():
    good = strip_header(corpus("layout/good_tx_balance_symbolic.cake"))
    TX = "            lm.expect_tx(full, BM * 128, iter=j)\n            smem_x.tma_load(X, coords=(row0, j * 64), iter=j, barrier=full)\n"

    def under(cond, bytes_):
        body = TX.replace("BM * 128", bytes_)
        return rep(good, TX, f"            if {cond}:\n" + "".join("    " + l + "\n" for l in body.splitlines()))

    short = "BM * 128 - D // 8388608 * 8192"  # a quarter slot short from D = 2**23 on
    return [
        ("bad", "short_under_overflowing_guard", aimed(["sync.tx-imbalance"], under(f"D * {P40} > 0", short))),
        ("bad", "short_under_defined_guard", aimed(["sync.tx-imbalance"], under("D > 0", short))),
        ("good", "exact_under_overflowing_guard", under(f"D * {P40} > 0", "BM * 128")),
        ("good", "exact_under_defined_guard", under("D > 0", "BM * 128")),
    ]


# ---------------------------------------------------------------- slot
SLOT_RING = """@cake.schedule(target="sm_90a")
def ring(lm, K: LM.i32, N: LM.i32):
    lm.assume(K > 0)
    lm.assume(N >= 0 and N <= 8)
{facts}    producer = lm.role(warps=[0])
    consumer = lm.role(warps=[4, 5, 6, 7])
    full = lm.barrier(count=3, prod=[producer], cons=[consumer], init_count=1)
    empty = lm.barrier(count=3, prod=[consumer], cons=[producer], init_count=1)
    with producer:
        for k in lm.range(0, lm.cdiv(K, 64)):
            lm.wait(empty, iter=k - 3)
            lm.arrive(full, iter=k)
    with consumer:
        for k in lm.range(0, lm.cdiv(K, 64)):
{wait}            lm.arrive(empty, iter=k)
"""


def slot_ring(stage, cond=None, facts=""):
    wait = f"lm.wait(full, stage={stage}, phase=k // 3)\n"
    wait = f"            if {cond}:\n                {wait}" if cond else f"            {wait}"
    return SLOT_RING.format(facts=facts, wait=wait)


def slot():
    far = "k % 3 + K // 8388608 * 3"  # slots 3.. from K = 2**23 on: out of the 3
    return [
        ("bad", "stage_under_overflowing_guard",
         aimed(["struct.slot-out-of-range"], slot_ring(far, f"K * {P40} > 0"))),
        ("bad", "stage_with_overflowing_fact",
         aimed(["struct.slot-out-of-range"], slot_ring(far, None, f"    lm.assume(K * {P40} > 0)\n"))),
        ("bad", "stage_under_defined_guard", aimed(["struct.slot-out-of-range"], slot_ring(far, "K > 0"))),
        ("good", "stage_under_overflowing_guard", slot_ring("k % 3", f"K * {P40} > 0")),
        ("good", "stage_under_defined_guard", slot_ring("k % 3", "K * 1024 > 0")),
        ("good", "stage_with_wide_fact", slot_ring("k % 3", None, "    lm.assume(K * 1024 > 0)\n")),
    ]


# ---------------------------------------------------------------- cpasync
def cpasync():
    good = strip_header(corpus("layout/good_misaligned_cp_async_global_column_k0_multiple_of_8.cake"))
    A = "smem_a.cp_async(A, coords=(m_blk, K0 + k * 32), iter=k)"
    B = "smem_b.cp_async(B, coords=(n_blk, K0 + k * 32), iter=k)"

    def under(text, cond):
        return guard(guard(text, A, cond), B, cond)

    split = rep(good, "lm.assume(K0 % 8 == 0)", "lm.assume(K0 % 8 == 0 or K0 >= 256)")
    return [
        ("bad", "copies_under_overflowing_guard", aimed(["layout.misaligned"], under(split, f"K0 * {P55} >= 0"))),
        ("good", "copies_under_overflowing_guard", under(good, f"K0 * {P55} >= 0")),
        ("good", "copies_under_defined_guard", under(good, "K0 >= 0")),
    ]


# ---------------------------------------------------------------- mma
def mma():
    good = strip_header(corpus("layout/good_mma_shape_instances_in_range.cake"))
    MMA = "lm.mma(acc, smem_a[k][m0:m0 + 64, :], smem_b[k], init=(k == 0))"
    moved = "lm.mma(acc, smem_a[k][m0 + M // 8388608 * 64:m0 + M // 8388608 * 64 + 64, :], smem_b[k], init=(k == 0))"
    return [
        ("bad", "slice_under_overflowing_guard",
         aimed(["mma.shape-mismatch"], guard(rep(good, MMA, moved), moved, f"M * {P40} > 0"))),
        ("good", "slice_under_overflowing_guard", guard(good, MMA, f"M * {P40} > 0")),
        ("good", "slice_under_defined_guard", guard(good, MMA, "M > 0")),
    ]


# ---------------------------------------------------------------- divzero
def divzero():
    # `8 // N >= 0` is true in Python wherever it evaluates, and divides by
    # zero at N == 0, the one value where the slot is out of range (3)
    zero_slot = "k % 3 + 3 // (N + 3) * 3"
    return [
        ("bad", "slot_under_zero_divisor",
         aimed(["struct.slot-out-of-range"], slot_ring(zero_slot, "8 // N >= 0 or N == 0"))),
        ("bad", "slot_under_defined_divisor",
         aimed(["struct.slot-out-of-range"], slot_ring(zero_slot, "N == 0 or 8 // N >= 0"))),
        ("good", "slot_under_zero_divisor", slot_ring("k % 3", "8 // N >= 0 or N == 0")),
        ("good", "slot_under_defined_divisor", slot_ring("k % 3", "N == 0 or 8 // N >= 0")),
    ]


BASES = [("box", box), ("span", span), ("inner", inner), ("tx", tx), ("slot", slot), ("cpasync", cpasync),
         ("mma", mma), ("divzero", divzero)]

if __name__ == "__main__":
    sys.exit(1 if main_bases(BASES, require_proof=False, timeout=240) else 0)
