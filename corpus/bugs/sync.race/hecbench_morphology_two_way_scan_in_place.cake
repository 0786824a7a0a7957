# BUG (sync.race): ORNL/HeCBench issue #255 ("Shared memory race conditions
# in morphology-cuda at (twoWayScan kernel)", 2026-06-15, closed; the
# kernel text is src/morphology-cuda/morphology.cu at 2f639b41, line 82).
# vhgw_horiz (van Herk/Gil-Werman erosion, one block of hsize threads per
# row segment) stages 2 * selSize pixels in `buffer`, copies them to
# `opArray` and scans both halves in place (Hillis-Steele, step-efficient):
#     for (int offset = 1; offset < selSize; offset *= 2) {
#       if (tid >= offset)
#         opArray[tid + selSize - 1] = op(opArray[tid + selSize - 1],
#                                         opArray[tid + selSize - 1 - offset]);
#       if (tid <= selSize - 1 - offset)
#         opArray[tid] = op(opArray[tid], opArray[tid + offset]);
#       __syncthreads();                       // (BUG) reads and writes of a
#     }                                        // step are both before it
# Thread t reads opArray[t + offset] (and opArray[t + selSize - 1 - offset])
# while thread t + offset writes that element in the same step; with
# hsize > 32 the two threads are in different warps (compute-sanitizer
# racecheck: 1,056,579 hazards at hsize = 64, "Race reported between Read
# access ... and Write access").  Modelled: hsize = selSize = 64 (the
# issue's reproduction), the two warps as one-warp instances of one role,
# __syncthreads() a named barrier over them; the six offsets 1..32
# unrolled; a thread's guard (tid >= offset, tid <= selSize - 1 - offset)
# becomes the range of lanes of each warp it keeps (rlo*/rn*, fn*);
# elementOp is min (erosion).  Left out: the kernel's early return of the
# threads past the image's width (a full row segment is modelled) and the
# vertical pass (vhgw_vert, the same scan).
# Fix: hecbench_morphology_two_way_scan_in_place_fixed.cake (the issue names
# the cause; the fixed kernel text is not in the stored corpora: the fixed
# form is the standard one, every read of a step, a barrier, the writes).
# expect: sync.race
@cake.schedule(target="sm_80")
def hecbench_morphology_vhgw_horiz(lm, Src: LM.gmem, Dst: LM.gmem):
    pool   = lm.smem(256)
    buffer = pool.view(offset=0,   shape=(1, 128), dtype=lm.i8)   # buffer[2 * selSize]
    op_arr = pool.view(offset=128, shape=(1, 128), dtype=lm.i8)   # opArray[2 * selSize]
    px = lm.regs(shape=(1, 32), dtype=lm.i8)
    ra = lm.regs(shape=(1, 32), dtype=lm.i8)
    rb = lm.regs(shape=(1, 32), dtype=lm.i8)
    fa = lm.regs(shape=(1, 32), dtype=lm.i8)
    fb = lm.regs(shape=(1, 32), dtype=lm.i8)

    warps = lm.role(warps=[0, 1], group=1)                        # hsize = 64 threads
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        row = lm.block_idx(1)
        col = 64 * lm.block_idx(0)
        lm.copy(px, Src, coords=(row, col + 32 * w))                  # buffer[tid]
        lm.copy(buffer[0][0:1, 32 * w:32 * w + 32], px)
        lm.copy(px, Src, coords=(row, col + 64 + 32 * w))             # buffer[tid + selSize]
        lm.copy(buffer[0][0:1, 64 + 32 * w:96 + 32 * w], px)
        lm.sync(block)
        # twoWayScan: opArray = buffer
        lm.copy(px, buffer[0][0:1, 32 * w:32 * w + 32])
        lm.copy(op_arr[0][0:1, 32 * w:32 * w + 32], px)
        lm.copy(px, buffer[0][0:1, 64 + 32 * w:96 + 32 * w])
        lm.copy(op_arr[0][0:1, 64 + 32 * w:96 + 32 * w], px)
        lm.sync(block)
        # offset = 1
        rlo0 = max(32 * w, 1)                            # this warp's tid >= offset
        rn0 = 32 * w + 32 - rlo0
        fn0 = min(32 * w + 32, 63) - 32 * w            # its tid <= selSize - 1 - offset
        if rn0 > 0:
            lm.copy(ra[0:1, 0:rn0], op_arr[0][0:1, rlo0 + 63:rlo0 + 63 + rn0])  # expect-error: sync.race
            lm.copy(rb[0:1, 0:rn0], op_arr[0][0:1, rlo0 + 62:rlo0 + 62 + rn0])  # expect-error: sync.race
        if fn0 > 0:
            lm.copy(fa[0:1, 0:fn0], op_arr[0][0:1, 32 * w:32 * w + fn0])  # expect-error: sync.race
            lm.copy(fb[0:1, 0:fn0], op_arr[0][0:1, 32 * w + 1:32 * w + 1 + fn0])  # expect-error: sync.race
        if rn0 > 0:
            lm.binary(ra[0:1, 0:rn0], ra[0:1, 0:rn0], rb[0:1, 0:rn0], op="min")
            lm.copy(op_arr[0][0:1, rlo0 + 63:rlo0 + 63 + rn0], ra[0:1, 0:rn0])  # expect-error: sync.race
        if fn0 > 0:
            lm.binary(fa[0:1, 0:fn0], fa[0:1, 0:fn0], fb[0:1, 0:fn0], op="min")
            lm.copy(op_arr[0][0:1, 32 * w:32 * w + fn0], fa[0:1, 0:fn0])  # expect-error: sync.race
        lm.sync(block)
        # offset = 2
        rlo1 = max(32 * w, 2)                            # this warp's tid >= offset
        rn1 = 32 * w + 32 - rlo1
        fn1 = min(32 * w + 32, 62) - 32 * w            # its tid <= selSize - 1 - offset
        if rn1 > 0:
            lm.copy(ra[0:1, 0:rn1], op_arr[0][0:1, rlo1 + 63:rlo1 + 63 + rn1])
            lm.copy(rb[0:1, 0:rn1], op_arr[0][0:1, rlo1 + 61:rlo1 + 61 + rn1])
        if fn1 > 0:
            lm.copy(fa[0:1, 0:fn1], op_arr[0][0:1, 32 * w:32 * w + fn1])
            lm.copy(fb[0:1, 0:fn1], op_arr[0][0:1, 32 * w + 2:32 * w + 2 + fn1])
        if rn1 > 0:
            lm.binary(ra[0:1, 0:rn1], ra[0:1, 0:rn1], rb[0:1, 0:rn1], op="min")
            lm.copy(op_arr[0][0:1, rlo1 + 63:rlo1 + 63 + rn1], ra[0:1, 0:rn1])
        if fn1 > 0:
            lm.binary(fa[0:1, 0:fn1], fa[0:1, 0:fn1], fb[0:1, 0:fn1], op="min")
            lm.copy(op_arr[0][0:1, 32 * w:32 * w + fn1], fa[0:1, 0:fn1])
        lm.sync(block)
        # offset = 4
        rlo2 = max(32 * w, 4)                            # this warp's tid >= offset
        rn2 = 32 * w + 32 - rlo2
        fn2 = min(32 * w + 32, 60) - 32 * w            # its tid <= selSize - 1 - offset
        if rn2 > 0:
            lm.copy(ra[0:1, 0:rn2], op_arr[0][0:1, rlo2 + 63:rlo2 + 63 + rn2])
            lm.copy(rb[0:1, 0:rn2], op_arr[0][0:1, rlo2 + 59:rlo2 + 59 + rn2])
        if fn2 > 0:
            lm.copy(fa[0:1, 0:fn2], op_arr[0][0:1, 32 * w:32 * w + fn2])
            lm.copy(fb[0:1, 0:fn2], op_arr[0][0:1, 32 * w + 4:32 * w + 4 + fn2])
        if rn2 > 0:
            lm.binary(ra[0:1, 0:rn2], ra[0:1, 0:rn2], rb[0:1, 0:rn2], op="min")
            lm.copy(op_arr[0][0:1, rlo2 + 63:rlo2 + 63 + rn2], ra[0:1, 0:rn2])
        if fn2 > 0:
            lm.binary(fa[0:1, 0:fn2], fa[0:1, 0:fn2], fb[0:1, 0:fn2], op="min")
            lm.copy(op_arr[0][0:1, 32 * w:32 * w + fn2], fa[0:1, 0:fn2])
        lm.sync(block)
        # offset = 8
        rlo3 = max(32 * w, 8)                            # this warp's tid >= offset
        rn3 = 32 * w + 32 - rlo3
        fn3 = min(32 * w + 32, 56) - 32 * w            # its tid <= selSize - 1 - offset
        if rn3 > 0:
            lm.copy(ra[0:1, 0:rn3], op_arr[0][0:1, rlo3 + 63:rlo3 + 63 + rn3])
            lm.copy(rb[0:1, 0:rn3], op_arr[0][0:1, rlo3 + 55:rlo3 + 55 + rn3])
        if fn3 > 0:
            lm.copy(fa[0:1, 0:fn3], op_arr[0][0:1, 32 * w:32 * w + fn3])
            lm.copy(fb[0:1, 0:fn3], op_arr[0][0:1, 32 * w + 8:32 * w + 8 + fn3])
        if rn3 > 0:
            lm.binary(ra[0:1, 0:rn3], ra[0:1, 0:rn3], rb[0:1, 0:rn3], op="min")
            lm.copy(op_arr[0][0:1, rlo3 + 63:rlo3 + 63 + rn3], ra[0:1, 0:rn3])
        if fn3 > 0:
            lm.binary(fa[0:1, 0:fn3], fa[0:1, 0:fn3], fb[0:1, 0:fn3], op="min")
            lm.copy(op_arr[0][0:1, 32 * w:32 * w + fn3], fa[0:1, 0:fn3])
        lm.sync(block)
        # offset = 16
        rlo4 = max(32 * w, 16)                            # this warp's tid >= offset
        rn4 = 32 * w + 32 - rlo4
        fn4 = min(32 * w + 32, 48) - 32 * w            # its tid <= selSize - 1 - offset
        if rn4 > 0:
            lm.copy(ra[0:1, 0:rn4], op_arr[0][0:1, rlo4 + 63:rlo4 + 63 + rn4])
            lm.copy(rb[0:1, 0:rn4], op_arr[0][0:1, rlo4 + 47:rlo4 + 47 + rn4])
        if fn4 > 0:
            lm.copy(fa[0:1, 0:fn4], op_arr[0][0:1, 32 * w:32 * w + fn4])
            lm.copy(fb[0:1, 0:fn4], op_arr[0][0:1, 32 * w + 16:32 * w + 16 + fn4])
        if rn4 > 0:
            lm.binary(ra[0:1, 0:rn4], ra[0:1, 0:rn4], rb[0:1, 0:rn4], op="min")
            lm.copy(op_arr[0][0:1, rlo4 + 63:rlo4 + 63 + rn4], ra[0:1, 0:rn4])
        if fn4 > 0:
            lm.binary(fa[0:1, 0:fn4], fa[0:1, 0:fn4], fb[0:1, 0:fn4], op="min")
            lm.copy(op_arr[0][0:1, 32 * w:32 * w + fn4], fa[0:1, 0:fn4])
        lm.sync(block)
        # offset = 32
        rlo5 = max(32 * w, 32)                            # this warp's tid >= offset
        rn5 = 32 * w + 32 - rlo5
        fn5 = min(32 * w + 32, 32) - 32 * w            # its tid <= selSize - 1 - offset
        if rn5 > 0:
            lm.copy(ra[0:1, 0:rn5], op_arr[0][0:1, rlo5 + 63:rlo5 + 63 + rn5])
            lm.copy(rb[0:1, 0:rn5], op_arr[0][0:1, rlo5 + 31:rlo5 + 31 + rn5])
        if fn5 > 0:
            lm.copy(fa[0:1, 0:fn5], op_arr[0][0:1, 32 * w:32 * w + fn5])
            lm.copy(fb[0:1, 0:fn5], op_arr[0][0:1, 32 * w + 32:32 * w + 32 + fn5])
        if rn5 > 0:
            lm.binary(ra[0:1, 0:rn5], ra[0:1, 0:rn5], rb[0:1, 0:rn5], op="min")
            lm.copy(op_arr[0][0:1, rlo5 + 63:rlo5 + 63 + rn5], ra[0:1, 0:rn5])
        if fn5 > 0:
            lm.binary(fa[0:1, 0:fn5], fa[0:1, 0:fn5], fb[0:1, 0:fn5], op="min")
            lm.copy(op_arr[0][0:1, 32 * w:32 * w + fn5], fa[0:1, 0:fn5])
        lm.sync(block)
        # dst[tidx + selSize / 2] = elementOp(opArray[tid], opArray[tid + selSize - 1])
        lm.copy(fa, op_arr[0][0:1, 32 * w:32 * w + 32])
        lm.copy(ra, op_arr[0][0:1, 32 * w + 63:32 * w + 95])
        lm.binary(fa, fa, ra, op="min")
        lm.copy(Dst, fa, coords=(row, col + 32 + 32 * w))
