# BUG (sync.race), found by cake: RAPIDS cuSignal's sosfilt kernel
# (cpp/src/filtering/_sosfilt.cu, "Copyright (c) 2019-2023 NVIDIA", the
# text HeCBench's sosfil-cuda was ported from, ORNL/HeCBench issue #256)
# keeps zi in registers and puts the loop's __syncthreads() at the top of
# each sample instead of the end:
#     for (n ...) {
#         __syncthreads();
#         x_n = (tx == 0) ? x_in[n] : s_out[tx - 1];
#         temp = ...;  zi0 = ...;  zi1 = ...;
#         s_out[tx] = temp;          // or x_in[n - load_size] (last section)
#     }
# which leaves thread tx's read of s_out[tx - 1] and thread tx - 1's write of
# it between the same two barriers: the race of HeCBench issue #256 (no
# upstream report of it is in the stored corpora; with n_sections <= 32,
# one warp, the hazard is intra-warp, which the IR does not model).
# Modelled as hecbench_sosfilt_systolic_s_out_read_write_one_step.cake
# (64 sections, two warps, the output written to `Out`); the initial
# __syncthreads() after the s_sos load is commented out in cuSignal and
# left out here (the first iteration's barrier orders it).  The fixed form
# of the HeCBench pair is the fix here too.
# expect: sync.race
@cake.schedule(target="sm_80")
def cusignal_sosfilt(lm, X: LM.gmem, Out: LM.gmem, Sos: LM.gmem, Zi: LM.gmem, n_samples: LM.i32):
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
        # loading phase: n < load_size = n_sections - 1
        for n in lm.range(0, 63):
            lm.sync(block)                                    # cuSignal: __syncthreads() first
            if w == 0:
                lm.copy(xn[0:1, 0:1], X, coords=(sig, n))             # tx == 0: x_in[n]
                lm.copy(xn[0:1, 1:32], s_out[0][0:1, 0:31])  # expect-error: sync.race
            else:
                lm.copy(xn, s_out[0][0:1, 31:63])  # x_n = s_out[tx - 1]  # expect-error: sync.race
            lm.binary(tmp, xn, sos[0][0:1, 32 * w:32 * w + 32], op="mul")
            lm.binary(tmp, tmp, zi0, op="add")                    # temp = b0 * x_n + zi0
            lm.binary(zi0, xn, tmp, op="sub")                     # zi0, zi1 (registers, cuSignal)
            lm.binary(zi0, zi0, zi1, op="add")
            lm.binary(zi1, xn, tmp, op="mul")
            lm.copy(s_out[0][0:1, 32 * w:32 * w + 32], tmp)  # s_out[tx] = temp  # expect-error: sync.race
        # processing phase
        for n in lm.range(63, n_samples):
            lm.sync(block)                                    # cuSignal: __syncthreads() first
            if w == 0:
                lm.copy(xn[0:1, 0:1], X, coords=(sig, n))             # tx == 0: x_in[n]
                lm.copy(xn[0:1, 1:32], s_out[0][0:1, 0:31])  # expect-error: sync.race
            else:
                lm.copy(xn, s_out[0][0:1, 31:63])  # x_n = s_out[tx - 1]  # expect-error: sync.race
            lm.binary(tmp, xn, sos[0][0:1, 32 * w:32 * w + 32], op="mul")
            lm.binary(tmp, tmp, zi0, op="add")                    # temp = b0 * x_n + zi0
            lm.binary(zi0, xn, tmp, op="sub")                     # zi0, zi1 (registers, cuSignal)
            lm.binary(zi0, zi0, zi1, op="add")
            lm.binary(zi1, xn, tmp, op="mul")
            if w == 0:
                lm.copy(s_out[0][0:1, 0:32], tmp)  # expect-error: sync.race
            else:
                lm.copy(s_out[0][0:1, 32:63], tmp[0:1, 0:31])  # tx < load_size  # expect-error: sync.race
                lm.copy(Out, tmp[0:1, 31:32], coords=(sig, n - 63)) # x_in[n - load_size] = temp
