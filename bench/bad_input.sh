#!/usr/bin/env bash
# Bad input to the `cake` command line, as a demanding user (or an agent
# that parses every byte) gives it: malformed and truncated files, files
# that are not files, wrong arguments to every subcommand, --format json on
# every error, `cake run` without a GPU, an empty corpus directory.
#
# The rule (docs/cli.md "Bad input"): a clear error with its location and a
# non-zero exit, never a crash (exit >= 128), a hang (the timeout below) or
# a silent pass. Every case states the exit status it wants; with
# --format json|jsonl|sarif the standard output must be valid JSON (each line
# for jsonl) and, on an error, say so.
#
#   bench/bad_input.sh [build/cli/cake] [CUTS]     (CUTS: random truncations, default 20;
#                                                   BAD_INPUT_SEED picks them)
#
# Prints one line per failing case and a summary; exits 1 when any failed.
set -u
CAKE=${1:-build/cli/cake}
CUTS=${2:-20}
LIMIT=${BAD_INPUT_TIMEOUT:-60}
[ -x "$CAKE" ] || { echo "no cake binary at $CAKE" >&2; exit 2; }
CAKE=$(cd "$(dirname "$CAKE")" && pwd)/$(basename "$CAKE")
cd "$(dirname "$0")/.."
T=$(mktemp -d /tmp/cake-bad-input.XXXXXX)
trap 'chmod -R u+rwx "$T"; rm -rf "$T"' EXIT
GOOD=corpus/gemm/sm90_basic_one_consumer.cake
[ -f "$GOOD" ] || GOOD=$(find corpus -name '*.cake' | sort | head -1)

pass=0 fail=0
failed() { echo "FAIL $1: $2"; fail=$((fail + 1)); }

# valid_json FILE MODE: MODE json|sarif (one document) or jsonl (one per line)
valid_json() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
text = open(sys.argv[1], encoding="utf-8").read()
if sys.argv[2] == "jsonl":
    lines = [l for l in text.splitlines() if l.strip()]
    if not lines: sys.exit("no JSON lines on stdout")
    for l in lines: json.loads(l)
else:
    json.loads(text)
EOF
}

# run_case NAME WANT ARGS...   WANT: an exit status, or "nz" (1 or 2)
run_case() {
  local name=$1 want=$2; shift 2
  timeout -k 5 "$LIMIT" "$CAKE" "$@" >"$T/out" 2>"$T/err" </dev/null
  local rc=$?
  local fmt=""
  local prev=""
  for a in "$@"; do
    [ "$prev" = "--format" ] && fmt=$a
    prev=$a
  done
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then failed "$name" "hang (no exit within ${LIMIT}s): cake $*"; return; fi
  if [ $rc -ge 128 ]; then failed "$name" "crash (exit $rc): cake $* :: $(tail -c 300 "$T/err")"; return; fi
  if [ "$want" = nz ]; then
    if [ $rc -ne 1 ] && [ $rc -ne 2 ]; then failed "$name" "exit $rc, want 1 or 2: cake $*"; return; fi
  elif [ $rc -ne "$want" ]; then
    failed "$name" "exit $rc, want $want: cake $* :: $(tail -c 300 "$T/err")"; return
  fi
  if [ $rc -ne 0 ] && [ ! -s "$T/err" ] && [ ! -s "$T/out" ]; then failed "$name" "exit $rc with no message"; return; fi
  case "$fmt" in
    json|sarif|jsonl)
      local err
      if ! err=$(valid_json "$T/out" "$fmt" 2>&1); then
        failed "$name" "--format $fmt: stdout is not valid JSON ($(echo "$err" | tail -1)): cake $*"; return
      fi;;
  esac
  pass=$((pass + 1))
}

# ---- files that are not good files -------------------------------------
printf '' >"$T/empty.cake"
mkdir -p "$T/dir.cake" "$T/emptydir"
UNREADABLE=""
if [ "$(id -u)" != 0 ]; then  # root reads a mode-000 file
  cp "$GOOD" "$T/unreadable.cake"; chmod 000 "$T/unreadable.cake"; UNREADABLE=unreadable
fi
printf '\xff\xfe\x00garbage\x80\n' >"$T/binary.cake"
sed 's/$/\r/' "$GOOD" >"$T/crlf.cake"
sed 's/^    /\t/' "$GOOD" >"$T/tabs.cake"               # consistent tabs: valid Python, accepted
sed 's/^        /\t/' "$GOOD" >"$T/tabs_inconsistent.cake"  # depth hangs on the tab width: Python's TabError
head -c 200 /dev/urandom >"$T/random.cake"
printf '@cake.schedule(target="sm_90a")\ndef k(lm, K: LM.i32):\n    lm.assume(K > 0\n' >"$T/unbalanced.cake"
printf '@cake.schedule(target="sm_90a")\ndef k(lm, K: LM.i32):\n    lm.assume(K > 0))\n' >"$T/extra_paren.cake"
mk() {  # mk NAME BODY: a one-schedule file around BODY (4-space indented lines)
  { printf '@cake.schedule(target="sm_90a")\ndef k(lm, K: LM.i32):\n'; printf '%s\n' "$2"; } >"$T/$1.cake"
}
mk unknown_op '    lm.frobnicate(1)'
mk wrong_arity '    b = lm.barrier()'
mk bad_kwarg '    s = lm.smem(1024, colour=3)'
mk huge_const '    s = lm.smem(99999999999999999999999999)'
mk overflow_shape '    s = lm.smem(1024)
    v = s.view(offset=0, shape=(9223372036854775807, 9223372036854775807), dtype=lm.f32)'
mk overflow_assume '    lm.assume(K > 99999999999999999999999)'
mk assume_i64_edge '    lm.assume(K > 9223372036854775807)'
mk contradictory_assume '    lm.assume(K > 10)
    lm.assume(K < 5)
    r = lm.role(warps=[0])
    with r:
        for i in lm.range(0, K):
            lm.fence()'
mk zero_view '    s = lm.smem(1024)
    v = s.view(offset=0, shape=(0, 64), dtype=lm.bf16)'
mk negative_view '    s = lm.smem(1024)
    v = s.view(offset=0, shape=(-4, 64), dtype=lm.bf16)'
mk negative_smem '    s = lm.smem(-1024)'
mk deep_parens "    lm.assume(K > $(printf '(%.0s' $(seq 1 5000))1$(printf ')%.0s' $(seq 1 5000)))"
mk deep_unary "    lm.assume(K > $(printf -- '-%.0s' $(seq 1 20000))1)"

for f in dir $UNREADABLE binary random unbalanced extra_paren unknown_op wrong_arity bad_kwarg huge_const \
         overflow_shape overflow_assume assume_i64_edge contradictory_assume zero_view negative_view negative_smem \
         deep_parens deep_unary; do
  p="$T/$f.cake"
  run_case "check:$f" nz check "$p"
  run_case "check-json:$f" nz check --format json "$p"
  run_case "check-jsonl:$f" nz check --format jsonl "$p"
  run_case "check-sarif:$f" nz check --format sarif "$p"
  case $f in  # fmt only parses: a file that parses is formatted (exit 0)
    dir|unreadable|binary|random|unbalanced|extra_paren) run_case "fmt:$f" nz fmt "$p";;
  esac
  run_case "lower:$f" nz lower "$p"
  run_case "run-json:$f" nz run --format json --shape M=128,N=128,K=128 "$p"
  run_case "cost-json:$f" nz cost --format json --shape M=128,N=128,K=128 "$p"
done
run_case "check:empty" 2 check "$T/empty.cake"
run_case "check-json:empty" 2 check --format json "$T/empty.cake"
run_case "fmt:empty" 0 fmt "$T/empty.cake"
run_case "check:missing" 2 check "$T/no-such-file.cake"
run_case "check-json:missing" 2 check --format json "$T/no-such-file.cake"
run_case "check:crlf" 0 check --no-model-check "$T/crlf.cake"
run_case "check:tabs" 0 check --no-model-check "$T/tabs.cake"
run_case "check:tabs-inconsistent" nz check "$T/tabs_inconsistent.cake"

# ---- random truncations of corpus files --------------------------------
mapfile -t FILES < <(find corpus -name '*.cake' | sort)
RANDOM=${BAD_INPUT_SEED:-7}
for ((i = 0; i < CUTS; i++)); do
  f=${FILES[$((RANDOM % ${#FILES[@]}))]}
  size=$(stat -c %s "$f")
  cut=$(( (RANDOM * 32768 + RANDOM) % size ))
  head -c "$cut" "$f" >"$T/cut.cake"
  # a cut can leave a valid (shorter) file: any of 0/1/2, but never a crash or a hang
  timeout -k 5 "$LIMIT" "$CAKE" check --format json --timeout 10 "$T/cut.cake" >"$T/out" 2>"$T/err"
  rc=$?
  if [ $rc -ge 124 ]; then failed "cut:$f@$cut" "exit $rc"; continue; fi
  if ! valid_json "$T/out" json >/dev/null 2>&1; then failed "cut:$f@$cut" "invalid JSON"; continue; fi
  pass=$((pass + 1))
done

# ---- arguments ----------------------------------------------------------
run_case "no-subcommand" 2
run_case "unknown-subcommand" 2 frobnicate
run_case "check:no-file" 2 check
run_case "check:engine-foo" 2 check --engine foo "$GOOD"
run_case "check-json:engine-foo" 2 check --format json --engine foo "$GOOD"
run_case "check:format-foo" 2 check --format foo "$GOOD"
run_case "check:proof-timeout-neg" 2 check --proof-timeout -1 "$GOOD"
run_case "check:proof-timeout-nan" 2 check --proof-timeout nan "$GOOD"
run_case "check:proof-timeout-inf" 2 check --proof-timeout inf "$GOOD"
run_case "check:bounded-timeout-nan" 2 check --bounded-timeout nan "$GOOD"
run_case "check:z3-work-nan" 2 check --z3-work nan "$GOOD"
run_case "check:timeout-0" 2 check --timeout 0 "$GOOD"
run_case "check:timeout-frac" 2 check --timeout 0.001 "$GOOD"
run_case "check:timeout-neg" 2 check --timeout -5 "$GOOD"
run_case "check:timeout-huge" 2 check --timeout 99999999999999999999 "$GOOD"
run_case "check:memory-0" 2 check --memory 0 "$GOOD"
run_case "check:target-foo" 2 check --target sm_75 "$GOOD"
run_case "check-json:target-foo" 2 check --format json --target sm_75 "$GOOD"
run_case "check:unknown-flag" 2 check --frobnicate "$GOOD"
run_case "check-json:unknown-flag" 2 check --format json --frobnicate "$GOOD"
run_case "check:flag-value" 2 check --no-layout=maybe "$GOOD"
run_case "check:missing-value" 2 check "$GOOD" --proof-timeout
run_case "check:trace-svg-dir" 2 check --trace-svg "$T/emptydir" "$GOOD"
run_case "check:set-bad" 2 check --shape M=1,N=1,K=1 "$GOOD" --set BM
run_case "check:shape-bad" 2 check --shape M=x "$GOOD"
run_case "check:memory-limit-neg" 2 --memory-limit -1 check "$GOOD"
run_case "check:proof-timeout-0" 0 check --proof-timeout 0 --no-model-check "$GOOD"
run_case "fmt:no-file" 2 fmt
run_case "fmt:missing" 2 fmt "$T/no-such-file.cake"
run_case "explain:unknown" 2 explain no.such-rule
run_case "explain:none" 2 explain
run_case "lower:no-file" 2 lower
run_case "lower:bad-set" 2 lower "$GOOD" --set BM
run_case "lower:set-overflow" 2 lower "$GOOD" --set BM=99999999999999999999
run_case "lower:schedule-missing" 2 lower --schedule nope "$GOOD"
run_case "lower:out-dir" 2 lower -o "$T/emptydir" "$GOOD"
run_case "lower:check-timeout-0" 2 lower --check-timeout 0 "$GOOD"
run_case "run:no-shape" 2 run "$GOOD"
run_case "run-json:no-gpu" 2 run --format json --shape M=256,N=256,K=256 "$GOOD"
run_case "run:no-gpu" 2 run --shape M=256,N=256,K=256 "$GOOD"
run_case "run-json:shape-bad" 2 run --format json --shape M=-1,N=0,K=x "$GOOD"
run_case "run-json:shape-overflow" 2 run --format json --shape M=99999999999999999999,N=1,K=1 "$GOOD"
run_case "run-json:workload-foo" 2 run --format json --workload foo --shape M=1 "$GOOD"
run_case "run-json:bad-set" 2 run --format json --shape M=256,N=256,K=256 "$GOOD" --set BM
run_case "run-json:runs-0" 2 run --format json --runs 0 --shape M=256,N=256,K=256 "$GOOD"
run_case "run-json:timeout-nan" 2 run --format json --timeout nan --shape M=256,N=256,K=256 "$GOOD"
run_case "run-json:split-k-0" 2 run --format json --split-k 0 --shape M=256,N=256,K=256 "$GOOD"
run_case "run-json:missing" 2 run --format json --shape M=256,N=256,K=256 "$T/no-such-file.cake"
run_case "cost:no-shape" 2 cost "$GOOD"
run_case "cost-json:shape-bad" 2 cost --format json --shape M=x "$GOOD"
run_case "cost-json:missing" 2 cost --format json --shape M=1,N=1,K=1 "$T/no-such-file.cake"
run_case "corpus:empty-dir" 2 corpus --no-progress "$T/emptydir"
run_case "corpus:missing" 2 corpus --no-progress "$T/no-such-dir"
run_case "corpus:jobs-0" 2 corpus --no-progress -j 0 "$GOOD"
run_case "mutate:jobs-neg" 2 mutate -j -3 "$GOOD"
run_case "mutate:not-known-good" 2 mutate corpus/bugs/tmem.reader/sm100_tmem_quarter_off_by_one_warp.cake
run_case "corpus:shard-bad" 2 corpus --no-progress --shard 5/4 "$GOOD"
run_case "corpus:shard-garbage" 2 corpus --no-progress --shard x "$GOOD"
run_case "corpus:baseline-missing" 2 corpus --no-progress --baseline "$T/no-such.json" "$GOOD"
run_case "corpus:baseline-garbage" 2 corpus --no-progress --baseline "$T/binary.cake" "$GOOD"
# a --resume file's lines that do not parse are skipped with a warning (an interrupted run's last line)
run_case "corpus:resume-garbage" 0 corpus --no-progress --resume "$T/binary.cake" "$GOOD"
# records that do not parse are skipped with a warning; a merge left with none fails the gate (exit 1)
run_case "corpus:merge-garbage" 1 corpus merge "$T/binary.cake"
run_case "corpus:merge-missing" 2 corpus merge "$T/no-such.jsonl"
run_case "corpus:merge-empty" 1 corpus merge "$T/empty.cake"
run_case "mutate:missing" 2 mutate "$T/no-such-file.cake"
run_case "mutate:empty-dir" 2 mutate "$T/emptydir"
run_case "tune:missing" 2 tune "$T/no-such-file.cake"
# outputs that cannot be written (a path below a regular file: fails as root too)
run_case "check:graph-dot-unwritable" 2 check --graph-dot "$T/empty.cake/x.dot" "$GOOD"
run_case "lower:out-unwritable" 2 lower -o "$T/empty.cake/x.cu" "$GOOD"
run_case "corpus:json-unwritable" 2 corpus --no-progress --json "$T/empty.cake/x.json" "$GOOD"
run_case "corpus:jsonl-unwritable" 2 corpus --no-progress --jsonl "$T/empty.cake/x.jsonl" "$GOOD"
run_case "corpus:baseline-unwritable" 2 corpus --no-progress --write-baseline "$T/empty.cake/b.json" "$GOOD"
run_case "mutate:out-unwritable" 2 mutate -n 1 -o "$T/empty.cake/dir" "$GOOD"

echo "bad input: $pass passed, $fail failed"
[ $fail -eq 0 ]
