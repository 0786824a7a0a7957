#!/usr/bin/env bash
# One device call of helper `predload` (issue 13, docs/benchmarks.md "Branch-free guarded element
# reads"): the split-K reduce that reads W with plain global loads (`_rg` pairs), its guarded
# element reads lowered as before (`in ? W[i] : 0`, base_*.so) and as one predicated ld.global each
# (cake_ldg_or0, *.so), beside the same partial kernel. Correctness at tail shapes (untimed, against
# cuBLAS), then base and new alternated (ABBA rounds, RUNS interleaved runs each, L2 flushed) at the
# decode shapes where the reduce runs, then the reduce kernels' SASS counts. Built here (docs/benchmarks.md
# "Branch-free guarded element reads", Commands):
#   base: `cake lower FILE --schedule sm90_splitk_reduce_rgR_pdl` of the previous lowering (main at 4527d87),
#   new: this branch's lowering; both built with device_env.sh's lowered_so into $D
# then (run tool, carry [".devcarry/predload"]) `bash .devcarry/predload/predload_call.sh`.
# What comes back: predload_all.tgz (logs, SASS), base.jsonl, new.jsonl, edge.jsonl.
D=${D:-.devcarry/predload}
. $D/device_env.sh $D
H=$D/cake_harness
O=$OUT/p; mkdir -p $O
gpu_line | tee $O/gpu.txt
args() {  # S M N K: the pair's arguments (as `cake run --split-k S --dry-run` binds them)
  echo "--split $1 --m $2 --n $3 --k $4 --tensor A:$2,$4 --tensor B:$3,$4 --tensor W:$1,$2,$3 --i32 $2 --i32 $3 --i32 $4 --rtensor W:$1,$2,$3 --rtensor C:$2,$3 --ri32 $1"
}
# partial reduce: the pairs of docs/benchmarks.md "Wider reduce rows" (best per shape)
EDGE="bn64_s12_rg128:rg128 bn64_s12_rg256:rg256 bn128_s8_rg1024:rg1024 ar_bn64_s24_rg256:rg256"
# the partial library: base_NAME.so where the partial itself reads through the changed path (A from
# registers, `_ar_`), else the one library
part() { if [ -f $D/$1sm90_decode_splitk_$2_pdl.so ]; then echo $D/$1sm90_decode_splitk_$2_pdl.so; else echo $D/sm90_decode_splitk_$2_pdl.so; fi; }
for pr in $EDGE; do p=${pr%%:*}; r=${pr#*:}
  for v in base_ ""; do
    for sh in "5 200 264 1000" "3 1 8 8" "4 100 4104 1000" "3 7 1000 300" "2 129 4097 520" "2 1 4096 4096"; do
      timeout -s KILL 15 $H --kernel $(part "$v" $p) --reduce $D/${v}sm90_splitk_reduce_${r}_pdl.so $(args $sh) --no-time 2>/dev/null </dev/null | tail -1 |
        python3 -c "import json,sys; r=json.load(sys.stdin); r['variant']='${v:-new_}'.rstrip('_'); r['reduce']='$r'; r['partial']='$p'; print(json.dumps(r))" >> $O/edge.jsonl || echo "edge failed: $p $v $sh"
    done
  done
done
python3 -c "
import json; rs=[json.loads(l) for l in open('$O/edge.jsonl')]
print('edge runs', len(rs), 'ok', sum(r.get('result')=='ok' for r in rs))
for r in rs:
  if r.get('result')!='ok': print('NOT OK', r.get('variant'), r.get('reduce'), r['M'], r['N'], r['K'], r.get('split'), r.get('result'), r.get('error',''))"
# timing: shape S partial reduce
T="2 1 4096 4096 bn64_s12_rg128 rg128
2 8 4096 4096 bn64_s12_rg128 rg128
2 16 4096 4096 bn64_s12_rg256 rg256
2 128 4096 4096 bn128_s8_rg1024 rg1024
4 1 4096 14336 bn128_s8_rg256 rg256
4 8 4096 14336 bn128_s8_rg256 rg256
4 16 4096 14336 bn128_s8_rg256 rg256
2 128 4096 14336 bn128_s8_rg1024 rg1024
2 1 14336 4096 bn224_s4_rg256 rg256
2 1 4096 4096 ar_bn64_s24_rg256 rg256
2 16 4096 4096 ar_bn64_s24_rg256 rg256"
for round in 1 2 3 4; do
  [ $(( $(date +%s) - T0 )) -lt ${ROUND_BUDGET:-140} ] || { log "round $round skipped (time)"; break; }
  if [ $((round % 2)) = 1 ]; then order="base_ new_"; else order="new_ base_"; fi
  while read -r s m n k p r; do
    for v in $order; do
      vv=${v#new_}
      CAKE_TIMING_RECORDS=$O/records_${v%_}.jsonl timeout -s KILL 30 $H --kernel $(part "$vv" $p) \
        --reduce $D/${vv}sm90_splitk_reduce_${r}_pdl.so $(args $s $m $n $k) --runs ${RUNS:-30} 2>/dev/null </dev/null | tail -1 >> $O/${v%_}.jsonl
    done
  done <<< "$T"
  log "round $round done"
done
python3 - $O/base.jsonl $O/new.jsonl <<'PY'
import json, sys, collections, math
def load(f):
  d = collections.defaultdict(list)
  for l in open(f):
    try: r = json.loads(l)
    except Exception: continue
    if r.get('result') == 'ok' and r.get('ratio'): d[(r['M'], r['N'], r['K'], r['split'], r.get('kernel', '').replace('sm90_decode_splitk_', '').replace('sm90_splitk_reduce_', ''))].append(r)
  return d
b, n = load(sys.argv[1]), load(sys.argv[2])
print("%-50s %9s %9s %9s %9s %7s" % ("MxNxK S pair", "base_us", "new_us", "base_rt", "new_rt", "new/base"))
gb = gn = 0; c = 0
for k in sorted(b):
  if k not in n: continue
  bm = sorted(x['median_ms'] for x in b[k])[len(b[k]) // 2] * 1e3; nm = sorted(x['median_ms'] for x in n[k])[len(n[k]) // 2] * 1e3
  br = sorted(x['ratio'] for x in b[k])[len(b[k]) // 2]; nr = sorted(x['ratio'] for x in n[k])[len(n[k]) // 2]
  print("%-50s %9.2f %9.2f %9.3f %9.3f %7.3f" % ("%dx%dx%d S=%d %s" % k, bm, nm, br, nr, nm / bm))
  gb += math.log(br); gn += math.log(nr); c += 1
if c: print("geomean ratio over %d shapes: base %.3f new %.3f" % (c, math.exp(gb / c), math.exp(gn / c)))
PY
for v in base_ ""; do for r in rg128 rg256 rg1024; do f=$O/sass_${v}${r}.txt
  cuobjdump --dump-sass $D/${v}sm90_splitk_reduce_${r}_pdl.so > $f 2>/dev/null
  echo "sass ${v:-new_}$r: $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' $f) instr $(grep -c 'BRA' $f) BRA $(grep -c 'LDG' $f) LDG $(grep -c 'BSSY' $f) BSSY"
done; done | tee $O/sass_counts.txt
for f in records_base.jsonl records_new.jsonl; do [ -f $O/$f ] && gzip -f $O/$f; done
tar czf $OUT/predload_all.tgz -C $O . && for f in base.jsonl new.jsonl edge.jsonl; do [ -f $O/$f ] && mv $O/$f $OUT/; done && rm -rf $O
