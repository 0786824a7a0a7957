#!/usr/bin/env python3
"""Session 43's attack on two exit-0 gaps of the bounded check (helper gap43,
docs/z3.md "Loop pairs off their line, guards on two loop variables"),
written to OUT/<base>/<name>.cake with OUT/index.tsv (sound40_run.py's format):

    bench/attacks/gap43_attacks.py OUT        # writes the files and OUT/index.tsv
    bench/attacks/sound41_run.py OUT [CAKE]    # cake check on each; a "bad" one must exit 1 or 2

1. Loop pairs ("pairs"): the two-slot ring of
   corpus/bugs/sync.deadlock/sm90_ws_two_slots_producer_bound_floored_fixed.cake,
   whose producer loads 2 * lm.cdiv(K, 128) blocks and whose consumer takes two
   per iteration for (K + 127) // 128 iterations, with one of the two bounds
   respelled so that the counts part only in a corner of K (a cap, a point, a
   band). The trip counts' difference is not constant (the producer's is twice
   the consumer's), so a corner that only asks for a new value of the
   difference finds one at K = 1000 and passes. "bad" iff some allowed K (every
   K in the i32 range, the lm.assume facts evaluated) gives the consumer a count
   other than lm.cdiv(K, 128): it then waits for a load never made or leaves the
   producer waiting for a release never made. Also a ring whose two loops run
   the same count (the persistent Q/K ring, its consumer's K loop respelled).
2. Guards on two loop variables ("guards"): the consumer wait of the persistent
   Q/K ring (tests/encoder/persistent_kernels.h kQueryEmpty: tiles t, K steps
   k) made conditional on a guard that reads both t and k. A skipped wait lets
   the MMA read a slot whose TMA load may be in flight (sync.race), so the
   label is exact: "bad" iff some binding inside the facts runs an iteration
   (t, k) where the guard is false, found by enumerating tiles and K steps up to
   past every threshold used here.
"""
import itertools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attack_runner import corpus, write_index  # noqa: E402
from sound40_mutants import raw_string  # noqa: E402

I32_MAX = 2**31 - 1


def cdiv(a, b):
    return -((-a) // b)


# ---------------------------------------------------------------- 1. loop pairs
FLOOR = "bugs/sync.deadlock/sm90_ws_two_slots_producer_bound_floored_fixed.cake"
PBOUND = "        for k in lm.range(0, 2 * lm.cdiv(K, 128)):\n"
CBOUND = "        for j in lm.range(0, (K + 127) // 128):\n"
FACT_LINE = "    lm.assume(K > 0)\n"

# (name, consumer count, producer count / 2, extra fact) as Python over K; the
# same text is the cake expression (Python's // and min/max are the IR's).
PAIRS = [
    *[(f"cap_{c}", f"min(lm.cdiv(K, 128), {c})", "lm.cdiv(K, 128)", None) for c in (3, 5, 9, 40, 300, 16777215)],
    *[(f"cap_{c}_fact", f"min(lm.cdiv(K, 128), {c})", "lm.cdiv(K, 128)", f"K <= 128 * {c}") for c in (5, 40, 16777215)],
    *[(f"cap_{c}_fact_short", f"min(lm.cdiv(K, 128), {c})", "lm.cdiv(K, 128)", f"K <= 128 * {c} + 1") for c in (5, 40)],
    ("cap_inside", "lm.cdiv(min(K, 5120), 128)", "lm.cdiv(K, 128)", None),
    ("producer_cap_40", "(K + 127) // 128", "min(lm.cdiv(K, 128), 40)", None),
    ("producer_cap_16777215", "(K + 127) // 128", "min(lm.cdiv(K, 128), 16777215)", None),
    ("point_5000", "(K + 127) // 128 + (K == 5000)", "lm.cdiv(K, 128)", None),
    ("point_minus_5000", "(K + 127) // 128 - (K == 5000)", "lm.cdiv(K, 128)", None),
    ("band_5000", "(K + 127) // 128 + (K > 5000) * (K < 5050)", "lm.cdiv(K, 128)", None),
    ("floor_max", "max(K // 128, 40)", "lm.cdiv(K, 128)", "K % 128 == 0"),
    ("floor_max_good", "max(K // 128, 1)", "lm.cdiv(K, 128)", "K % 128 == 0"),
    ("point_never", "(K + 127) // 128 + (K == 5000) * (K < 0)", "lm.cdiv(K, 128)", None),
    ("cap_exact", "min(lm.cdiv(K, 128), 16777216)", "lm.cdiv(K, 128)", None),
]


def pair_label(consumer, producer, fact):
    """bad iff some allowed K gives the two counts apart: checked at every K
    near each constant and its multiples of 128, which holds every corner of
    the forms above, and at the ends of the i32 range."""
    env = {"cdiv": cdiv}
    ks = set(range(1, 20000)) | {I32_MAX - d for d in range(0, 300)}
    for c in (3, 5, 9, 40, 300, 5000, 5120, 16777215, 16777216):
        for m in (1, 128):
            ks |= {c * m + d for d in range(-2, 3)}
    for K in sorted(ks):
        if K <= 0 or K > I32_MAX:
            continue
        env["K"] = K
        if fact and not eval(fact, env):
            continue
        c = eval(consumer.replace("lm.cdiv", "cdiv"), env)
        p = eval(producer.replace("lm.cdiv", "cdiv"), env)
        if c != p:
            return "bad"
    return "good"


def pair_mutant(consumer, producer, fact):
    text = corpus(FLOOR)
    text = text.replace(PBOUND, f"        for k in lm.range(0, 2 * {producer}):\n")
    text = text.replace(CBOUND, f"        for j in lm.range(0, {consumer}):\n")
    if fact:
        text = text.replace(FACT_LINE, FACT_LINE + f"    lm.assume({fact})\n")
    return "\n".join(l for l in text.split("\n") if not l.startswith("# expect")) + "\n"


# the persistent Q/K ring, the consumer's K loop respelled (both loops run k_tiles)
RING_CBOUND = ("            lm.wait(q_full, iter=t)\n            for k in lm.range(0, k_tiles):\n")
RING_PAIRS = [
    ("ring_cap_40", "min(k_tiles, 40)", None),
    ("ring_cap_16777215", "min(lm.cdiv(K, 64), 33554431)", None),
    ("ring_point", "k_tiles + (K == 5000)", None),
    ("ring_cap_fact", "min(k_tiles, 40)", "K <= 64 * 40"),
]


def ring_label(consumer, fact):
    env = {"cdiv": cdiv}
    ks = set(range(1, 6000)) | {I32_MAX - d for d in range(0, 300)} | {64 * 40 + d for d in range(-2, 3)}
    for K in sorted(ks):
        env["K"] = K
        env["k_tiles"] = cdiv(K, 64)
        if fact and not eval(fact, env):
            continue
        if eval(consumer.replace("lm.cdiv", "cdiv"), env) != env["k_tiles"]:
            return "bad"
    return "good"


def ring_mutant(consumer, fact):
    text = raw_string("tests/encoder/persistent_kernels.h", "kQueryEmpty")
    assert text.count(RING_CBOUND) == 1
    text = text.replace(RING_CBOUND, RING_CBOUND.replace("lm.range(0, k_tiles)", f"lm.range(0, {consumer})"))
    if fact:
        text = text.replace(FACT_LINE, FACT_LINE + f"    lm.assume({fact})\n")
    return text


# ---------------------------------------------------------------- 2. guards on two loop variables
WAIT = "                lm.wait(full, iter=it)\n"
# the guard under which the consumer's `full` wait runs ({N} a threshold)
GUARDS = [
    ("sum_lt", "t + k < {N}"),
    ("sum_ne", "t + k != {N}"),
    ("sum_ne_or_t", "t + k != {N} or t < 3"),
    ("sum_ne_or_k", "t + k != {N} or k < 3"),
    ("sum_ne_or_both", "t + k != {N} or t < 3 or k < 3"),
    ("diff_ne", "k - t != {N}"),
    ("tdiff_ne", "t - k != 3 or k < 2"),
    ("twice_ne", "2 * t + k != {N} or t < 2 or k < 2"),
    ("parity_eq", "k == t % 2 or k < {N}"),
    ("parity_ne", "k != t % 2 + {N}"),
    ("k_at_t_residue", "k != {N} or t % 3 != 2"),
    ("not_and", "not (k >= {N} and t >= 2)"),
    ("prod_ne", "t * k != {N}"),
    ("nested", None),
    ("good_sum", "t + k < tiles + k_tiles"),
    ("good_it", "t * k_tiles + k < tiles * k_tiles"),
    ("good_parity", "k == t % 2 or k != t % 2"),
    ("good_or", "t + k != {N} or t + k >= 0"),
]
NESTED = ("                if t >= 2:\n                    if k != {N}:\n                        lm.wait(full, iter=it)\n"
          "                else:\n                    lm.wait(full, iter=it)\n")


def guard_label(guard, n):
    """bad iff some (tiles, k_tiles) runs an iteration where the guard is false."""
    g = compile(guard, "guard", "eval")
    for tiles in range(1, 13):
        for k_tiles in range(1, n + 4):
            for t, k in itertools.product(range(tiles), range(k_tiles)):
                env = {"t": t, "k": k, "tiles": tiles, "k_tiles": k_tiles}
                if not eval(g, env):
                    return "bad"
    return "good"


def guard_mutant(guard, n):
    text = raw_string("tests/encoder/persistent_kernels.h", "kQueryEmpty")
    assert text.count(WAIT) == 1
    if guard is None:
        return text.replace(WAIT, NESTED.format(N=n))
    return text.replace(WAIT, f"                if {guard}:\n    {WAIT}")


def main():
    out = sys.argv[1]
    index = []

    def write(sub, name, label, text, what):
        d = os.path.join(out, sub)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, name + ".cake")
        with open(path, "w") as f:
            f.write(f"# gap43 mutant: {what}\n# expect: {'bug' if label == 'bad' else 'pass'}\n{text}")
        index.append((os.path.relpath(path, out), label))

    for name, consumer, producer, fact in PAIRS:
        write("pairs", name, pair_label(consumer, producer, fact), pair_mutant(consumer, producer, fact),
              f"consumer {consumer}, producer 2 * {producer}, fact {fact}")
    for name, consumer, fact in RING_PAIRS:
        write("pairs", name, ring_label(consumer, fact), ring_mutant(consumer, fact), f"consumer {consumer}, fact {fact}")
    for (gname, g), n in itertools.product(GUARDS, (6, 40)):
        if g is not None and "{N}" not in g and n != 6:
            continue
        guard = g.format(N=n) if g else None
        label = guard_label(guard if g else f"t < 2 or k != {n}", n)
        write("guards", f"{gname}_{n}", label, guard_mutant(guard, n), f"if {guard if g else 'nested t >= 2 / k != N'}")
    write_index(out, index)


if __name__ == "__main__":
    main()
