#!/usr/bin/env bash
# GEMM shape suite (issue 13): 24 LLM shapes, C[M,N] = A[M,K] . B[N,K]^T in
# bf16, each kernel library against cuBLAS in the same harness run (interleaved,
# L2 flushed). M in {1,8,16,32,64,128} (decode) and {4096,16384} (prefill),
# N x K in {4096x4096, 14336x4096, 4096x14336} (Llama-3-8B attention out /
# MLP up / MLP down). Prints each ratio (cuBLAS ms / kernel ms; > 1 is faster
# than cuBLAS), the geometric mean per kernel and of the best kernel per shape
# (choosing among verified schedules per shape is what a tuner does).
# Usage: bash bench/gpu/shape_suite.sh HARNESS "DECODE.so..." "PREFILL.so..."
# (the first list runs at M <= 128, the second at M >= 4096; RUNS=20, OUT=dir)
set -u
H=$1; DEC=$2; PRE=$3
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
J="$OUT/suite.jsonl"
for m in 1 8 16 32 64 128 4096 16384; do
  for nk in "4096 4096" "14336 4096" "4096 14336"; do
    set -- $nk; n=$1; k=$2
    if [ $m -le 128 ]; then ks=$DEC; else ks=$PRE; fi
    for so in $ks; do
      timeout -s KILL 120 "$H" --kernel "$so" --m $m --n $n --k $k --runs ${RUNS:-20} 2>/dev/null | tail -1 >> "$J"
    done
  done
done
python3 - "$J" <<'PY'
import json, math, sys, collections
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
by = collections.OrderedDict()
for r in rows:
    by.setdefault((r.get("M"), r.get("N"), r.get("K")), {})[r.get("kernel", r.get("kernel_lib"))] = r
names = sorted({k for d in by.values() for k in d})
print("%-20s" % "M x N x K" + "".join("%14s" % n[-14:] for n in names) + "%10s" % "cuBLAS ms")
logs = collections.defaultdict(list); best = []
for shp, d in by.items():
    line = "%-20s" % ("%dx%dx%d" % shp); rs = []
    for n in names:
        r = d.get(n)
        ok = r is not None and r.get("result") == "ok" and r.get("ratio")
        line += "%14s" % ("%.3f" % r["ratio"] if ok else (r or {}).get("result", "-"))
        if ok: logs[n].append(math.log(r["ratio"])); rs.append(r["ratio"])
    base = [r.get("baseline_ms") for r in d.values() if r.get("baseline_ms")]
    line += "%10.4f" % base[0] if base else ""
    print(line)
    if rs: best.append(math.log(max(rs)))
print("%-20s" % "geomean" + "".join("%14s" % ("%.3f (%d)" % (math.exp(sum(logs[n]) / len(logs[n])), len(logs[n])) if logs[n] else "-") for n in names))
if best: print("geomean of the best kernel per shape: %.3f over %d shapes" % (math.exp(sum(best) / len(best)), len(best)))
PY
