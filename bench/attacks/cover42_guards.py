#!/usr/bin/env python3
"""Session 42's attack on the bounded check's flip placement (helper cover42,
docs/z3.md "Guards combined with and/or/not, facts in any spelling"): one
consumer wait of a corpus kernel's ring made conditional on a guard that
combines a comparison of the loop variable with block indices and parameters
by and/or/not (a wait skipped where the guard is false), with or without an
extra lm.assume fact spelled in several ways, written to
OUT/<base>/<name>.cake with OUT/index.tsv (sound40_run.py's format):

    bench/attacks/cover42_guards.py OUT        # writes the files and OUT/index.tsv
    bench/attacks/sound41_run.py OUT [CAKE]    # cake check on each; a "bad" one must exit 1 or 2

Bases: the split-K range of tests/encoder/split_k_range.h (k - k0 over
[k0, k1), k0 = lm.block_idx(1) * kpc), the persistent Q/K ring of
tests/encoder/persistent_kernels.h (kQueryEmpty: tiles t, K steps k) and
FA3's sliding-window forward pass (key blocks j). A skipped consumer wait at
an iteration the loop runs lets the MMA read a slot whose TMA load may still
be in flight (sync.race), so a mutant is "bad" exactly when some binding
inside the lm.assume facts runs an iteration where the guard is false. The
label is computed by enumerating the loop's iterations over a grid of
parameter values and block indices that holds every threshold used here
(the guard evaluated with Python's floor `//` and `%`, as the IR's); the
rest are "good" (correct twins: the guard is true wherever the code runs).
"""
import itertools
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attack_runner import corpus, strip_header, write_index  # noqa: E402
from sound40_mutants import raw_string  # noqa: E402

# The guard under which the wait runs: {L} the loop term, {B} a block index,
# {P} a parameter, {N} a threshold.
BLOCK_GUARDS = [
    ("or_block", "{L} < {N} or {B} != 2"),
    ("block_or", "{B} != 2 or {L} < {N}"),
    ("not_and", "not ({L} >= {N} and {B} == 2)"),
    ("or_not", "{L} < {N} or not ({B} == 2)"),
    ("and_nonneg", "({L} < {N} or {B} != 2) and {L} >= 0"),
    ("one_iter", "{L} != {N} or {B} != 2"),
    ("periodic", "{L} % 5 != 4 or {B} != 2"),
    ("three_way", "{L} < {N} or {B} != 2 or {P} % 2 == 0"),
    ("sum_block", "{L} + {B} != {N}"),
    ("block_ge", "not ({L} >= {N}) or {B} < 2"),
]
PARAM_GUARDS = [
    ("or_residue1", "{L} < {N} or {P} % 3 != 1"),
    ("or_residue0", "{L} < {N} or {P} % 3 != 0"),
    ("or_large", "{L} < {N} or {P} < 40"),
    ("not_and_residue", "not ({L} >= {N} and {P} % 3 == 0 and {B} == 1)"),
]
# lm.assume facts: (name, text) with {P}; residue 0 and residue 1 modulo 3.
FACTS = [
    ("none", None),
    ("plain0", "{P} % 3 == 0"),
    ("shift0", "({P} + 3) % 3 == 0"),
    ("times0", "(2 * {P}) % 3 == 0"),
    ("floor0", "{P} - 3 * ({P} // 3) == 0"),
    ("floordiv0", "{P} // 3 * 3 == {P}"),
    ("not0", "not ({P} % 3 != 0)"),
    ("shift1", "({P} + 2) % 3 == 0"),
    ("minus1", "({P} - 1) % 3 == 0"),
    ("times1", "(4 * {P}) % 3 == 1"),
]


def cdiv(a, b):
    return -((-a) // b)


def py(expr):
    """A guard or fact as a Python expression over the environment's names."""
    e = re.sub(r"lm\.block_idx\((\d)\)", r"b\1", expr)
    return e.replace("lm.cdiv", "cdiv")


class Base:
    """A kernel, the wait line to guard, and the runs to enumerate."""

    def __init__(self, name, text, wait, loop_terms, blocks, params, runs):
        self.name, self.text, self.wait = name, text, wait
        self.loop_terms = loop_terms  # (term, [thresholds])
        self.blocks, self.params = blocks, params
        self.runs = runs  # runs(reads) -> iterable of (env, iterations), iterations: env updates

    def mutant(self, guard, fact):
        indent = self.wait[: len(self.wait) - len(self.wait.lstrip())]
        text = self.text.replace(self.wait, f"{indent}if {guard}:\n    {self.wait}")
        if fact:
            first = re.search(r"\n(    lm\.assume\([^\n]*\)\n)", text)
            text = text.replace(first.group(1), first.group(1) + f"    lm.assume({fact})\n", 1)
        assert text.count(f"if {guard}:") == 1
        return text

    def skips(self, guard, fact):
        """Some binding inside the facts runs an iteration where the guard is false."""
        g = compile(py(guard), "guard", "eval")
        facts = [compile(py(f), "fact", "eval") for f in re.findall(r"lm\.assume\((.*)\)\n", self.mutant(guard, fact))]
        names = set(re.findall(r"[A-Za-z_]\w*", py(guard) + " " + (py(fact) if fact else "")))
        for env, iterations in self.runs(names):
            env["cdiv"] = cdiv
            if not all(eval(f, env) for f in facts):
                continue
            for it in iterations:
                env.update(it)
                if not eval(g, env):
                    return True
        return False


def split_k_runs(names):
    for b0 in range(4) if "b0" in names else [0]:
        for b1 in range(5):
            for kpc in range(1, 49):
                k0 = b1 * kpc
                for tiles in range(k0 + 1, k0 + kpc + 2):
                    for K in sizes(tiles, "K", names):
                        k1 = min(k0 + kpc, cdiv(K, 64))
                        env = {"b0": b0, "b1": b1, "kpc": kpc, "K": K, "k0": k0, "k1": k1}
                        yield env, ({"k": k} for k in range(k0, k1))


def sizes(n, name, names):
    """The values of a size parameter with lm.cdiv(x, 64) == n: both ends where the guard or fact reads it."""
    return (64 * n, 64 * n - 63) if name in names else (64 * n,)


def persistent_runs(names):
    for b0 in range(4) if "b0" in names else [0]:
        for tiles in range(1, 13):
            for k_tiles in range(1, 45):
                for M, K in itertools.product(sizes(tiles, "M", names), sizes(k_tiles, "K", names)):
                    env = {"b0": b0, "M": M, "K": K, "tiles": tiles, "k_tiles": k_tiles}
                    yield env, ({"t": t, "k": k} for t in range(tiles) for k in range(k_tiles))


def fa3_runs(names):
    for b0 in range(4) if "b0" in names else [0]:
        for b1 in range(4) if "b1" in names else [0]:
            for window in [*range(16, 20), *range(38, 46)] if "window" in names else [16]:
                for n_blocks in range(1, 49):
                    for seqlen_k in sizes(n_blocks, "seqlen_k", names):
                        env = {"b0": b0, "b1": b1, "window": window, "seqlen_k": seqlen_k, "seqlen_q": 1}
                        yield env, ({"j": j} for j in range(n_blocks))


def bases():
    persistent = raw_string("tests/encoder/persistent_kernels.h", "kQueryEmpty")
    fa3 = strip_header(corpus("bugs/data.stale-read/fa3_sliding_window_v_skipped_outside_window_fixed.cake"))
    return [
        Base("splitk", raw_string("tests/encoder/split_k_range.h", "kSplitKRange"),
             "            lm.wait(full, iter=k - k0)\n", [("k - k0", [6, 40])],
             ["lm.block_idx(1)", "lm.block_idx(0)"], ["kpc"], split_k_runs),
        Base("persistent", persistent, "                lm.wait(full, iter=it)\n", [("k", [6, 40]), ("t", [3])],
             ["lm.block_idx(0)"], ["K", "M"], persistent_runs),
        Base("fa3", fa3, "            lm.wait(k_full, iter=j)\n", [("j", [6, 40])],
             ["lm.block_idx(0)", "lm.block_idx(1)"], ["seqlen_k", "window"], fa3_runs),
    ]


def mutants(base):
    """(name, guard, fact) of every combination this attack writes."""
    out = []
    for (term, ns), block in itertools.product(base.loop_terms, base.blocks):
        for (gname, g), n in itertools.product(BLOCK_GUARDS, ns):
            tag = f"{re.sub(r'[^a-z0-9]+', '', term)}_b{block[-2]}_{gname}_{n}"
            out.append((tag, g.format(L=term, B=block, P=base.params[0], N=n), None))
    term, ns = base.loop_terms[0]
    for p in base.params:
        facts = FACTS if p == base.params[0] else [x for x in FACTS if x[0] in ("none", "shift0", "times1")]
        for (gname, g), (fname, f) in itertools.product(PARAM_GUARDS, facts):
            guard = g.format(L=term, B=base.blocks[0], P=p, N=ns[0])
            out.append((f"{p}_{gname}_{fname}", guard, f.format(P=p) if f else None))
    return out


def main():
    out = sys.argv[1]
    index = []
    for base in bases():
        d = os.path.join(out, base.name)
        os.makedirs(d, exist_ok=True)
        for name, guard, fact in mutants(base):
            label = "bad" if base.skips(guard, fact) else "good"
            path = os.path.join(d, name + ".cake")
            with open(path, "w") as f:
                f.write(f"# cover42 mutant of {base.name}: if {guard}: (fact: {fact})\n")
                f.write(f"# expect: {'bug' if label == 'bad' else 'pass'}\n")
                f.write(base.mutant(guard, fact))
            index.append((os.path.relpath(path, out), label))
    write_index(out, index)
    print(len(index), "mutants,", sum(1 for _, l in index if l == "bad"), "bad")


if __name__ == "__main__":
    main()
