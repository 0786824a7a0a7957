#!/usr/bin/env bash
# Calibration of the proof's work budget (encoder/proof_budget.h): for each
# known-good corpus file, the work units and the CPU seconds of the calling
# thread that each proof for every trip count used (CAKE_PROOF_STATS=1 makes
# the proof print one `proof-stats:` line per proof on stderr), and the
# rate units / CPU second over the proofs that ran at least MIN_CPU s.
#
#   bench/proof_budget_calibrate.sh [CAKE=build/cli/cake] [JOBS=2] [CORPUS=corpus] [PROOF_TIMEOUT=15]
#
# The rate is what ProofBudget::kUnitsPerSecond should be on this machine
# (its median); CPU time, not wall time, so the load matters little.
set -euo pipefail
CAKE=${1:-build/cli/cake}
JOBS=${2:-2}
CORPUS=${3:-corpus}
PT=${4:-15}
MIN_CPU=${MIN_CPU:-0.2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
RAW=${RAW:-}   # a file to keep every proof-stats line in (file, then the line)
grep -rl --include='*.cake' '^# expect: pass' "$CORPUS" | sort > "$tmp/files"
export PT RAW
nl -ba "$tmp/files" | xargs -P "$JOBS" -L 1 sh -c \
  'CAKE_PROOF_STATS=1 "$0" check --require-proof --format json --proof-timeout $PT --timeout $((PT * 4 + 20)) "$2" \
     > /dev/null 2> "'"$tmp"'/$1.err"; true' "$CAKE"
python3 - "$tmp" "$MIN_CPU" <<'PY'
import os, re, sys, statistics
tmp, min_cpu = sys.argv[1], float(sys.argv[2])
files = open(os.path.join(tmp, "files")).read().split()
rows = []
raw = open(os.environ["RAW"], "w") if os.environ.get("RAW") else None
for i, f in enumerate(files, 1):
    for line in open(os.path.join(tmp, f"{i}.err"), errors="replace"):
        if raw and line.startswith("proof-stats:"):
            raw.write(f"{f} {line}")
        m = re.match(r"proof-stats: outcome=(\w+) work=(\d+) cpu_s=([\d.]+) wall_s=([\d.]+) states=(\d+)", line)
        if m:
            rows.append((f, m.group(1), int(m.group(2)), float(m.group(3)), float(m.group(4)), int(m.group(5))))
print("file outcome work cpu_s wall_s states units_per_cpu_s")
for r in rows:
    rate = r[2] / r[3] if r[3] > 0 else 0
    print(f"{r[0]} {r[1]} {r[2]} {r[3]:.3f} {r[4]:.3f} {r[5]} {rate:.0f}")
big = [r[2] / r[3] for r in rows if r[3] >= min_cpu]
if big:
    q = statistics.quantiles(big, n=10)
    print(f"\nproofs: {len(rows)}; with cpu >= {min_cpu} s: {len(big)}; units per CPU second: "
          f"median {statistics.median(big):.3g}, p10 {q[0]:.3g}, p90 {q[-1]:.3g}, min {min(big):.3g}, max {max(big):.3g}")
PY
