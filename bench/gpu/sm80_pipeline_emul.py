#!/usr/bin/env python3
"""Emulation (issue 13, helper sm80, session 12): what CUTLASS's sm80 multistage mainloop would give
the lowered bench/gpu/schedules/sm80/sm80_128x128_k64_s3 kernel, measured before any IR construct
is built for it. Rewrites the k-block loop of the lowered .cu (cake lower ... -o X.cu) by hand:

  pipe    fragments double-buffered in registers across k-steps AND across the k-block boundary:
          cp.async.wait + __syncthreads after the MMAs of k-step 2 (of 4), then the fragments of the
          NEXT k-block's k-step 0 are loaded (its slot has landed) before the MMAs of k-step 3; the
          refill copies of the slot read one k-block earlier (every warp's reads of it precede the
          previous sync) are issued during k-steps 0 (A) and 1 (B); the slot index rotates (no k % 3);
          the accumulator is zeroed once before the loop. The copies are the lowered blocks as they are.
  pipe_hc as pipe, and the copies' per-thread global pointer, shared offset and row-interior test
          computed once before the loop (the guarded lowered block stays for edge tiles).

The order of reads and copies is the one CUTLASS's MmaMultistage uses (not what cake's model checker
verified for the schedule): this file measures, it is not a lowering. Usage:
  sm80_pipeline_emul.py IN.cu OUT.cu VARIANT
"""
import re
import sys


def block_end(lines, i):
    """Index of the line that closes the brace opened on line i."""
    depth = 0
    for j in range(i, len(lines)):
        depth += lines[j].count('{') - lines[j].count('}')
        if depth == 0 and j > i - 1 and '{' in ''.join(lines[i:j + 1]):
            return j
    raise SystemExit('no matching brace')


def main():
    src, dst, variant = sys.argv[1:4]
    lines = open(src).read().split('\n')
    k0 = next(i for i, l in enumerate(lines) if re.match(r'\s*for \(int k = 0; k < \(\(K \+ 64 - 1\) / 64\); \+\+k\) \{', l))
    k1 = block_end(lines, k0)
    body = lines[k0:k1 + 1]
    r0 = next(i for i, l in enumerate(body) if 'if (((k + 2) <' in l)
    r1 = block_end(body, r0)
    refill = body[r0 + 1:r1]
    rb = next(i for i, l in enumerate(refill) if 'smem_b.cp_async' in l)
    copy_a = '\n'.join(refill[:rb]).replace('(k + 2)', 'cake_kn')
    copy_b = '\n'.join(refill[rb:]).replace('(k + 2)', 'cake_kn')
    # the slot address: rotate instead of cake_slot<3>(kn)
    copy_a = copy_a.replace('(smem_a + 16384 * (cake_slot<3>(cake_kn)))', '(smem_a + cake_wslot)')
    copy_b = copy_b.replace('(smem_b + 16384 * (cake_slot<3>(cake_kn)))', '(smem_b + cake_wslot)')
    if variant == 'pipe_hc':
        def hoisted(x, X, rowvar):
            return f'''        {{
          const long long cake_c0 = cake_kn * 64;
          if (cake_rows_in_{x} && cake_c0 + 64 <= cake_ext_{X}.d[1]) {{
            const auto cake_p = cake_p_{x} + cake_c0;
            #pragma unroll
            for (int cake_i = 0; cake_i < 8; ++cake_i)
              cake_cp_async<16>(smem_{x} + cake_wslot + cake_d_{x} + cake_i * 2048u, cake_p + cake_i * cake_pass_{x}, 16);
          }} else
''' + copy_body(x) + '\n        }'

        def copy_body(x):
            txt = copy_a if x == 'a' else copy_b
            return txt
        copy_a_h = hoisted('a', 'A', 'bx')
        copy_b_h = hoisted('b', 'B', 'by')
        copy_a, copy_b = copy_a_h, copy_b_h
    ld = '''
#define CAKE_LDA(buf, slot, ks) \\
  _Pragma("unroll") for (int i = 0; i < 4; ++i) \\
    cake_ldmatrix_x4(cake_af[buf][i], smem_a + (slot) + (cake_ar + static_cast<uint32_t>(16 * i) * 128u + ((static_cast<uint32_t>((2 * (ks) + cake_lane / 16) * 16) % 128u) ^ cake_asw)));
#define CAKE_LDB(buf, slot, ks) \\
  _Pragma("unroll") for (int j = 0; j < 4; ++j) \\
    cake_ldmatrix_x4(cake_bf[buf][j], smem_b + (slot) + (cake_br + static_cast<uint32_t>(16 * j) * 128u + ((static_cast<uint32_t>((2 * (ks) + (cake_lane / 8) % 2) * 16) % 128u) ^ cake_bsw)));
'''
    pre = []
    if variant == 'pipe_hc':
        for x, X, b in (('a', 'A', 'bx'), ('b', 'B', 'by')):
            pre.append(f'''    const int cake_rt_{x} = cake_inst_thread / 8, cake_ct_{x} = (cake_inst_thread % 8) * 8;
    const bool cake_rows_in_{x} = (cake_{b} * 128) + 128 <= cake_ext_{X}.d[0];
    const auto cake_p_{x} = {X} + (static_cast<long long>(cake_{b}) * 128 + cake_rt_{x}) * cake_ext_{X}.s[0] + cake_ct_{x};
    const long long cake_pass_{x} = 16LL * cake_ext_{X}.s[0];
    const uint32_t cake_d_{x} = cake_swz<128>(static_cast<uint32_t>(cake_rt_{x} * 128 + cake_ct_{x} * 2));''')
    new = f'''    // ---- emulated CUTLASS multistage mainloop ({variant}; bench/gpu/sm80_pipeline_emul.py) ----
{chr(10).join(pre)}
    const int cake_kt = (K + 64 - 1) / 64;
    const int cake_wwarp2 = cake_wwarp;
    const int cake_wrow = (cake_wwarp2 / 2) * 64, cake_wcol = (cake_wwarp2 % 2) * 64;
    const uint32_t cake_ar = static_cast<uint32_t>(cake_wrow + cake_lane % 16) * 128u, cake_asw = ((cake_ar >> 3) & 112u);
    const uint32_t cake_br = static_cast<uint32_t>(cake_wcol + cake_lane % 8 + (cake_lane / 16) * 8) * 128u, cake_bsw = ((cake_br >> 3) & 112u);
    uint32_t cake_af[2][4][4], cake_bf[2][4][4];
    #pragma unroll
    for (int i = 0; i < 8; ++i)
    #pragma unroll
      for (int j = 0; j < 16; ++j) acc[i][j] = 0.f;
    uint32_t cake_rslot = 0, cake_wslot = 2 * 16384u;
    cake_cp_async_wait<1>();
    __syncthreads();
    CAKE_LDA(0, cake_rslot, 0)
    CAKE_LDB(0, cake_rslot, 0)
    for (int k = 0; k < cake_kt; ++k) {{
      const int cake_kn = k + 2;
      const uint32_t cake_nslot = cake_rslot == 2 * 16384u ? 0u : cake_rslot + 16384u;
      #pragma unroll
      for (int cake_k = 0; cake_k < 4; ++cake_k) {{
        if (cake_k < 3) {{
          CAKE_LDA((cake_k + 1) % 2, cake_rslot, cake_k + 1)
          CAKE_LDB((cake_k + 1) % 2, cake_rslot, cake_k + 1)
        }} else {{
          CAKE_LDA(0, cake_nslot, 0)
          CAKE_LDB(0, cake_nslot, 0)
        }}
        if (cake_k == 0 && cake_kn < cake_kt) {{
{copy_a}
        }}
        if (cake_k == 1 && cake_kn < cake_kt) {{
{copy_b}
        }}
        #pragma unroll
        for (int i = 0; i < 4; ++i)
        #pragma unroll
          for (int j = 0; j < 8; ++j)
            cake_mma_16816_bf16(acc[2 * i][2 * j], acc[2 * i][2 * j + 1], acc[2 * i + 1][2 * j], acc[2 * i + 1][2 * j + 1], cake_af[cake_k % 2][i], cake_bf[cake_k % 2][j / 2][(j % 2) * 2], cake_bf[cake_k % 2][j / 2][(j % 2) * 2 + 1]);
        if (cake_k == 2) {{
          cake_cp_async_commit();
          cake_cp_async_wait<1>();
          __syncthreads();
        }}
      }}
      cake_rslot = cake_nslot;
      cake_wslot = cake_wslot == 2 * 16384u ? 0u : cake_wslot + 16384u;
    }}'''
    out = lines[:k0] + [new] + lines[k1 + 1:]
    text = '\n'.join(out)
    # the macros before the kernel
    kpos = text.index('__global__ void')
    text = text[:kpos] + ld + '\n' + text[kpos:]
    open(dst, 'w').write(text)


if __name__ == '__main__':
    main()
