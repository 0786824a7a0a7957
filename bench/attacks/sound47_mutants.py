#!/usr/bin/env python3
"""Session 47's soundness attack (helper sound47, docs/z3.md "Soundness review,
session 47"): broken schedules aimed at the proof paths session 46 added, with
correct twins, written to OUT/<base>/<name>.cake with OUT/index.tsv
(sound40_mutants.py's format), then `cake check` on each (attack_runner.py's
runner):

    bench/attacks/sound47_mutants.py OUT                # writes the files and OUT/index.tsv
    bench/attacks/sound47_mutants.py OUT --run [CAKE]   # also runs cake check on each (OUT/check.tsv)

A "bad" mutant is broken: `cake check` must exit 1, or 2 (unknown), never 0;
one said *proved* is always a hole. A "good" one is a correct twin (a report
is a false alarm, unknown is allowed). Labels are by hand. Targets (one base
each):

* exit (encoder/trip_proof.cpp exitsByTileCount, exitPathOf, fitsExitPath,
  proveExitReadsMoveWithTiles, checkExitCopiesRepeat):
  trip_exit_count_test.cpp's producer tail `lm.wait(k_empty, iter=n_tiles -
  1)`: phases off by one only past a far tile count (`n_tiles // 1000`,
  `min(n_tiles, 1000)`, a residue mod 1000), guards that skip the tail past
  the window (`n_tiles < 1000`, `n_tiles % 100 != 99`), an extra wait that
  only small tile counts run (before or after the tail: a statement the
  grid's exit path does not hold), the tail read through another parameter;
  twins spelling the tail otherwise.
* ring (exitsByRingEnd): the ring tail `iter=n_tiles * k_tiles - 1`: the same
  forms on the ring end, an odd ring end rounded down, the product spelled
  otherwise.
* skipped (skippedTiles, proveSkippedTiles): skipped_tiles46_test.cpp's
  split-K kernel: a part after the tile loop that reads the tile count S (the
  copy reads it as the count of kept tiles), guards and K bounds that differ
  by role or value, a K loop under the guard bounded by a parameter alone;
  twins spelling the guard and F otherwise.
* blockstep (blockLoopsInTrips): the same file's tiles from the block index
  by 4: other starts, steps and ends in one role; twins spelling them
  otherwise.
* modguard (integer-solver-first guard queries, noIntegerWitness,
  outcomesPossible, holdsForEveryBinding): mod_guard46_test.cpp's remainder
  guard with a negative divisor, witnesses only at large blocks or divisors,
  a divisor that may be zero; barrier twins.
* reread (encoder/system.cpp peersReadAlike): batch_metadata_test.cpp's
  per-round metadata: a writer that skips rounds, writes between the reads,
  or after its peer's last read; a reader alone.
* stagemult (ir/resolver.cpp withoutStageMultiple): respell43_test.cpp's
  TileLang ring read through `(it + c) % m`: shifts that are and are not
  multiples of the stages, moduli that are not.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sound40_mutants as s40  # noqa: E402
from attack_runner import read, run_index_if_asked, strip_header, write_index  # noqa: E402


def rep(old, new):
    return [(old, new)]


def cpp_strings(path, funcs=None):
    """Every `const std::string NAME = ...;` of a test file, its raw strings,
    quoted strings and earlier names concatenated (`funcs`: Python forms of
    the file's helper calls, by their C++ text)."""
    text = read(path)
    out = {}
    for m in re.finditer(r'const std::string (\w+) =\s*(.*?);\n', text, re.S):  # (inline or not)
        parts, rest = [], m.group(2)
        while rest.strip():
            rest = rest.strip()
            if rest.startswith('R"('):
                end = rest.index(')"', 3)
                parts.append(rest[3:end])
                rest = rest[end + 2:]
            elif rest.startswith('"'):
                q = re.match(r'"((?:[^"\\]|\\.)*)"', rest)
                parts.append(bytes(q.group(1), "utf-8").decode("unicode_escape"))
                rest = rest[q.end():]
            elif rest.startswith("+"):
                rest = rest[1:]
            else:
                call = next((c for c in (funcs or {}) if rest.startswith(c)), None)
                if call:
                    parts.append(funcs[call])
                    rest = rest[len(call):]
                    continue
                name = re.match(r"\w+", rest)
                if not name or name.group(0) not in out:
                    break
                parts.append(out[name.group(0)])
                rest = rest[name.end():]
        else:
            out[m.group(1)] = "".join(parts)
    return out


def tail_edits(line, wait, hang):
    """The edits of a tail `line` (waits spelled `wait` with its iter=):
    the wait at another iteration, the line under a guard, and a statement
    (by default the wait `hang` for a phase never completed) under a guard
    before or after it."""
    def at(it):
        return rep(line, wait.format(it))

    def guarded(g):
        return rep(line, f"        if {g}:\n    " + line)

    def extra(g, op=hang, after=False):
        """A statement after the tile loop, run only where `g` holds."""
        stmt = f"        if {g}:\n            {op}\n"
        return rep(line, line + stmt if after else stmt + line)
    return at, guarded, extra


def far_and_small(x, at, guarded, extra, line, wait, hang):
    """The forms both tails take, on the count `x` the tail reads (the tile
    count or the ring end): phases off by one past a far count, guards that
    skip the tail past the window, an extra statement only small counts run
    (a guarded wait for a phase never completed, a wait below iteration 0
    from one count on)."""
    return [
        ("tail_div_1000", "bad", at(f"{x} - 1 - {x} // 1000")),
        ("tail_min_1000", "bad", at(f"min({x}, 1000) - 1")),
        ("tail_mod_1000", "bad", at(f"{x} - 1 - {x} % 1000 // 999")),
        ("guard_lt_1000", "bad", guarded(f"{x} < 1000")),
        ("guard_mod_100", "bad", guarded(f"{x} % 100 != 99")),
        ("extra_before_eq1", "bad", extra(f"{x} == 1")),
        ("extra_before_eq2", "bad", extra(f"{x} == 2")),
        ("extra_before_lt3", "bad", extra(f"{x} < 3")),
        ("extra_after_eq1", "bad", extra(f"{x} == 1", after=True)),
        ("extra_before_far", "bad", extra(f"{x} == 900")),
        ("neg_wait_before", "bad", rep(line, wait.format(f"{hang} - 8 * {x}") + line)),
    ]


# ---------------------------------------------------------------- exit: the producer's tail by tile count
EXIT_T = cpp_strings("tests/encoder/exit_tail_kernels.h")
EXIT = EXIT_T["kProducerTail"].lstrip("\n")
TAIL = EXIT_T["kTail"]
W = "        lm.wait(k_empty, iter={})\n"
tail, guarded_tail, extra = tail_edits(TAIL, W, "lm.wait(k_empty, iter=7)")


EXIT_MUTANTS = [
    ("base", "good", []),
    ("tail_minus_one_first", "good", tail("-1 + n_tiles")),
    ("tail_guarded_positive", "good", guarded_tail("n_tiles > 0")),
    # (k_empty has one slot: a wait for phase n_tiles - 2 runs after phase
    # n_tiles - 1 completed, a parity wait for the next phase: sync.lost-phase)
    ("tail_twice", "bad", rep(TAIL, W.format("n_tiles - 2") + TAIL)),
    ("tail_in_const_loop", "bad", rep(TAIL, "        for i in lm.range(0, 2):\n            lm.wait(k_empty, iter=n_tiles - 2 + i)\n")),
    ("tail_scope_var", "good", rep("    with load:\n", "    last = n_tiles - 1\n    with load:\n") + tail("last")),
    ("tail_div_64_steps", "bad", tail("n_tiles - 1 - n_tiles // (64 * steps)")),
    ("tail_max_far", "bad", tail("max(n_tiles - 1, n_tiles - 2 + n_tiles // 1000)")),
    ("guard_div_64", "bad", guarded_tail("n_tiles // 64 == 0")),
    ("guard_ne_steps", "bad", guarded_tail("n_tiles != steps + 30")),
    ("guard_not_eq_far", "bad", guarded_tail("not n_tiles == 777")),
    ("extra_before_eq0", "bad", extra("n_tiles == 0")),
    ("extra_after_lt3", "bad", extra("n_tiles < 3", after=True)),
    ("extra_before_eq1_steps", "bad", extra("n_tiles == 1 and steps == 3")),
    ("extra_load_eq1", "bad", extra("n_tiles == 1", "smem_k.tma_load(K, coords=(0, 0), iter=n_tiles, barrier=k_full)")),
    ("neg_wait_after", "bad", rep(TAIL, TAIL + W.format("7 - 8 * n_tiles"))),
] + far_and_small("n_tiles", tail, guarded_tail, extra, TAIL, W, 7)

# ---------------------------------------------------------------- ring: the producer's tail by ring end
RING = EXIT_T["kRingProducerTail"].lstrip("\n")
RT1 = EXIT_T["kRingTail1"]
RT2 = EXIT_T["kRingTail2"]
RW = "        lm.wait(empty, iter={})\n"


rtail, rguard, rextra = tail_edits(RT1, RW, "lm.wait(empty, iter=9)")


RING_MUTANTS = [
    ("base", "good", []),
    ("tail_paren", "good", rtail("(k_tiles * n_tiles) - 1")),
    ("tail_twice_product", "good", rtail("2 * (n_tiles * k_tiles) - n_tiles * k_tiles - 1")),
    ("tail_even_down", "bad", rtail("(n_tiles * k_tiles) // 2 * 2 - 1") + rep(RT2, "")),
    ("neg_wait_first", "bad", rep(RT2, RW.format("9 - 8 * (n_tiles * k_tiles)") + RT2)),
] + far_and_small("(n_tiles * k_tiles)", rtail, rguard, rextra, RT1, RW, 9)

# ---------------------------------------------------------------- skipped: tiles a guard skips in every role
def mma_tile(indent, count):
    pad = " " * indent
    return (f"{pad}lm.wait(tmem_empty, stage=0)\n{pad}for kk in lm.range(0, {count}):\n"
            f"{pad}    lm.wait(full, stage=0)\n{pad}    lm.mma(acc, smem_a[0], smem_b[0], init=(kk == 0))\n"
            f"{pad}    lm.mma_commit(barrier=empty, stage=0)\n{pad}lm.mma_commit(barrier=tmem_full, stage=0)\n")


SKIP_T = cpp_strings("tests/encoder/skipped_tiles_kernels.h",
                     {'mmaTile(16, "k1 - k0")': mma_tile(16, "k1 - k0"), 'mmaTile(12, "k_tiles")': mma_tile(12, "k_tiles")})
SPLITK = SKIP_T["kSplitK"].lstrip("\n")
BLOCKSTEP = SKIP_T["kBlockStep"].lstrip("\n")
EPI_COPY = "                lm.copy(W, res, coords=(split * 128, 0))\n"
MMA_END = "                lm.mma_commit(barrier=tmem_full, stage=0)\n"
FIN = "    tmem_empty = lm.barrier(count=1, prod=[epi], cons=[mma], init_count=1)\n"
FIN_DECL = FIN + "    fin        = lm.barrier(count=1, prod=[epi], cons=[mma], init_count=1)\n"
MMA_GUARD = "            if k1 > k0:\n" + mma_tile(16, "k1 - k0")
PROD_GUARD = "            if k1 > k0:\n                for kk in lm.range(0, k1 - k0):\n"
EPI_GUARD = "            if min(k0 + kp, k_tiles) > k0:\n"


def mma_exit(line):
    """A statement after the MMA's tile loop (the role's last)."""
    return rep(MMA_END + "    with epi:\n", MMA_END + line + "    with epi:\n")


def fin(wait):
    """The epilogue arrives on `fin` in every kept split; the MMA waits
    `wait` after its tile loop."""
    return (rep(FIN, FIN_DECL) + rep(EPI_COPY, EPI_COPY + "                lm.arrive(fin, stage=0)\n")
            + mma_exit(f"        {wait}\n"))


SKIPPED_MUTANTS = [
    ("base", "good", []),
    # the part after the tile loop reads S: the copy reads it as the count of kept splits
    ("exit_fin_iter_S", "bad", fin("lm.wait(fin, iter=S - 1)")),
    ("exit_tmem_empty_iter_S", "bad", mma_exit("        lm.wait(tmem_empty, iter=S)\n")),
    ("exit_fin_guarded_S", "bad", fin("if S > 0:\n            lm.wait(fin, iter=S - 1)")),
    ("exit_tmem_empty_stage", "good", mma_exit("        lm.wait(tmem_empty, stage=0)\n")),
    # (a wait for the last kept split's phase, reached before the splits'
    # arrivals: two or more phases ahead of the slot, sync.stale-phase)
    ("exit_fin_kept", "bad", fin("lm.wait(fin, iter=lm.cdiv(k_tiles, kp) - 1)")),
    # guards and K bounds spelled otherwise
    ("guard_lt_everywhere", "good", rep(PROD_GUARD, PROD_GUARD.replace("k1 > k0", "k0 < k1"))
     + rep(MMA_GUARD, MMA_GUARD.replace("k1 > k0", "k0 < k1"))
     + rep(EPI_GUARD, EPI_GUARD.replace("min(k0 + kp, k_tiles) > k0", "k0 < min(k0 + kp, k_tiles)"))),
    ("guard_ge_plus1_everywhere", "good", rep(PROD_GUARD, PROD_GUARD.replace("k1 > k0", "k1 >= k0 + 1"))
     + rep(MMA_GUARD, MMA_GUARD.replace("k1 > k0", "k1 >= k0 + 1"))
     + rep(EPI_GUARD, EPI_GUARD.replace("min(k0 + kp, k_tiles) > k0", "min(k0 + kp, k_tiles) >= k0 + 1"))),
    ("mma_bound_min", "good", rep(MMA_GUARD, MMA_GUARD.replace("lm.range(0, k1 - k0)", "lm.range(0, min(kp, k_tiles - k0))"))),
    ("prod_bound_kp", "bad", rep(PROD_GUARD, PROD_GUARD.replace("lm.range(0, k1 - k0)", "lm.range(0, kp)"))),
    ("prod_bound_ktiles", "bad", rep(PROD_GUARD, PROD_GUARD.replace("lm.range(0, k1 - k0)", "lm.range(0, k_tiles - k0)"))),
    ("mma_bound_minus1", "bad", rep(MMA_GUARD, MMA_GUARD.replace("lm.range(0, k1 - k0)", "lm.range(0, k1 - k0 - 1)"))),
    ("mma_guard_ge", "bad", rep(MMA_GUARD, MMA_GUARD.replace("k1 > k0", "k1 >= k0"))),
    # (`>=` everywhere runs an empty split in every role alike: its
    # epilogue stores the last split's accumulator again, a value error the
    # model has no values for; the synchronization is right)
    ("all_guard_ge", "good", rep(PROD_GUARD, PROD_GUARD.replace("k1 > k0", "k1 >= k0"))
     + rep(MMA_GUARD, MMA_GUARD.replace("k1 > k0", "k1 >= k0"))
     + rep(EPI_GUARD, EPI_GUARD.replace("min(k0 + kp, k_tiles) > k0", "min(k0 + kp, k_tiles) >= k0"))),
    ("epi_guard_split_lt", "bad", rep(EPI_GUARD, "            if split < S - 1 or min(k0 + kp, k_tiles) > k0:\n")),
    ("mma_guard_plus_split", "bad", rep(MMA_GUARD, MMA_GUARD.replace("k1 > k0", "k1 > k0 + split % 2"))),
    # the whole MMA tile in its own loop over the K count: a nested bound
    ("mma_nested_f", "bad", rep(MMA_GUARD, MMA_GUARD.replace("for kk in lm.range(0, k1 - k0):", "for kk in lm.range(0, (k1 - k0) * (k1 - k0)):"))),
]

# ---------------------------------------------------------------- blockstep: tiles from the block index by 4
BS_PROD = "    with producer:\n        for tile in lm.range(lm.block_idx(0), num_tiles, 4):\n"
BS_MMA = "        lm.arrive(empty, stage=0)\n        for tile in lm.range(lm.block_idx(0), num_tiles, 4):\n"
BS_EPI = "        lm.arrive(tmem_empty, stage=0)\n        for tile in lm.range(lm.block_idx(0), num_tiles, 4):\n"


def bs(which, new_range):
    return rep(which, which.replace("lm.range(lm.block_idx(0), num_tiles, 4)", new_range))


BLOCKSTEP_MUTANTS = [
    ("base", "good", []),
    ("all_step_2_plus_2", "good", bs(BS_PROD, "lm.range(lm.block_idx(0), num_tiles, 2 + 2)")
     + bs(BS_MMA, "lm.range(lm.block_idx(0), num_tiles, 2 + 2)") + bs(BS_EPI, "lm.range(lm.block_idx(0), num_tiles, 2 + 2)")),
    ("all_start_plus_0", "good", bs(BS_PROD, "lm.range(lm.block_idx(0) + 0, num_tiles, 4)")
     + bs(BS_MMA, "lm.range(0 + lm.block_idx(0), num_tiles, 4)") + bs(BS_EPI, "lm.range(lm.block_idx(0), num_tiles, 4)")),
    ("epi_end_plus4", "bad", bs(BS_EPI, "lm.range(lm.block_idx(0), num_tiles + 4, 4)")),
    ("epi_end_minus1", "bad", bs(BS_EPI, "lm.range(lm.block_idx(0), num_tiles - 1, 4)")),
    ("epi_start_mod", "bad", bs(BS_EPI, "lm.range(lm.block_idx(0) % 2, num_tiles, 4)")),
    ("mma_start_grid", "bad", bs(BS_MMA, "lm.range(lm.block_idx(0) + lm.grid_dim(0), num_tiles, 4)")),
    ("prod_step_8", "bad", bs(BS_PROD, "lm.range(lm.block_idx(0), num_tiles, 8)")),
    ("prod_start_times2", "bad", bs(BS_PROD, "lm.range(2 * lm.block_idx(0), num_tiles, 4)")),
    ("epi_end_reads_block", "bad", bs(BS_EPI, "lm.range(lm.block_idx(0), num_tiles - lm.block_idx(0) % 2, 4)")),
]

# ---------------------------------------------------------------- modguard: guards on a remainder by a parameter
MG_SRC = read("tests/encoder/mod_guard46_test.cpp")
MG_HEAD, MG_TAIL = re.search(r'return R"\((.*?)\)" \+ sync \+ R"\((.*?)\)";', MG_SRC, re.S).groups()
MG_GUARD = "        if b % n == x:\n"
MG_SYNC = "        lm.sync(block)\n"


def modguard(sync, edits):
    return s40.edited(MG_HEAD.lstrip("\n") + sync + MG_TAIL, edits, "modguard")


MG_NEG = [("    lm.assume(n >= 1)\n    lm.assume(x >= 0)\n    lm.assume(x < n)\n",
           "    lm.assume(n <= -1)\n    lm.assume(x <= 0)\n    lm.assume(x > n)\n")]
MG_FAR = [("    lm.assume(x >= 0)\n", "    lm.assume(x >= 100000)\n")]
MG_ZERO = [("    lm.assume(n >= 1)\n", "    lm.assume(n >= 0)\n"), ("    lm.assume(x < n)\n", "")]
MODGUARD_TEXTS = [
    ("base", "bad", modguard("", [])),
    ("base_sync", "good", modguard(MG_SYNC, [])),
    ("neg_divisor", "bad", modguard("", MG_NEG)),
    ("neg_divisor_sync", "good", modguard(MG_SYNC, MG_NEG)),
    ("far_residue", "bad", modguard("", MG_FAR)),
    ("far_residue_sync", "good", modguard(MG_SYNC, MG_FAR)),
    ("zero_divisor", "bad", modguard("", MG_ZERO)),
    ("zero_divisor_sync", "good", modguard(MG_SYNC, MG_ZERO)),
    # the race where the remainder is NOT x (every block but one)
    ("ne_guard", "bad", modguard("", [(MG_GUARD, "        if b % n != x:\n")])),
    # a sync skipped where the remainder is x: the race there only
    ("sync_skipped_at_x", "bad", modguard("        if b % n != x:\n    " + MG_SYNC, [])),
    # the remainder of a product: b * n % (n + 1) == x
    ("product_mod", "bad", modguard("", [(MG_GUARD, "        if b * n % (n + 1) == x:\n")])),
    ("product_mod_sync", "good", modguard(MG_SYNC, [(MG_GUARD, "        if b * n % (n + 1) == x:\n")])),
    # a floor quotient by a parameter: b // n == x + 1000
    ("quotient_far", "bad", modguard("", [(MG_GUARD, "        if b // n == x + 1000:\n")])),
    # a guard only a huge grid meets: b % (n * n) == n * n - 1 with n >= 40000
    ("square_far", "bad", modguard("", [(MG_GUARD, "        if b % (n * n) == n * n - 1:\n"),
                                         ("    lm.assume(n >= 1)\n", "    lm.assume(n >= 40000)\n")])),
]

# ---------------------------------------------------------------- reread: a slot read after every barrier of a round
BM = cpp_strings("tests/encoder/batch_metadata_test.cpp")["kBatchMetadata"].lstrip("\n")
BM_WRITE = "            if w == 0:\n                lm.copy(r, X, coords=(0, 16 * c))\n                lm.copy(meta, r)\n"
BM_READS = ("            lm.sync(bar)\n            lm.copy(r, meta)\n            lm.sync(bar)\n            lm.copy(r, meta)\n"
            "            lm.copy(Out, r, coords=(w, 16 * c))\n")


def bm_write(g):
    return rep(BM_WRITE, BM_WRITE.replace("if w == 0:", f"if {g}:"))


REREAD_MUTANTS = [
    ("base", "good", []),
    ("write_even_rounds", "bad", bm_write("w == 0 and c % 2 == 0")),
    ("write_not_last", "bad", bm_write("w == 0 and c + 1 < n")),
    ("write_not_first", "bad", bm_write("w == 0 and c > 0")),
    ("write_by_w1_odd", "bad", bm_write("w == c % 2 and c < 3")),
    ("write_between_reads", "bad", rep(BM_WRITE, "") + rep(BM_READS, BM_READS.replace(
        "            lm.sync(bar)\n            lm.copy(r, meta)\n            lm.copy(Out",
        "            lm.sync(bar)\n" + BM_WRITE + "            lm.copy(r, meta)\n            lm.copy(Out"))),
    ("rewrite_after_second_read", "bad", rep(BM_READS, BM_READS.replace(
        "            lm.copy(Out", "            if w == 0:\n                lm.copy(meta, r)\n            lm.copy(Out"))),
    ("rewrite_mid_round", "bad", rep(BM_READS, BM_READS.replace(
        "            lm.sync(bar)\n            lm.copy(r, meta)\n            lm.copy(Out",
        "            if w == 1:\n                lm.copy(r, X, coords=(1, 16 * c))\n                lm.copy(meta, r)\n"
        "            lm.sync(bar)\n            lm.copy(r, meta)\n            lm.copy(Out"))),
    ("rewrite_mid_round_synced", "good", rep(BM_READS, BM_READS.replace(
        "            lm.sync(bar)\n            lm.copy(r, meta)\n            lm.copy(Out",
        "            lm.sync(bar)\n            if w == 1:\n                lm.copy(r, X, coords=(1, 16 * c))\n"
        "                lm.copy(meta, r)\n            lm.sync(bar)\n            lm.copy(r, meta)\n            lm.copy(Out"))),
    # the write before the first read in even rounds, before the second in
    # odd ones: an odd round's first read finds the last round's data
    ("write_odd_rounds_late", "bad", bm_write("w == 0 and c % 2 == 0") + rep(BM_READS, BM_READS.replace(
        "            lm.sync(bar)\n            lm.copy(r, meta)\n            lm.copy(Out",
        "            if w == 0 and c % 2 == 1:\n                lm.copy(r, X, coords=(0, 16 * c))\n"
        "                lm.copy(meta, r)\n            lm.sync(bar)\n            lm.copy(r, meta)\n            lm.copy(Out"))),
    # both warps re-read once more after warp 0's write for the next round, unordered
    ("reread_past_next_write", "bad", rep("            lm.copy(Out, r, coords=(w, 16 * c))\n",
                                          "            lm.copy(Out, r, coords=(w, 16 * c))\n            if w == 0:\n"
                                          "                lm.copy(meta, r)\n            lm.copy(r, meta)\n")),
    ("w1_reads_alone_first", "bad", rep(BM_READS, BM_READS.replace(
        "            lm.sync(bar)\n            lm.copy(r, meta)\n            lm.sync(bar)",
        "            lm.sync(bar)\n            if w == 1:\n                lm.copy(r, meta)\n            lm.sync(bar)", 1))),
]

# ---------------------------------------------------------------- stagemult: a shift inside a slot modulus
TILELANG = "corpus/bugs/data.stale-read/tilelang_ws_persistent_slot_k_vs_phase"


def mma_reads(text, frm, to):
    return s40.edited(text, [("smem_a[" + frm + "], smem_b[" + frm + "]", "smem_a[" + to + "], smem_b[" + to + "]")],
                      "stagemult")


def stagemult_texts():
    fixed = read(TILELANG + "_fixed.cake")
    bug = read(TILELANG + ".cake")
    out = []
    for name, label, base, frm, to in [
        ("fixed_plus4_mod8", "good", fixed, "it", "(it + 4) % 8"),
        ("fixed_minus8_mod8", "good", fixed, "it", "(it - 8) % 8"),
        ("fixed_plus12_mod16", "good", fixed, "it", "(it + 12) % 16"),
        ("fixed_plus4_mod8_mod4", "good", fixed, "it", "(it + 4) % 8 % 4"),
        ("fixed_plus2_mod8", "bad", fixed, "it", "(it + 2) % 8"),
        ("fixed_plus4_mod6", "bad", fixed, "it", "(it + 4) % 6"),
        ("fixed_plus4_mod12", "good", fixed, "it", "(it + 4) % 12"),
        ("fixed_4_minus_mod8", "bad", fixed, "it", "(4 - it) % 8"),
        ("fixed_plus1_mod4_plus4", "bad", fixed, "it", "((it + 1) % 4 + 4) % 8"),
        ("bug_k_plus4_mod8", "bad", bug, "k", "(k + 4) % 8"),
        ("bug_k_minus4_mod8", "bad", bug, "k", "(k - 4) % 8"),
        ("bug_k_plus8_mod4", "bad", bug, "k", "(k + 8) % 4"),
    ]:
        out.append((name, label, mma_reads(strip_header(base), frm, to)))
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    out = args[0]
    index = []
    s40.write(out, "exit", EXIT, EXIT_MUTANTS, index)
    s40.write(out, "ring", RING, RING_MUTANTS, index)
    s40.write(out, "skipped", SPLITK, SKIPPED_MUTANTS, index)
    s40.write(out, "blockstep", BLOCKSTEP, BLOCKSTEP_MUTANTS, index)
    for name, label, text in MODGUARD_TEXTS:
        s40.write_text(out, "modguard", name, label, text, index)
    s40.write(out, "reread", BM, REREAD_MUTANTS, index)
    for name, label, text in stagemult_texts():
        s40.write_text(out, "stagemult", name, label, text, index)
    write_index(out, index)
    run_index_if_asked(out)


if __name__ == "__main__":
    main()
