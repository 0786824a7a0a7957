#!/usr/bin/env python3
"""Emulation (helper sm80, issue 13, session 22): stagger the two CTAs that share an SM. The first wave's CTAs
(linear block index < FIRST, 2 x #SMs for a plain grid; every CTA of a persistent grid) count their arrivals
per SM (%smid, one global atomic by thread 0); the second CTA to arrive on an SM sleeps DELAY ns before its
prologue, so the two CTAs' k-block barriers, waits and epilogues fall at different times afterwards.
Usage: stagger_emul.py IN.cu OUT.cu DELAY_NS FIRST  (FIRST = 0: every CTA)"""
import re, sys
src, dst, delay, first = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
t = open(src).read()
m = re.search(r"^__global__ void ", t, re.M)
t = t[:m.start()] + "__device__ unsigned cake_sm_arrivals[1024];\n" + t[m.start():]
old = "\n  __syncthreads();\n\n  if (cake_warp >= 0"
assert t.count(old) == 1, "kernel start not found"
cond = "true" if first == 0 else f"(blockIdx.x + 1ull * gridDim.x * blockIdx.y) < {first}ull"
new = f"""
  {{  // stagger emulation: the second CTA of an SM's first pair sleeps {delay} ns
    __shared__ unsigned cake_stg;
    if (threadIdx.x == 0) {{
      unsigned cake_smid;
      asm volatile("mov.u32 %0, %%smid;" : "=r"(cake_smid));
      cake_stg = ({cond}) ? (atomicAdd(&cake_sm_arrivals[cake_smid & 1023u], 1u) & 1u) : 0u;
    }}
    __syncthreads();
    if (cake_stg) __nanosleep({delay}u);
  }}
  __syncthreads();

  if (cake_warp >= 0"""
t = t.replace(old, new)
open(dst, "w").write(t)
