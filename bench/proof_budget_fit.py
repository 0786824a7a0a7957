#!/usr/bin/env python3
"""Fits the proof's work weights (encoder/proof_budget.h) to CPU time.

  python3 bench/proof_budget_fit.py RAW

RAW: the `proof-stats:` lines that bench/proof_budget_calibrate.sh keeps
(RAW=FILE), one proof each, with its counts and the CPU seconds of its
thread. Fits cpu_s ~ sum_i c_i * count_i (non-negative c_i, least squares
of the relative error over the proofs with at least MIN_CPU s), prints the
c_i in nanoseconds (the units of ProofBudget when kUnitsPerSecond is 1e9)
and how well the fitted work predicts the CPU time, and, for the weights
now in the source (WEIGHTS=name=ns,...), the same.
"""
import os, re, sys, statistics

FEATURES = ["expanded", "offered", "words", "expanded_instrs", "built", "queries", "rlimit", "window_ops", "laid_out"]
MIN_CPU = float(os.environ.get("MIN_CPU", "0.05"))

rows = []
for line in open(sys.argv[1]):
    f = line.split()[0]
    kv = dict(re.findall(r"(\w+)=([\w.]+)", line))
    if "rlimit" not in kv:
        continue
    rows.append((f, kv["outcome"], float(kv["cpu_s"]), [float(kv.get(k, 0)) for k in FEATURES]))
fit = [r for r in rows if r[2] >= MIN_CPU]


def solve(A, b):
    n = len(b)
    M = [row[:] + [b[i]] for i, row in enumerate(A)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(M[r][c]))
        M[c], M[p] = M[p], M[c]
        if abs(M[c][c]) < 1e-30:
            continue
        for r in range(n):
            if r != c:
                k = M[r][c] / M[c][c]
                M[r] = [x - k * y for x, y in zip(M[r], M[c])]
    return [M[i][n] / M[i][i] if abs(M[i][i]) > 1e-30 else 0.0 for i in range(n)]


def nnls(X, y, active):
    # least squares on the active features; drop the most negative until none is
    active = list(active)
    while True:
        A = [[sum(X[k][i] * X[k][j] for k in range(len(X))) for j in active] for i in active]
        b = [sum(X[k][i] * y[k] for k in range(len(X))) for i in active]
        # ridge for conditioning
        for i in range(len(active)):
            A[i][i] += 1e-12 * (A[i][i] + 1)
        c = solve(A, b)
        if all(v >= 0 for v in c):
            out = [0.0] * len(FEATURES)
            for i, a in enumerate(active):
                out[a] = c[i]
            return out
        active.pop(min(range(len(c)), key=lambda i: c[i]))


# relative error: divide each row by its cpu
X = [[v / r[2] for v in r[3]] for r in fit]
y = [1.0 for _ in fit]
c = nnls(X, y, range(len(FEATURES)))


def report(name, coef):
    ratios = sorted(sum(a * b for a, b in zip(coef, r[3])) / r[2] for r in fit)
    q = statistics.quantiles(ratios, n=10)
    print(f"{name}: predicted/actual CPU over {len(fit)} proofs with >= {MIN_CPU} s: median {statistics.median(ratios):.2f}, "
          f"p10 {q[0]:.2f}, p90 {q[-1]:.2f}, min {ratios[0]:.2f}, max {ratios[-1]:.2f}")


print("fitted ns per count:", ", ".join(f"{k}={v * 1e9:.3g}" for k, v in zip(FEATURES, c)))
report("fitted", c)
if os.environ.get("WEIGHTS"):
    w = dict(x.split("=") for x in os.environ["WEIGHTS"].split(","))
    coef = [float(w.get(k, 0)) * 1e-9 for k in FEATURES]
    report("weights " + os.environ["WEIGHTS"], coef)
    worst = sorted(fit, key=lambda r: sum(a * b for a, b in zip(coef, r[3])) / r[2])
    for r in worst[:5] + worst[-5:]:
        print(f"  {r[0]} cpu {r[2]:.2f} s, predicted {sum(a * b for a, b in zip(coef, r[3])):.2f} s")
