#!/usr/bin/env bash
# How many known-good corpus schedules `cake check` *proves* (every
# parameter value the lm.assume facts allow) rather than only *checks*
# (listed values), and why the rest are not proved, grouped by reason.
#
#   bench/proof_coverage.sh [CAKE=build/cli/cake] [JOBS=2] [CORPUS=corpus]
#   PROOF_TIMEOUT=30 bench/proof_coverage.sh    # the proof's budget (s; default: cake check's 3 s)
#
# Known-good: every .cake file under CORPUS with a `# expect: pass` line
# (hand-written and benign mutants; docs/corpus-gate.md). Each file is
# checked with `cake check --require-proof --format json`; a file counts as
# proved when its result is "proved". Prints the table (markdown) and, with
# VERBOSE=1, every unproved file with its reason.
set -euo pipefail
CAKE=${1:-build/cli/cake}
JOBS=${2:-2}
CORPUS=${3:-corpus}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -rl --include='*.cake' '^# expect: pass' "$CORPUS" | sort > "$tmp/files"
PROOF_ARGS=""
if [ -n "${PROOF_TIMEOUT:-}" ]; then
  PROOF_ARGS="--proof-timeout $PROOF_TIMEOUT --timeout $((PROOF_TIMEOUT * 2 + 10))"
fi
export PROOF_ARGS
load=$(cut -d' ' -f1 /proc/loadavg)
start=$(date +%s.%N)
# one JSON per file (named by line number), in parallel
nl -ba "$tmp/files" | xargs -P "$JOBS" -L 1 sh -c \
  '"$0" check --require-proof --format json $PROOF_ARGS "$2" > "'"$tmp"'/$1.json" 2>/dev/null; true' "$CAKE"
end=$(date +%s.%N)
python3 - "$tmp" "$(echo "$end - $start" | bc)" "$load" "${PROOF_TIMEOUT:-3}" <<'PY'
import json, os, re, sys, collections
tmp, secs, load, budget = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
files = open(os.path.join(tmp, "files")).read().split()
groups = collections.Counter()
examples = {}
proved = 0
rows = []
def reason(line):
    m = re.search(r"proof: unknown \((.*)\)\s*$", line)
    if not m:
        return "other: " + line[:80]
    r = m.group(1)
    # group by the reason's kind, not its file-specific text
    r = re.sub(r"\(.*", "", r).strip()          # drop expressions in parentheses
    r = re.sub(r"\b\d+(\.\d+)?\b", "N", r)       # numbers
    r = re.sub(r"'[^']*'|lm\.\w+\([^)]*\)|\b[a-z_]+\[\d+\]", "X", r)
    return r[:110]
for i, f in enumerate(files, 1):
    try:
        d = json.load(open(os.path.join(tmp, f"{i}.json")))
        res = d["files"][0]["result"]
        why = d["files"][0].get("not_proved", [])
    except Exception as e:
        res, why = "error", [f"no JSON ({e.__class__.__name__})"]
    if res == "proved":
        proved += 1
        continue
    r = reason(why[0]) if why else f"result {res}, no reason"
    groups[r] += 1
    examples.setdefault(r, f)
    rows.append((f, res, why[0] if why else ""))
n = len(files)
print(f"known-good files: {n}; proved: {proved}; not proved: {n - proved}  "
      f"(proof budget {budget} s; {secs:.0f} s wall; load average {load} at the start)")
print()
print("| files | reason the proof gave (`proof: unknown (...)`) | e.g. |")
print("|---:|---|---|")
for r, c in groups.most_common():
    print(f"| {c} | {r} | `{examples[r]}` |")
if os.environ.get("VERBOSE"):
    print()
    for f, res, w in rows:
        print(f"{f}: {res}: {w}")
PY
