# RESPELLING of corpus/bugs/sync.deadlock/fbgemm_mx4_quantize_early_return_before_syncthreads.cake
# (pytorch/FBGEMM PR #5857): the early return as `if not (tid >= total)`
# around the body, the group id spelled lm.instance() + 4 * block, the
# element offsets with a named group_size, the quantize as a converting
# copy straight from the scaled fragment, the two packing barriers as a
# two-trip loop (write, sync, read back and OR).
# expect: sync.deadlock
@cake.schedule(target="sm_80")
def quantize_float_to_mx4(lm, x: LM.gmem, y: LM.gmem, total: LM.i32):
    lm.assume(total % 32 == 0 and total >= 0)
    smem = lm.smem(256)
    srow = smem.view(offset=0, shape=(1, 16), dtype=lm.i8, stage=4)
    hi   = lm.regs(shape=(1, 16), dtype=lm.f32)
    lo   = lm.regs(shape=(1, 16), dtype=lm.f32)
    pk   = lm.regs(shape=(1, 16), dtype=lm.i8)
    tmp  = lm.regs(shape=(1, 16), dtype=lm.i8)
    group_warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block_bar = lm.named_barrier(roles=[group_warps])
    group_size = 32
    with group_warps:
        gid = lm.instance() + 4 * lm.block_idx(0)
        tid = group_size * gid
        if not (tid >= total):
            lm.copy(hi, x, coords=(0, tid))
            lm.copy(lo, x, coords=(0, tid + group_size // 2))
            lm.binary(lo, lo, 0.25, op="mul")
            lm.binary(hi, hi, 0.25, op="mul")
            lm.copy(pk, hi)
            for step in lm.range(0, 2):
                if step == 0:
                    lm.copy(srow[lm.instance()], pk)
                else:
                    lm.copy(tmp, lo)
                    lm.binary(pk, pk, tmp, op="add")
                    lm.copy(srow[lm.instance()], pk)
                lm.sync(block_bar)                                # expect-error: sync.deadlock
                lm.copy(pk, srow[lm.instance()])
            lm.copy(y, pk, coords=(0, 17 * gid))
