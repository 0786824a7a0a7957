# FIXED form of hecbench_sosfilt_systolic_s_out_read_write_one_step.cake
# (ORNL/HeCBench issue #256): every section reads its input x_n (s_out[tx -
# 1], or x_in[n] for section 0), __syncthreads(), and only then writes its
# output s_out[tx] (and the last section x_in[n - 63], modelled as `Out`);
# the barrier at the end of the iteration orders the write before the next
# sample's read.
# lower: unsupported (a fragment sliced at single lanes: section 0's sample and the last section's output; the lowering slices whole column cycles of a warp)
# expect: pass
@cake.schedule(target="sm_80")
def hecbench_sosfilt_fixed(lm, X: LM.gmem, Out: LM.gmem, Sos: LM.gmem, Zi: LM.gmem, n_samples: LM.i32):
    lm.assume(n_samples >= 63)
    pool  = lm.smem(512)
    s_out = pool.view(offset=0,   shape=(1, 64), dtype=lm.f32)   # s_out[n_sections]
    sos   = pool.view(offset=256, shape=(1, 64), dtype=lm.f32)   # s_sos (one coefficient a section)
    xn  = lm.regs(shape=(1, 32), dtype=lm.f32)
    tmp = lm.regs(shape=(1, 32), dtype=lm.f32)
    zi0 = lm.regs(shape=(1, 32), dtype=lm.f32)
    zi1 = lm.regs(shape=(1, 32), dtype=lm.f32)

    sections = lm.role(warps=[0, 1], group=1)                   # n_sections = 64 threads
    block = lm.named_barrier(roles=[sections])

    with sections:
        w = lm.instance()
        sig = lm.block_idx(0)                                   # one signal per block
        lm.fill(tmp, 0.0)
        lm.copy(s_out[0][0:1, 32 * w:32 * w + 32], tmp)         # s_out[tx] = 0
        lm.copy(tmp, Sos, coords=(0, 32 * w))
        lm.copy(sos[0][0:1, 32 * w:32 * w + 32], tmp)
        lm.copy(zi0, Zi, coords=(2 * sig, 32 * w))
        lm.copy(zi1, Zi, coords=(2 * sig + 1, 32 * w))
        lm.sync(block)
        # loading phase: n < load_size = n_sections - 1
        for n in lm.range(0, 63):
            if w == 0:
                lm.copy(xn[0:1, 0:1], X, coords=(sig, n))             # tx == 0: x_in[n]
                lm.copy(xn[0:1, 1:32], s_out[0][0:1, 0:31])
            else:
                lm.copy(xn, s_out[0][0:1, 31:63])                  # x_n = s_out[tx - 1]
            lm.sync(block)                                    # the fix: every x_n read first
            lm.binary(tmp, xn, sos[0][0:1, 32 * w:32 * w + 32], op="mul")
            lm.binary(tmp, tmp, zi0, op="add")                    # temp = b0 * x_n + zi0
            lm.binary(zi0, xn, tmp, op="sub")                     # zi0, zi1 (registers, cuSignal)
            lm.binary(zi0, zi0, zi1, op="add")
            lm.binary(zi1, xn, tmp, op="mul")
            lm.copy(s_out[0][0:1, 32 * w:32 * w + 32], tmp)   # s_out[tx] = temp
            lm.sync(block)
        # processing phase
        for n in lm.range(63, n_samples):
            if w == 0:
                lm.copy(xn[0:1, 0:1], X, coords=(sig, n))             # tx == 0: x_in[n]
                lm.copy(xn[0:1, 1:32], s_out[0][0:1, 0:31])
            else:
                lm.copy(xn, s_out[0][0:1, 31:63])                  # x_n = s_out[tx - 1]
            lm.sync(block)                                    # the fix: every x_n read first
            lm.binary(tmp, xn, sos[0][0:1, 32 * w:32 * w + 32], op="mul")
            lm.binary(tmp, tmp, zi0, op="add")                    # temp = b0 * x_n + zi0
            lm.binary(zi0, xn, tmp, op="sub")                     # zi0, zi1 (registers, cuSignal)
            lm.binary(zi0, zi0, zi1, op="add")
            lm.binary(zi1, xn, tmp, op="mul")
            if w == 0:
                lm.copy(s_out[0][0:1, 0:32], tmp)
            else:
                lm.copy(s_out[0][0:1, 32:63], tmp[0:1, 0:31])  # tx < load_size
                lm.copy(Out, tmp[0:1, 31:32], coords=(sig, n - 63)) # x_in[n - load_size] = temp
            lm.sync(block)
