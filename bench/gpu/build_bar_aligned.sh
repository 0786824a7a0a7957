#!/usr/bin/env bash
# Here (not on the device): the kernel libraries of bench/gpu/device_bar_aligned.sh.
# Is the lowering's aligned `bar.sync` / `bar.arrive` on named barriers, reached
# from different role branches (a warp-specialized schedule's producer and
# consumer call them at different program points), what compute-sanitizer's
# synccheck accepts, and does the non-aligned `barrier.sync` / `barrier.arrive`
# (PTX ISA: `.aligned` means every thread of the CTA executes the same barrier
# instruction) cost time? Three schedules with named barriers across roles or
# instances, each lowered as today (X.cu) and with the two asm strings
# replaced (X_na.cu). Carry: .devcarry/bar.
set -eu
D=.devcarry/bar
mkdir -p $D
. bench/gpu/device_env.sh $D >/dev/null
build/runner/cake-runner --cake corpus/gemm/sm80_ws_named_barriers.cake --target sm_80 --emit $D/nb.cu
build/runner/cake-runner --cake bench/gpu/schedules/sm90_pingpong_128x192_r240.cake --emit $D/pp.cu
build/runner/cake-runner --cake corpus/gemm/sm90_ws_shared_epilogue.cake --emit $D/se.cu
for f in nb pp se; do
  sed -e 's/"bar.sync %0, %1;"/"barrier.sync %0, %1;"/; s/"bar.arrive %0, %1;"/"barrier.arrive %0, %1;"/' \
    $D/$f.cu > $D/${f}_na.cu
  grep -q '"barrier.sync %0, %1;"' $D/${f}_na.cu
  grep -q '"barrier.arrive %0, %1;"' $D/${f}_na.cu
done
[ -x "$D/cake_harness" ] || $NVCC -std=c++17 -O3 -cudart shared $SM90A -Irunner/harness -Iabi \
  runner/harness/cake_harness.cu -o "$D/cake_harness" -lcublas -lcupti -ldl
for f in nb nb_na pp pp_na se se_na; do lowered_so $D/$f.cu $D/$f.so; done
# (the harness needs no libz3/libfmt: no lib/ in this carry)
ls -la $D
