#!/usr/bin/env python3
"""Session 53's soundness attack (helper attack53, docs/z3.md "Session 53
(helper attack53)"): broken schedules aimed at the code paths session 52
added, with correct twins, written to OUT/<base>/<label>_<name>.cake, then
`cake check` and `cake check --require-proof` on each:

    bench/attacks/attack53_mutants.py OUT                # writes the files
    bench/attacks/attack53_mutants.py OUT --run [CAKE]   # also runs cake on each

A "bad" schedule is broken: `cake check` must exit 1, or 2 (unknown), never 0,
and `--require-proof` must not prove it (the runner marks either HOLE); one
aimed at a gate names it in a `# aimed:` header, and that gate must not be on
the "proved for all parameter values" line. A "good" one is correct in the
model: an exit 1 is a false alarm (the runner marks it "good reported");
unknown is allowed. ONLY=base,... and MATCH=regex pick what runs. Bases (run
from the repository root):

* gaps (attack52's far-step query over the gaps residue facts leave,
  `allowedGaps` / `repeatingFacts`): cover47's row kernel reading `64 +
  part` columns (64 written) where the part is 1 at values the facts keep
  apart from their neighbours: residues (`P % 7 == 0`, `P % 4 == 1`,
  combined residues, residues of `P // 7 * 7`, `min`), residues with
  bounds, and facts that neither bound nor repeat (`P % 7 == 0 or P < 10`,
  `P * P % 7 == 0`, `P != 693`, a residue of period 4,099): broken where the
  part's value 1 falls on an allowed value, correct where it falls on none.
* defined (sound52's "undefined or true" facts, `encoder/defined_premise`):
  the 3-slot ring of sound52's slot base with its wait's stage out of range
  exactly where a guard or an lm.assume fact overflows 64 bits: through a
  loop variable, a negative product, a subtraction, a product of two
  parameters, `min`; correct twins whose stage is in range, and a guard that
  short-circuits a zero divisor (`N == 0 or 64 // N >= 1`).
* loopvar (review52's `encoder::loopVarRange`): a one-slot barrier whose
  stage is `k // 2**32` in loops that reach 2**32 with a negative step,
  from an outer variable, under a bound from an assume; twins kept below.
* after (after52's cap, `--after-finding-work`): two-rule schedules whose
  second rule breaks only at large values; the first finding and the exit
  must stay.
* head (nested52's headed restart form, `encoder/trip_restart_head`): IREE's
  nested prefetch (tests/encoder/trip_restart_head_test.cpp) whose head P
  or tail Q touches shared memory, a global tensor the tiles read, a
  barrier or an async copy, or reads a register the previous tile left;
  each must be refused or found, never proved.
* seed (attack52's seed check, `checkSeeds`): the two-warp stencil of
  attack52 with the reader's seed overwritten before the first read through
  an aliasing view, by cp.async, through a second barrier; an update
  skipped in round 0 with each.
* discount (stale52's slot-update discount): the three-warp stencil
  (corpus/bugs/data.stale-read/stencil_three_warps_row_update_skipped_once_fixed.cake)
  with updates skipped in other rounds, by other warps, and an update
  computed from a slot it does not read back.
* column (stale52's per-run laps of a column slice): the column-sliced
  stencil (corpus/bugs/data.stale-read/stencil_column_slice_row_updated_first_round_only_fixed.cake)
  with a row's update skipped in other rounds, and with the update shifted
  one column past the read's slice.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attack_runner import corpus, main_bases, raw_string, rep, strip_header  # noqa: E402
import attack52_mutants as a52  # noqa: E402
import sound49_mutants as s49  # noqa: E402
import sound52_mutants as s52  # noqa: E402


def slug(text):
    return a52.slug(text)


# ---------------------------------------------------------------- gaps
def row(part, facts="", bound="1000"):
    """cover47's row kernel: 64 columns written, `64 + part` read."""
    t = s49.ROW.replace("GUARD", "").replace("READ", f"64 + ({part})")
    return rep(t, "    lm.assume(P <= 1000)\n", f"    lm.assume(P <= {bound})\n" + facts)


def gaps():
    step693 = "(P + 9) // 700 - (P + 3) // 700"  # 1 at P = 691..696
    step694 = "(P + 1) // 695 - P // 695"  # 1 at P = 694 only
    step697 = "(P + 1) // 698 - P // 698"  # 1 at P = 697 only (697 % 4 == 1, 697 % 7 == 4)
    out = []
    for part, fact, label in [
            (step693, "P % 7 == 0 or P < 10", "bad"),  # 693, beyond the small values
            (step694, "P % 7 == 0 or P < 10", "good"),
            (step693, "P % 7 == 0 or P == 1", "bad"),
            (step693, "P * P % 7 == 0", "bad"),  # the multiples of 7, through a product
            (step694, "P * P % 7 == 0", "good"),
            (step693, "(P % 7) * (P % 3) == 0", "bad"),  # multiples of 7 or 3: 693 both
            (step694, "P != 693", "bad"),  # 694's neighbour below is excluded
            (step694, "P != 694", "good"),
            (step693, "P % 7 == 0 and P >= 7", "bad"),
            (step693, "P // 7 * 7 == P", "bad"),
            (step693, "min(P % 7, 1) == 0", "bad"),
            (step693, "P % 14 == 0 or P % 14 == 7", "bad"),
            (step697, "P % 4 == 1", "bad"),
            (step697, "P % 4 == 1 and P % 7 == 4", "bad"),  # 697 is both: lcm 28
            (step697, "P % 4 == 1 and P % 7 == 3", "good"),
            (step697, "P % 4 == 1 and P >= 600 and P <= 700", "bad"),
            (step697, "P % 4 == 1 and P >= 698", "good"),
            (step693, "P % 7 == 0 and P % 3 == 0", "bad"),  # 693 = 3 * 3 * 7 * 11
            (step693, "P % 7 == 0 and P % 11 == 0", "bad"),
            (step693, "P % 7 == 0 and P % 5 == 0", "good")]:
        out.append((label, f"{slug(part)}_{slug(fact)}", row(part, f"    lm.assume({fact})\n")))
    # a residue of a period past the repeats' 4,096, over 10,000 values
    out.append(("bad", "period_4099", row("(P + 1) // 4100 - P // 4100", "    lm.assume(P % 4099 == 0)\n", "10000")))
    out.append(("good", "period_4099", row("(P + 1) // 4101 - P // 4101", "    lm.assume(P % 4099 == 0)\n", "10000")))
    return out


# ---------------------------------------------------------------- defined
P40, P55 = s52.P40, s52.P55
I64MAX = "9223372036854775807"


def defined():
    ring = s52.slot_ring
    aimed = s52.aimed
    slot = ["struct.slot-out-of-range"]
    far_k = "k % 3 + k // 8388608 * 3"  # out of range from k = 2**23 on (K > 2**29)
    return [
        # the guard reads the loop variable: undefined from k = 2**23 on, where the stage is out of range
        ("bad", "loopvar_guard", aimed(slot, ring(far_k, f"k * {P40} >= 0"))),
        ("good", "loopvar_guard", ring("k % 3", f"k * {P40} >= 0")),
        # a negative product: K * -2**40 < 0 leaves 64 bits from K = 2**23 on
        ("bad", "negative_product_guard", aimed(slot, ring("k % 3 + K // 8388608 * 3", f"K * -{P40} < 0"))),
        # a subtraction below INT64_MIN from K = 2 on: -K - (2**63 - 1) < 0
        ("bad", "subtraction_guard", aimed(slot, ring("k % 3 + K // 2 * 3", f"-K - {I64MAX} < 0"))),
        ("good", "subtraction_guard", ring("k % 3", f"-K - {I64MAX} < 0")),
        # a product of two parameters: K * N * 2**55 with N <= 8 leaves 64 bits from K * N >= 256 on
        ("bad", "two_parameter_guard", aimed(slot, ring("k % 3 + K * N // 256 * 3", f"K * N * {P55} >= 0"))),
        # min of an overflowing product, as a fact
        ("bad", "min_fact", aimed(slot, ring("k % 3 + K // 8388608 * 3", None, f"    lm.assume(min(K * {P40}, 1) > 0)\n"))),
        ("good", "min_fact", ring("k % 3", None, f"    lm.assume(min(K * {P40}, 1) > 0)\n")),
        # a bound of the fact that overflows comes from another fact (K <= 1000): defined, and in range
        ("good", "bounded_by_other_fact", ring("k % 3 + K // 8388608 * 3", None,
                                               f"    lm.assume(K <= 1000)\n    lm.assume(K * {P40} > 0)\n")),
        # a zero divisor a short-circuit `or` keeps out: defined (and true) in Python everywhere
        ("good", "short_circuit_divisor", ring("k % 3", "N == 0 or 64 // N >= 1")),
        ("bad", "short_circuit_divisor", aimed(slot, ring("k % 3 + 3 // (N + 3) * 3", "N == 0 or 64 // N >= 1"))),
    ]


# ---------------------------------------------------------------- loopvar
ONE_SLOT = """@cake.schedule(target="sm_90a")
def f(lm, K: LM.i32):
{facts}    p = lm.role(warps=[0])
    c = lm.role(warps=[1])
    full = lm.barrier(count=1, prod=[p], cons=[c], init_count=1)
    with p:
{loops}    with c:
        lm.wait(full, stage=0)
"""


def one_slot(loops, facts="    lm.assume(K > 0)\n"):
    return ONE_SLOT.format(facts=facts, loops=loops)


def loopvar():
    aimed = s52.aimed
    slot = ["struct.slot-out-of-range"]
    neg = ("        for k in lm.range(K * 65536, K * 65536 - 1, -1):\n"
           "            lm.arrive(full, stage=k // 4294967296)\n")
    down = ("        for k in lm.range(0, -K * 65536 - 1, -1):\n"
            "            if k == -K * 65536:\n"
            "                lm.arrive(full, stage=-k // 4294967296)\n")
    nested = ("        for o in lm.range(0, K):\n"
              "            for k in lm.range(o * 65536, o * 65536 + 1):\n"
              "                if o == K - 1:\n"
              "                    lm.arrive(full, stage=k // 4294967296)\n")
    nested_down = ("        for o in lm.range(K, 0, -1):\n"
                   "            for k in lm.range(o * 65536, o * 65536 - 1, -1):\n"
                   "                if o == K:\n"
                   "                    lm.arrive(full, stage=k // 4294967296)\n")
    stepped = ("        for k in lm.range(0, K * 65536 + 1, 65536):\n"
               "            if k == K * 65536:\n"
               "                lm.arrive(full, stage=k // 4294967296)\n")
    below = "    lm.assume(K > 0)\n    lm.assume(K < 65536)\n"
    out = []
    for name, loops in [("negative_step", neg), ("downward_negative", down), ("nested", nested),
                        ("nested_downward", nested_down), ("stepped", stepped)]:
        out.append(("bad", name, aimed(slot, one_slot(loops))))
        out.append(("good", name + "_below_2_32", one_slot(loops, below)))
    # the bound through a second parameter the facts tie: K * M with M <= 65536
    tied = ("        for k in lm.range(K * M, K * M + 1):\n"
            "            lm.arrive(full, stage=k // 4294967296)\n")
    two = one_slot(tied, "    lm.assume(K > 0)\n    lm.assume(M > 0)\n    lm.assume(M <= 65536)\n").replace(
        "K: LM.i32):", "K: LM.i32, M: LM.i32):")
    out.append(("bad", "tied_product", aimed(slot, two)))
    out.append(("good", "tied_product_below", rep(two, "    lm.assume(M <= 65536)\n",
                                                   "    lm.assume(M <= 65536)\n    lm.assume(K < 65536)\n")))
    return out


# ---------------------------------------------------------------- after
def after():
    # the deadlock at K = 2**23 and on (a second wait), after a race at every K
    race = """@cake.schedule(target="sm_90a")
def f(lm, K: LM.i32):
    lm.assume(K > 0)
    pool = lm.smem(1024)
    buf = pool.view(offset=0, shape=(1, 64), dtype=lm.f32)
    r = lm.regs(shape=(1, 64), dtype=lm.f32)
    p = lm.role(warps=[0])
    c = lm.role(warps=[1])
    full = lm.barrier(count=1, prod=[p], cons=[c], init_count=1)
    with p:
        lm.arrive(full, stage=0)
        lm.fill(r, 0.0)
        lm.copy(buf[0], r)
    with c:
        lm.wait(full, stage=0)
        lm.copy(r, buf[0])
        if K >= 8388608:
            lm.wait(full, stage=0)
"""
    # the annotation warning first (phase= names a lap the arrival is not in), then a hang at K >= 1000
    warn = """@cake.schedule(target="sm_90a")
def f(lm, K: LM.i32):
    lm.assume(K > 0)
    p = lm.role(warps=[0])
    c = lm.role(warps=[1])
    full = lm.barrier(count=1, prod=[p], cons=[c], init_count=1)
    with p:
        for k in lm.range(0, K):
            lm.arrive(full, stage=0, phase=(k + 1) % 2)
    with c:
        for k in lm.range(0, K):
            lm.wait(full, stage=0, phase=k % 2)
        if K >= 1000:
            lm.wait(full, stage=0, phase=K % 2)
"""
    return [("bad", "race_then_far_deadlock", race), ("bad", "warning_then_far_deadlock", warn),
            ("bad", "far_deadlock_alone", rep(warn, "phase=(k + 1) % 2", "phase=k % 2"))]


# ---------------------------------------------------------------- head
def head():
    base = raw_string("tests/encoder/trip_restart_head_test.cpp", "kNested")
    HEAD = "            lm.copy(ra, A, coords=(16 * w, 0))\n            lm.sync(block)\n"
    TAIL = "        lm.copy(C, x, coords=(0, 32 * w))\n"

    def head_with(extra):
        return rep(base, HEAD, "            lm.copy(ra, A, coords=(16 * w, 0))\n" + extra + "            lm.sync(block)\n")

    def tail_with(extra):
        return rep(base, TAIL, TAIL + extra)

    out = [("good", "base", base)]
    # the head writes the shared buffer the previous tile's last read reads (no barrier between)
    out.append(("bad", "head_writes_smem", head_with("            lm.copy(sa[0][16 * w:16 * w + 16, :], ra)\n")))
    # through a second view over the same bytes
    alias = rep(base, "    ra   = lm.regs(", "    sb   = pool.view(offset=0, shape=(32, 32), dtype=lm.f16)\n    ra   = lm.regs(")
    out.append(("bad", "head_writes_smem_alias",
                rep(alias, HEAD, "            lm.copy(ra, A, coords=(16 * w, 0))\n"
                    "            lm.copy(sb[0][16 * w:16 * w + 16, :], ra)\n            lm.sync(block)\n")))
    # an async copy into the buffer in the head
    out.append(("bad", "head_cp_async", head_with("            sa.cp_async(A, coords=(16 * w, 0), iter=o)\n"
                                                  "            lm.cp_async_commit()\n            lm.cp_async_wait(pending=0)\n")))
    # the head writes a global tensor the tail reads back, and the tiles' loads read it
    out.append(("bad", "head_writes_global_read_in_tile",
                head_with("            lm.copy(A, x, coords=(0, 32 * w))\n")))
    # a second barrier op in the head: an extra arrive (the tiles' syncs then split)
    out.append(("bad", "head_bar_arrive", head_with("            if w == 0:\n                lm.bar_arrive(block)\n")))
    # a guard on the tile count in the head (predicated op)
    out.append(("bad", "head_guard_on_tile", head_with("            if o > 0:\n"
                                                       "                lm.copy(sa[0][16 * w:16 * w + 16, :], ra)\n")))
    # the tail reads the shared buffer with no barrier after the other wave's last write
    out.append(("bad", "tail_reads_smem_unsynced",
                rep(base, "            lm.sync(block)\n            lm.copy(x, sa[0])\n        lm.copy(C",
                    "            lm.sync(block)\n        lm.copy(x, sa[0])\n        lm.copy(C")))
    # the tail writes the shared buffer the other wave may still read
    out.append(("bad", "tail_writes_smem", tail_with("        lm.copy(sa[0][16 * w:16 * w + 16, :], ra)\n")))
    # the head stores the previous tile's result (a register the tile leaves): uninitialized in tile 0
    out.append(("bad", "head_stores_previous_result", head_with("            lm.copy(C, x, coords=(0, 32 * w))\n")))
    # correct: the head stores its own loaded row to a write-only tensor; the tail a second store
    out.append(("good", "head_stores_own_row", head_with("            lm.copy(C, ra, coords=(16 * w, 64))\n")))
    out.append(("good", "tail_second_store", tail_with("        lm.copy(C, ra, coords=(16 * w, 96))\n")))
    return out


# ---------------------------------------------------------------- seed
def seed():
    base = a52.STENCIL
    UPD = "            lm.copy(buf[0][2 - w:3 - w, :], one)\n"
    PRE_AT = "        lm.sync(bar)\n        for it"

    def upd_if(cond, text):
        return rep(text, UPD, f"            if {cond}:\n    {UPD}")

    def pre_update(write):
        return rep(base, PRE_AT, "        lm.sync(bar)\n" + write + "        lm.sync(bar)\n        for it")

    # a column half of the row rewritten (the other half stays the seed)
    half = pre_update("        lm.copy(buf[0][2 - w:3 - w, 0:4], two[0:1, 0:4])\n")
    # the pre-update without a barrier after it: a race with the first read
    racy = rep(base, PRE_AT, "        lm.sync(bar)\n        lm.copy(buf[0][2 - w:3 - w, :], two[0:1, :])\n        for it")
    # (a pre-update through another view over the row, or by cp.async into a one-row view, reads as
    # another view's data at n = 1: the model's rule for aliasing views, not the seed's, so not here)
    out = [("good", "half_pre_update", half), ("bad", "racy_pre_update", racy)]
    for cond, label in [("w == 1 or it != 0", "bad"), ("it != 0", "bad"), ("w == 0 or it != 1", "bad"),
                        ("it + 1 < n", "good")]:
        for name, text in [("half", half)]:
            out.append((label, f"{name}_pre_update_if_{slug(cond)}", upd_if(cond, text)))
    return out


# ---------------------------------------------------------------- discount
def stencil_update(path, cols):
    """A corpus stencil without its header, its update line `lm.copy(buf[0][2
    - w:3 - w, COLS], one)` (with its indent and comment) and a maker of the
    stencil with that line under `if cond:`."""
    fixed = strip_header(corpus(path))
    m = re.search(r"\n( +)(lm\.copy\(buf\[0\]\[2 - w:3 - w, " + re.escape(cols) + r"\], one\)[^\n]*\n)", fixed)
    assert m, "the update line"
    pad, line = m.group(1), m.group(2)

    def upd_if(cond, text=fixed, ln=line):
        return rep(text, pad + ln, f"{pad}if {cond}:\n{pad}    {ln}")
    return fixed, pad, line, upd_if


def discount():
    fixed, _, _, upd_if = stencil_update("bugs/data.stale-read/stencil_three_warps_row_update_skipped_once_fixed.cake", ":")

    out = [("good", "base", fixed)]
    for cond, label in [("w != 2 or it != 0", "bad"), ("w != 2 or it != 2", "bad"), ("w != 2 or it % 2 == 0", "bad"),
                        ("w != 0 or it != 1", "bad"), ("w != 1 or it != 1", "bad"), ("it != 1", "bad"),
                        ("w != 2 or it + 1 < n", "good"), ("it + 1 < n", "good")]:
        out.append((label, "update_if_" + slug(cond), upd_if(cond)))
    return out


# ---------------------------------------------------------------- column
def column():
    fixed, pad, line, upd_if = stencil_update(
        "bugs/data.stale-read/stencil_column_slice_row_updated_first_round_only_fixed.cake", "1:9")

    # the update shifted one column right: columns 2..9, of which the read sees 2..8
    shifted_line = line.replace("1:9], one)", "2:10], one)")
    shifted = rep(fixed, pad + line, pad + shifted_line)
    out = [("good", "base", fixed), ("good", "shifted_update", shifted)]
    for cond, label in [("w == 0 or it != 1", "bad"), ("w == 1 or it != 0", "bad"), ("w == 1 or it == 0", "bad"),
                        ("it % 2 == 0", "bad"), ("w == 0 or it != 2", "bad"), ("it + 1 < n", "good")]:
        out.append((label, "update_if_" + slug(cond), upd_if(cond)))
        out.append((label, "shifted_update_if_" + slug(cond), upd_if(cond, shifted, shifted_line)))
    return out


BASES = [("gaps", gaps), ("defined", defined), ("loopvar", loopvar), ("after", after), ("head", head),
         ("seed", seed), ("discount", discount), ("column", column)]


if __name__ == "__main__":
    sys.exit(1 if main_bases(BASES, require_proof=True, timeout=240) else 0)
