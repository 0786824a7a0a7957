# FIXED: openmm_rpmd_fft_copy_back_sync_warps_only.cake as openmm/openmm
# PR #4090 fixes it (issue #4080): createFFT ends an odd-pass transform with
#     if (stage%2 == 1) {
#         source<<"real0[indexInBlock] = real1[indexInBlock];\n";
#         source<<"imag0[indexInBlock] = imag1[indexInBlock];\n";
#         source<<"SYNC_THREADS;\n";
#     }
# (the stored later text of CommonRpmdKernels.cpp), so every warp of the
# ring polymer has copied its beads out of `temp` before the next
# transform's first pass writes it.
# expect: pass
@cake.schedule(target="sm_80")
def rpmd_integrate_step_fixed(lm, Posq: LM.gmem, Velm: LM.gmem, PosqOut: LM.gmem, VelmOut: LM.gmem,
                              particles: LM.i32):
    lm.assume(particles >= 1)
    pool = lm.smem(768)
    q    = pool.view(offset=0,   shape=(1, 64), dtype=lm.f32)   # qreal/qimag of one ring polymer
    v    = pool.view(offset=256, shape=(1, 64), dtype=lm.f32)   # vreal/vimag
    temp = pool.view(offset=512, shape=(1, 64), dtype=lm.f32)   # temp (real1/imag1)
    own  = lm.regs(shape=(1, 32), dtype=lm.f32)
    frag = lm.regs(shape=(1, 64), dtype=lm.f32)

    warps = lm.role(warps=[0, 1], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w   = lm.instance()                                     # indexInBlock // 32
        blk = lm.block_idx(0)
        for p in lm.range(0, particles):
            lm.copy(own, Posq, coords=(blk * 64 + p, 32 * w))       # particlePosq
            lm.copy(q[6 * p][0:1, 32 * w:32 * w + 32], own)          # qreal[indexInBlock] = SCALE*...
            lm.copy(own, Velm, coords=(blk * 64 + p, 32 * w))       # particleVelm
            lm.copy(v[6 * p][0:1, 32 * w:32 * w + 32], own)          # vreal[indexInBlock] = SCALE*...
            lm.sync(block)
            # FFT_Q_FORWARD: 3 radix-4 passes, threads 0..15 active, SYNC_THREADS after each
            if w == 0:
                lm.copy(frag, q[6 * p])                  # pass 1: read real0/imag0[i + k*L*m]
                lm.copy(temp[9 * p + 1], frag)                  # pass 1: write real1/imag1[i + (r*j + k)*m]
            lm.sync(block)
            if w == 0:
                lm.copy(frag, temp[9 * p + 1])                  # pass 2: read real1/imag1[i + k*L*m]
                lm.copy(q[6 * p + 1], frag)                  # pass 2: write real0/imag0[i + (r*j + k)*m]
            lm.sync(block)
            if w == 0:
                lm.copy(frag, q[6 * p + 1])                  # pass 3: read real0/imag0[i + k*L*m]
                lm.copy(temp[9 * p + 2], frag)                  # pass 3: write real1/imag1[i + (r*j + k)*m]
            lm.sync(block)
            lm.copy(own, temp[9 * p + 2][0:1, 32 * w:32 * w + 32])   # real0[indexInBlock] = real1[indexInBlock]
            lm.copy(q[6 * p + 2][0:1, 32 * w:32 * w + 32], own)
            lm.sync(block)                                     # SYNC_THREADS (openmm PR #4090)
            # FFT_V_FORWARD: 3 radix-4 passes, threads 0..15 active, SYNC_THREADS after each
            if w == 0:
                lm.copy(frag, v[6 * p])                  # pass 1: read real0/imag0[i + k*L*m]
                lm.copy(temp[9 * p + 3], frag)                  # pass 1: write real1/imag1[i + (r*j + k)*m]
            lm.sync(block)
            if w == 0:
                lm.copy(frag, temp[9 * p + 3])                  # pass 2: read real1/imag1[i + k*L*m]
                lm.copy(v[6 * p + 1], frag)                  # pass 2: write real0/imag0[i + (r*j + k)*m]
            lm.sync(block)
            if w == 0:
                lm.copy(frag, v[6 * p + 1])                  # pass 3: read real0/imag0[i + k*L*m]
                lm.copy(temp[9 * p + 4], frag)                  # pass 3: write real1/imag1[i + (r*j + k)*m]
            lm.sync(block)
            lm.copy(own, temp[9 * p + 4][0:1, 32 * w:32 * w + 32])   # real0[indexInBlock] = real1[indexInBlock]
            lm.copy(v[6 * p + 2][0:1, 32 * w:32 * w + 32], own)
            lm.sync(block)                                     # SYNC_THREADS (openmm PR #4090)
            # thermostat: each thread updates its own mode
            lm.copy(own, q[6 * p + 2][0:1, 32 * w:32 * w + 32])
            lm.copy(q[6 * p + 3][0:1, 32 * w:32 * w + 32], own)
            lm.copy(own, v[6 * p + 2][0:1, 32 * w:32 * w + 32])
            lm.copy(v[6 * p + 3][0:1, 32 * w:32 * w + 32], own)
            lm.sync(block)
            # FFT_Q_BACKWARD: 3 radix-4 passes, threads 0..15 active, SYNC_THREADS after each
            if w == 0:
                lm.copy(frag, q[6 * p + 3])                  # pass 1: read real0/imag0[i + k*L*m]
                lm.copy(temp[9 * p + 5], frag)                  # pass 1: write real1/imag1[i + (r*j + k)*m]
            lm.sync(block)
            if w == 0:
                lm.copy(frag, temp[9 * p + 5])                  # pass 2: read real1/imag1[i + k*L*m]
                lm.copy(q[6 * p + 4], frag)                  # pass 2: write real0/imag0[i + (r*j + k)*m]
            lm.sync(block)
            if w == 0:
                lm.copy(frag, q[6 * p + 4])                  # pass 3: read real0/imag0[i + k*L*m]
                lm.copy(temp[9 * p + 6], frag)                  # pass 3: write real1/imag1[i + (r*j + k)*m]
            lm.sync(block)
            lm.copy(own, temp[9 * p + 6][0:1, 32 * w:32 * w + 32])   # real0[indexInBlock] = real1[indexInBlock]
            lm.copy(q[6 * p + 5][0:1, 32 * w:32 * w + 32], own)
            lm.sync(block)                                     # SYNC_THREADS (openmm PR #4090)
            # FFT_V_BACKWARD: 3 radix-4 passes, threads 0..15 active, SYNC_THREADS after each
            if w == 0:
                lm.copy(frag, v[6 * p + 3])                  # pass 1: read real0/imag0[i + k*L*m]
                lm.copy(temp[9 * p + 7], frag)                  # pass 1: write real1/imag1[i + (r*j + k)*m]
            lm.sync(block)
            if w == 0:
                lm.copy(frag, temp[9 * p + 7])                  # pass 2: read real1/imag1[i + k*L*m]
                lm.copy(v[6 * p + 4], frag)                  # pass 2: write real0/imag0[i + (r*j + k)*m]
            lm.sync(block)
            if w == 0:
                lm.copy(frag, v[6 * p + 4])                  # pass 3: read real0/imag0[i + k*L*m]
                lm.copy(temp[9 * p + 8], frag)                  # pass 3: write real1/imag1[i + (r*j + k)*m]
            lm.sync(block)
            lm.copy(own, temp[9 * p + 8][0:1, 32 * w:32 * w + 32])   # real0[indexInBlock] = real1[indexInBlock]
            lm.copy(v[6 * p + 5][0:1, 32 * w:32 * w + 32], own)
            lm.sync(block)                                     # SYNC_THREADS (openmm PR #4090)
            lm.copy(own, q[6 * p + 5][0:1, 32 * w:32 * w + 32])
            lm.copy(PosqOut, own, coords=(blk * 64 + p, 32 * w))    # posq[...] = SCALE*qreal[indexInBlock]
            lm.copy(own, v[6 * p + 5][0:1, 32 * w:32 * w + 32])
            lm.copy(VelmOut, own, coords=(blk * 64 + p, 32 * w))    # velm[...] = SCALE*vreal[indexInBlock]
