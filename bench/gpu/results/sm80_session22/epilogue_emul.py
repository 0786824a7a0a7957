#!/usr/bin/env python3
"""Emulation (helper sm80, issue 13, session 22): the interior tile's bf16 store through shared memory. Each warp
writes its 64x64 bf16 accumulator tile (st.shared of bf16 pairs, 128B-swizzled rows of 128 B) into its own 8 KiB
of the pool (free after the post-loop cp_async_wait(pending=0) and its sync), then stores it with 16-byte
st.global, 4 full 128-byte rows per warp instruction (16 per thread instead of 64 four-byte stores).
Usage: epilogue_emul.py IN.cu OUT.cu  (a 128x128 tile, warp grid 2x2, the lowering's interior store block)"""
import re, sys
t = open(sys.argv[1]).read()
pat = re.compile(r"(      if \(cake_inner\) \{\n)(.*?)(      \} else \{\n)", re.S)
m = pat.search(t)
assert m and "cake_stg_pair" in m.group(2)
body = """        {  // staged through this warp's 8 KiB of the pool (emulation)
          const uint32_t cake_ws = cake_pool_pool + static_cast<uint32_t>(cake_wwarp) * 8192u;
          #pragma unroll
          for (int cake_i = 0; cake_i < 8; ++cake_i) {
            const uint32_t cake_rr = 16 * (cake_i / 2) + 8 * (cake_i % 2) + cake_lane / 4;  // row in the warp tile
            #pragma unroll
            for (int cake_jj = 0; cake_jj < 16; cake_jj += 2) {
              uint32_t cake_v = 0;
              memcpy(reinterpret_cast<char*>(&cake_v), &out[cake_i][cake_jj], 2);
              memcpy(reinterpret_cast<char*>(&cake_v) + 2, &out[cake_i][cake_jj + 1], 2);
              const uint32_t cake_o = cake_rr * 128u + ((static_cast<uint32_t>(cake_jj / 2) ^ (cake_rr % 8u)) * 16u) + 4u * (cake_lane % 4);
              asm volatile("st.shared.b32 [%0], %1;" ::"r"(cake_ws + cake_o), "r"(cake_v) : "memory");
            }
          }
          __syncwarp();
          const long long cake_wr0 = cake_d_r0 + (cake_wwarp / 2) * 64, cake_wc0 = cake_d_c0 + (cake_wwarp % 2) * 64;
          #pragma unroll
          for (int cake_q = 0; cake_q < 16; ++cake_q) {
            const uint32_t cake_rr = static_cast<uint32_t>(cake_lane / 8 + 4 * cake_q), cake_ch = static_cast<uint32_t>(cake_lane % 8);
            uint4 cake_v;
            asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(cake_v.x), "=r"(cake_v.y), "=r"(cake_v.z), "=r"(cake_v.w)
                         : "r"(cake_ws + cake_rr * 128u + ((cake_ch ^ (cake_rr % 8u)) * 16u)) : "memory");
            *reinterpret_cast<uint4*>(C + cake_d_base + (cake_wr0 + cake_rr) * cake_ext_C.s[0] + cake_wc0 + cake_ch * 8) = cake_v;
          }
        }
"""
# 16-byte stores need 16-byte aligned rows: C's row stride a multiple of 8 elements and C 16-byte aligned
t = t[:m.start()] + m.group(1).replace("if (cake_inner) {", "if (cake_inner && cake_ext_C.s[0] % 8 == 0 && reinterpret_cast<uintptr_t>(C) % 16 == 0) {") + body + m.group(3) + t[m.end():]
open(sys.argv[2], "w").write(t)
