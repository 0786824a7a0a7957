# BUG (sync.race): openmm/openmm issue #4080 ("RPMDIntegrator is sometimes
# unreliable"), fixed by PR #4090 ("Sync threads at the end of FFT in
# `RPMDIntegrator`").  plugins/rpmd/platforms/common/src/kernels/rpmd.cc,
# integrateStep: each ring polymer (NUM_COPIES threads, one per bead) moves
# to the frequency domain with FFTs that CommonIntegrateRPMDStepKernel::
# createFFT generates: per radix pass, `if (indexInBlock < L*m) { read
# real<in>/imag<in>[i + k*L*m]; write real<out>/imag<out>[i + (r*j+k)*m]; }
# SYNC_THREADS;`, the buffers alternating between q (or v) and the shared
# `temp`; with an odd number of passes the result is copied back:
#     if (stage%2 == 1) {
#         real0[indexInBlock] = real1[indexInBlock];    // real1 = &temp[blockStart]
#         imag0[indexInBlock] = imag1[indexInBlock];
#         SYNC_WARPS;
#     }
# and FFT_Q_FORWARD is followed at once by FFT_V_FORWARD, whose first pass
# writes `temp` again.  When a ring polymer spans two warps, warp 0's
# threads write temp[...] for the V transform while warp 1 still copies
# its beads' Q result out of temp[32..63]: the positions get velocity
# modes (compute-sanitizer: reads at the copy vs writes of the next FFT's
# first pass, 387,072 hazards).  The fix: SYNC_THREADS instead of
# SYNC_WARPS after the copy.
# Fix: openmm_rpmd_fft_copy_back_sync_warps_only_fixed.cake.
# Written in CAKE IR: NUM_COPIES = 64 (three radix-4 passes, an odd count;
# only threads 0..15, warp 0, compute in each pass), one ring polymer of the
# block = two one-warp instances, SYNC_THREADS a named barrier over them;
# qreal/imag, vreal/imag and temp each as one 64-element row per particle
# (the imaginary row has the same accesses), each write of a row naming a
# new value (q[6 * p + g]: particle p's g-th write of q), so that every
# read is checked by index (named q[p] alone, the fixed form is a false
# data.stale-read: docs/known-limits.md "data.stale-read: what a
# stage-like read means is inferred"); a pass as warp 0 reading its
# whole input row and writing its whole output row; the thermostat as each
# warp updating its own beads.  posq and velm, updated in place, are
# written as loads from Posq/Velm and stores to PosqOut/VelmOut: a global
# tensor that a loop both reads and writes at coordinates moving with the
# loop has no steady period in the proof (docs/known-limits.md "A global
# tensor read and written at coordinates that move with a loop"); each
# thread reads and writes only its own bead's element there, so no
# synchronization is left out.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def rpmd_integrate_step(lm, Posq: LM.gmem, Velm: LM.gmem, PosqOut: LM.gmem, VelmOut: LM.gmem,
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
            lm.copy(own, temp[9 * p + 2][0:1, 32 * w:32 * w + 32])   # real0[indexInBlock] = real1[indexInBlock]  # expect-error: sync.race
            lm.copy(q[6 * p + 2][0:1, 32 * w:32 * w + 32], own)
            # BUG: SYNC_WARPS only
            # FFT_V_FORWARD: 3 radix-4 passes, threads 0..15 active, SYNC_THREADS after each
            if w == 0:
                lm.copy(frag, v[6 * p])                  # pass 1: read real0/imag0[i + k*L*m]
                lm.copy(temp[9 * p + 3], frag)                  # pass 1: write real1/imag1[i + (r*j + k)*m]  # expect-error: sync.race
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
            # BUG: SYNC_WARPS only
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
            # BUG: SYNC_WARPS only
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
            # BUG: SYNC_WARPS only
            lm.copy(own, q[6 * p + 5][0:1, 32 * w:32 * w + 32])
            lm.copy(PosqOut, own, coords=(blk * 64 + p, 32 * w))    # posq[...] = SCALE*qreal[indexInBlock]
            lm.copy(own, v[6 * p + 5][0:1, 32 * w:32 * w + 32])
            lm.copy(VelmOut, own, coords=(blk * 64 + p, 32 * w))    # velm[...] = SCALE*vreal[indexInBlock]
