#!/usr/bin/env python3
"""Session 39's fuzz of the respelled bounds (docs/z3.md "Soundness review,
session 39"): the consumer of bounds38's spelled-apart corpus file runs a
random spelling of its tile count, often equal to the producer's
`lm.cdiv(K, 64)` for every allowed K (`0 < K <= 256`) and often not; the
label is decided here by evaluating both over every allowed K (Python's
integers are the IR's). Each file then runs through `cake check`:
a spelling unequal somewhere must not exit 0 (proved or checked), an equal one
must not be reported.

    bench/attacks/sound39_bound_fuzz.py OUT [N=150] [SEED=39] [CAKE=build/cli/cake]
"""
import os
import random
import re
import sys

from attack_runner import CAKE, check, false_alarm, is_hole, read  # (the script's folder is on the path)

BASE = "corpus/bugs/data.stale-read/sm90_table_row_tile_count_spelled_apart_first_tile_only_fixed.cake"
CONS = "        for t in lm.range(0, (K + 63) // 64):\n"


def cdiv(a, b):
    return -((-a) // b)


def spelling(r):
    a = r.choice([62, 63, 63, 63, 64])
    b = r.choice([-1, 0, 0, 0, 1])
    c = r.choice([1, 2, 4])
    forms = [
        (f"(K + {a}) // 64", lambda K: (K + a) // 64),
        (f"lm.cdiv(K + {b}, 64)", lambda K: cdiv(K + b, 64)),
        (f"(K - 1) // 64 + 1", lambda K: (K - 1) // 64 + 1),
        (f"lm.cdiv(K * {c}, {64 * c})", lambda K: cdiv(K * c, 64 * c)),
        (f"(K + {a}) // 32 // 2", lambda K: (K + a) // 32 // 2),
        (f"lm.cdiv(lm.cdiv(K, {64 // c}), {c})", lambda K: cdiv(cdiv(K, 64 // c), c)),
        (f"K // 64 + (K % 64 > {r.choice([0, 0, 1])})", None),
        (f"lm.cdiv(K + 64, 64) - 1", lambda K: cdiv(K + 64, 64) - 1),
        (f"-((-K) // 64)", lambda K: -((-K) // 64)),
        (f"(K + {a}) // 64 * {c} // {c}", lambda K: (K + a) // 64 * c // c),
        (f"min(lm.cdiv(K, 64), {r.choice([3, 4, 5])})", None),
        (f"max(lm.cdiv(K, 64), {r.choice([1, 1, 2])})", None),
        (f"lm.cdiv(K, 64) + K // {r.choice([250, 256, 257, 300])}", None),
        (f"(K + {a}) % 64 + (K + {a}) // 64 - (K + {a}) % 64", lambda K: (K + a) // 64),
        (f"lm.cdiv(K % 64 + K // 64 * 64, 64)", lambda K: cdiv(K % 64 + K // 64 * 64, 64)),
        (f"(K + 63 - (K - 1) % 64) // 64", lambda K: (K + 63 - (K - 1) % 64) // 64),
    ]
    text, f = r.choice(forms)
    if f is None:  # the forms with a drawn constant: evaluate the text itself
        py = text.replace("lm.cdiv", "cdiv")
        py = re.sub(r"\((K % 64 > \d)\)", r"int(\1)", py)
        f = eval("lambda K: " + py, {"cdiv": cdiv, "min": min, "max": max})
    return text, f


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 150
    r = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 39)
    cake = sys.argv[4] if len(sys.argv) > 4 else CAKE
    base = read(BASE)
    os.makedirs(out, exist_ok=True)
    counts, seen = {}, set()
    for i in range(n):
        text, f = spelling(r)
        if text in seen:
            continue
        seen.add(text)
        equal = all(f(K) == cdiv(K, 64) for K in range(1, 257))
        path = os.path.join(out, f"f{i:03d}.cake")
        open(path, "w").write(base.replace(CONS, f"        for t in lm.range(0, {text}):\n"))
        v = check(cake, path)
        verdict = v.result or f"exit {v.rc}"
        key = ("equal" if equal else "unequal", v.rc, verdict)
        counts[key] = counts.get(key, 0) + 1
        label = "good" if equal else "bad"
        bad = is_hole(label, v) or false_alarm(label, v)
        print(f"{'HOLE ' if bad else ''}{os.path.basename(path)}\t{'equal' if equal else 'unequal'}\t"
              f"exit {v.rc}\t{verdict}\t{text}", flush=True)
    for k in sorted(counts):
        print(counts[k], *k)


if __name__ == "__main__":
    main()
