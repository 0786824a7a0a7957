#!/usr/bin/env bash
# Device call 2 of issue 13, session 22 (helper sm80): run_s22.sh on make_variants2.sh's kernels (the timing
# passes, the wave shapes, edge shapes, SASS, a profile), then `cake run` end to end with this branch's cake
# (check, bind, lower, nvcc on the device, harness, oracle) of fragsp13 at 4096^3, RUNS_CR runs, CR times, and of
# corpus/attention/sm80_flash_attn2_fwd (correctness of another kernel the 16-byte store path changes).
# Carry $D: run_s22.sh's files plus cake.tar.xz (bin/cake stripped, lib/libz3.so.4, lib/libfmt.so.9).
#   D=.devcarry/sm80s22b LIMIT=... CR=2 bash .devcarry/sm80s22b/run_s22b.sh 2>&1 | tee $OUT/run.log
set -u
D=${D:-.devcarry/sm80s22b}
bash $D/run_s22.sh
# (with no cake.tar.xz in the carry, as in session 22's call 2 -- the carry and /work/main's tree passed 64 MiB
# with it -- only run_s22.sh runs)
[ -f $D/cake.tar.xz ] || exit 0
tar xJf $D/cake.tar.xz -C $D
export LD_LIBRARY_PATH=$D/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for i in $(seq 1 ${CR:-2}); do
  echo "== cake run fragsp13 4096^3 ($i)"
  t0=$SECONDS
  timeout 150 $D/bin/cake run bench/gpu/schedules/sm80/frag/fragsp13_128x128_k64_s3.cake --shape M=4096,N=4096,K=4096 \
    --format json --runs ${RUNS_CR:-50} --seed $i > "$OUT/cr$i.json" 2> "$OUT/cr$i.err"
  echo "rc=$? ($((SECONDS - t0)) s)"
  python3 -c "
import json; d=json.load(open('$OUT/cr$i.json'))
def find(x, k):
    if isinstance(x, dict):
        for a, b in x.items():
            if a == k: yield b
            yield from find(b, k)
    elif isinstance(x, list):
        for b in x: yield from find(b, k)
for k in ('verdict', 'result', 'correct', 'ratio', 'median_ms', 'baseline_ms', 'rel_error'):
    print(k, list(find(d, k))[:3])" 2>&1 | tail -8
  tail -3 "$OUT/cr$i.err"
done
# another sm_80 kernel whose store takes the 16-byte path (attention output O, batched: cake_d_base), oracle-checked
echo "== cake run sm80_flash_attn2_fwd S=2048,D=64,B=2,H=8"
timeout 120 $D/bin/cake run corpus/attention/sm80_flash_attn2_fwd.cake --workload attention-fwd --shape S=2048,D=64,B=2,H=8 \
  --format json --runs 10 --seed 5 > "$OUT/fa2.json" 2> "$OUT/fa2.err"
echo "rc=$?"; tail -c 1200 "$OUT/fa2.json"; echo; tail -3 "$OUT/fa2.err"
(cd "$OUT" && tar czf cakerun.tgz cr*.json cr*.err fa2.json fa2.err 2>/dev/null && rm -f cr*.json cr*.err fa2.json fa2.err)
