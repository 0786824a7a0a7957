# BUG (sync.race): ORNL/HeCBench issue #255's sibling, issue #256 ("Shared
# memory race conditions in sosfil-cuda at (sosfilt kernel)", 2026-06-16,
# closed; the kernel text is src/sosfil-cuda/main.cu at 2f639b41, line 38,
# a port of RAPIDS cuSignal's sosfilt).  A cascade of second-order IIR
# sections as a systolic pipeline: thread tx is section tx, one block per
# signal; per sample n
#     x_n = (tx == 0) ? x_in[n] : s_out[tx - 1];   // the previous section's
#     temp = b0 * x_n + zi0;  zi0 = ...;  zi1 = ...; // output of sample n - 1
#     s_out[tx] = temp;                              // (processing phase:
#     __syncthreads();                               //  the last section
#                                                    //  writes x_in[n - 63])
# Thread tx reads s_out[tx - 1] while thread tx - 1 overwrites it with this
# sample's value: both are between the same two barriers.  With 64
# sections threads 31 and 32 are in different warps and the write can land
# first (compute-sanitizer racecheck: 3,780 hazards, "Race reported between
# Read access ... and Write access").  Modelled: n_sections = 64, the two
# warps as one-warp instances of one role, __syncthreads() a named barrier
# over them; thread 0's sample load as a one-element global read; the
# loading phase (n < load_size = 63) and the processing phase as two loops;
# the section arithmetic as register ops on one coefficient (s_sos[tx]).
# The kernel writes its output back into x_in; the model writes it to
# `Out` (the same elements, ordered the same way), since the in-place
# spelling is *checked* only (docs/known-limits.md "A global tensor read
# and written at coordinates that move with a loop is not proved": the
# write's rest, n - 63, and the block index).  Left out: the unloading
# phase (n_sections more steps, the same read-then-write), s_zi in shared
# memory (each thread its own entries).
# Fix: hecbench_sosfilt_systolic_s_out_read_write_one_step_fixed.cake (the
# fixed kernel text is not in the stored corpora: the fixed form puts a
# barrier between every section's read of s_out[tx - 1] and its write of
# s_out[tx]).  cusignal_sosfilt_top_barrier_same_step_race.cake is
# cuSignal's later text (the barrier moved to the top of the iteration),
# which keeps the race.
# expect: sync.race
@cake.schedule(target="sm_80")
def hecbench_sosfilt(lm, X: LM.gmem, Out: LM.gmem, Sos: LM.gmem, Zi: LM.gmem, n_samples: LM.i32):
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
                lm.copy(xn[0:1, 1:32], s_out[0][0:1, 0:31])  # expect-error: sync.race
            else:
                lm.copy(xn, s_out[0][0:1, 31:63])  # x_n = s_out[tx - 1]  # expect-error: sync.race
            lm.binary(tmp, xn, sos[0][0:1, 32 * w:32 * w + 32], op="mul")
            lm.binary(tmp, tmp, zi0, op="add")                    # temp = b0 * x_n + zi0
            lm.binary(zi0, xn, tmp, op="sub")                     # zi0, zi1 (registers, cuSignal)
            lm.binary(zi0, zi0, zi1, op="add")
            lm.binary(zi1, xn, tmp, op="mul")
            lm.copy(s_out[0][0:1, 32 * w:32 * w + 32], tmp)  # s_out[tx] = temp  # expect-error: sync.race
            lm.sync(block)
        # processing phase
        for n in lm.range(63, n_samples):
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
            lm.sync(block)
