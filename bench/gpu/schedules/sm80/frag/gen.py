#!/usr/bin/env python3
"""sm_80 GEMM schedules whose mma operands are register fragments (issue 13, helper sm80, session 13).

CUTLASS MmaMultistage's order: the fragments of k-step s+1 are loaded (lm.copy slot -> fragment,
lowered as ldmatrix.x4) before the MMAs of k-step s, in two fragment pairs that alternate; the last
k-step's fragments are read before the k-block's cp_async_wait (and the instance sync the lowering puts
after it), the next k-block's first fragments right after it, under the last k-step's MMAs.

Variants:
  frag_<bm>x<bn>_k<bk>_s<S>       refill after the wait: cp_async_wait(pending=S-3), one sync per k-block
  fragpre_<bm>x<bn>_k<bk>_s<S>    refill at the top of the k-block (before the MMAs), wait(pending=S-2):
                                   one more k-block in flight; the lowering's sync planner adds a bar.sync
                                   before the refill (it cannot tell the prefetched slot from the refilled)
Usage: gen.py OUTDIR
"""
import sys, os

def gen(bm, bn, bk, S, pre, spread=None, warps=4):
    """spread=(a, b): refill A after the MMAs of k-step a and B after those of k-step b (-1: at the top of
    the k-block), one commit after both (CUTLASS spreads its copies over the k-steps); implies pre's wait.
    warps: the mainloop role's warps (4: 64x64 warp tiles of 128x128; 8 with 128x256, suffix _w8, session 17)."""
    ks = bk // 16
    assert ks % 2 == 0, "k-steps per k-block must be even (two fragment pairs alternate)"
    name = f"{'fragpre' if pre else 'frag'}_{bm}x{bn}_k{bk}_s{S}"
    if spread:
        pre = True
        name = f"fragsp{spread[0] + 1}{spread[1] + 1}_{bm}x{bn}_k{bk}_s{S}"
    if warps != 4:
        name += f"_w{warps}"
    a_bytes = bm * bk * 2
    b_bytes = bn * bk * 2
    smem = S * (a_bytes + b_bytes)
    sw = "128B" if bk * 2 >= 128 else ("64B" if bk * 2 == 64 else "32B")
    L = []
    L.append(f"# sm_80 GEMM {bm}x{bn}x{bk}, {S} stages, mma operands from register fragments")
    L.append("# (bench/gpu/schedules/sm80/frag/gen.py; docs/gpu.md \"sm_80: mma operands from register fragments\").")
    L.append("# expect: pass")
    L.append('@cake.schedule(target="sm_80")')
    L.append(f"def {name}(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem, M: LM.i32, N: LM.i32, K: LM.i32):")
    I = "    "
    L.append(I + "lm.assume(K > 0)")
    L.append(I + f"pool   = lm.smem({smem})")
    L.append(I + f'smem_a = pool.view(offset=0, shape=({bm}, {bk}), dtype=lm.bf16, stages={S}, swizzle="{sw}")')
    L.append(I + f'smem_b = pool.view(offset={S * a_bytes}, shape=({bn}, {bk}), dtype=lm.bf16, stages={S}, swizzle="{sw}")')
    L.append(I + f"acc    = lm.regs(shape=({bm}, {bn}), dtype=lm.f32)")
    for f, r in (("fa0", bm), ("fa1", bm), ("fb0", bn), ("fb1", bn)):
        L.append(I + f"{f}    = lm.regs(shape=({r}, 16), dtype=lm.bf16)")
    L.append(I + f"out    = lm.regs(shape=({bm}, {bn}), dtype=lm.bf16)")
    L.append(I + f"mainloop = lm.role(warps=[{', '.join(str(w) for w in range(warps))}])")
    L.append(I + f"k_tiles = lm.cdiv(K, {bk})")
    L.append(I + f"m_blk = lm.block_idx(0) * {bm}")
    L.append(I + f"n_blk = lm.block_idx(1) * {bn}")
    L.append(I + "with mainloop:")
    J = I * 2
    L.append(J + f"for s in lm.range(0, {S - 1}):")
    L.append(J + I + "if s < k_tiles:")
    L.append(J + I * 2 + f"smem_a.cp_async(A, coords=(m_blk, s * {bk}), stage=s)")
    L.append(J + I * 2 + f"smem_b.cp_async(B, coords=(n_blk, s * {bk}), stage=s)")
    L.append(J + I + "lm.cp_async_commit()")
    L.append(J + f"lm.cp_async_wait(pending={S - 2})")
    L.append(J + "lm.copy(fa0, smem_a[0][:, 0:16])")
    L.append(J + "lm.copy(fb0, smem_b[0][:, 0:16])")
    L.append(J + "for k in lm.range(0, k_tiles):")
    B = J + I
    def refill():
        L.append(B + f"kn = k + {S - 1}")
        L.append(B + "if kn < k_tiles:")
        L.append(B + I + f"smem_a.cp_async(A, coords=(m_blk, kn * {bk}), iter=kn)")
        L.append(B + I + f"smem_b.cp_async(B, coords=(n_blk, kn * {bk}), iter=kn)")
        L.append(B + "lm.cp_async_commit()")
    def refill_one(view, tensor, blk, commit):
        L.append(B + f"if k + {S - 1} < k_tiles:")
        L.append(B + I + f"{view}.cp_async({tensor}, coords=({blk}, (k + {S - 1}) * {bk}), iter=k + {S - 1})")
        if commit:
            L.append(B + "lm.cp_async_commit()")
    def spread_at(step):
        for j, (view, tensor, blk) in enumerate((("smem_a", "A", "m_blk"), ("smem_b", "B", "n_blk"))):
            if spread[j] == step:
                refill_one(view, tensor, blk, step == max(spread) and (j == 1 or spread[0] != spread[1]))
    if spread:
        spread_at(-1)
    elif pre:
        refill()
    for s in range(ks):
        cur, nxt = s % 2, (s + 1) % 2
        if s + 1 < ks:
            L.append(B + f"lm.copy(fa{nxt}, smem_a[k][:, {16 * (s + 1)}:{16 * (s + 2)}])")
            L.append(B + f"lm.copy(fb{nxt}, smem_b[k][:, {16 * (s + 1)}:{16 * (s + 2)}])")
        else:
            L.append(B + f"lm.cp_async_wait(pending={S - 2 if pre else S - 3})")
            if not pre:
                refill()
            L.append(B + "if k + 1 < k_tiles:  # the next k-block's first fragments (none after the last)")
            L.append(B + I + f"lm.copy(fa{nxt}, smem_a[k + 1][:, 0:16])")
            L.append(B + I + f"lm.copy(fb{nxt}, smem_b[k + 1][:, 0:16])")
        L.append(B + f"lm.mma(acc, fa{cur}, fb{cur}{', init=(k == 0)' if s == 0 else ''})")
        if spread:
            spread_at(s)
    L.append(J + "lm.cp_async_wait(pending=0)")
    L.append(J + "lm.copy(out, acc)")
    L.append(J + "lm.copy(C, out, coords=(m_blk, n_blk))")
    return name, "\n".join(L) + "\n"

if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for (bm, bn, bk, S, pre, sp, *w) in [(128, 128, 64, 3, False, None), (128, 128, 64, 3, True, None),
                                     (128, 128, 32, 4, False, None), (128, 128, 32, 4, True, None),
                                     (128, 128, 64, 3, True, (-1, 0)), (128, 128, 64, 3, True, (0, 1)),
                                     (128, 128, 64, 3, True, (0, 2)),
                                     (128, 256, 64, 3, True, (0, 1), 8)]:
        name, text = gen(bm, bn, bk, S, pre, sp, *w)
        open(os.path.join(out, name + ".cake"), "w").write(text)
        print(name)
