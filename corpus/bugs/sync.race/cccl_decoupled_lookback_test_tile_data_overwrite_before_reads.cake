# BUG (sync.race): NVIDIA/cccl PR #4556 ("Fix race in decoupled lookback
# test harness.", fixes issue #1887): cub/test/
# catch2_test_device_decoupled_look_back.cu, decoupled_look_back_kernel
# (one 256-thread block per tile), before the fix:
#     const unsigned int tile_idx = prefix.GetTileIdx();
#     MessageT tile_aggregate = tile_data[tile_idx];     // every thread
#     if (tile_idx == 0) {
#       if (tid == 0) { tile_state.SetInclusive(tile_idx, tile_aggregate);
#                       tile_data[tile_idx] = tile_aggregate; }
#     } else {
#       if (warp_id == 0) {
#         MessageT exclusive_prefix = prefix(tile_aggregate);   // look-back
#         if (tid == 0) tile_data[tile_idx] = scan_op(exclusive_prefix, tile_aggregate);
#       }
#       __syncthreads();
#       assert(tile_data[tile_idx] == prefix.GetInclusivePrefix()); ...
#     }
# "tile_data[tile_idx] was overwritten with the inclusive prefix by tid 0
# ... before later warps read the block aggregate": a late warp loads the
# inclusive prefix as its aggregate and the assert fails (racecheck
# reports the global load and store of one element).  The fix: a
# __syncthreads() right after the load ("Synchronizing after the read
# ensures that all threads in the block have a consistent view of the
# input data before the output is written").
# Fix: cccl_decoupled_lookback_test_tile_data_overwrite_before_reads_fixed.cake.
# Written in CAKE IR: the 8 warps cut to four one-warp instances,
# __syncthreads() a named barrier over them; tile_idx as lm.block_idx(0)
# (GetTileIdx() is the block index); tile_data (global, read and written
# by the block) at element (0, tile_idx).  The look-back itself (warp 0
# spinning on the previous tiles' status words, written by other CTAs)
# is left out: its exclusive prefix is a register value here, and
# SetInclusive's status store is a store to a second tensor.
# expect: sync.race
@cake.schedule(target="sm_80")
def decoupled_look_back_kernel(lm, TileData: LM.gmem, TileState: LM.gmem):
    agg   = lm.regs(shape=(1, 1), dtype=lm.i32)     # tile_aggregate
    excl  = lm.regs(shape=(1, 1), dtype=lm.i32)     # exclusive_prefix
    incl  = lm.regs(shape=(1, 1), dtype=lm.i32)     # inclusive_prefix
    check = lm.regs(shape=(1, 1), dtype=lm.i32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()                                   # warp_id
        tile = lm.block_idx(0)                              # prefix.GetTileIdx()
        lm.copy(agg, TileData, coords=(0, tile))            # tile_aggregate = tile_data[tile_idx]  # expect-error: sync.race
        # BUG: no __syncthreads() after the load
        if tile == 0:
            if w == 0:
                lm.copy(TileState, agg, coords=(0, tile))   # SetInclusive(tile_idx, tile_aggregate)
                lm.copy(TileData, agg, coords=(0, tile))    # tile_data[tile_idx] = tile_aggregate  # expect-error: sync.race
        else:
            if w == 0:
                lm.fill(excl, 0)                            # prefix(tile_aggregate): the look-back
                lm.binary(incl, excl, agg, op="add")        # scan_op(exclusive_prefix, tile_aggregate)
                lm.copy(TileData, incl, coords=(0, tile))   # tile_data[tile_idx] = inclusive_prefix  # expect-error: sync.race
            lm.sync(block)
            lm.copy(check, TileData, coords=(0, tile))      # assert(tile_data[tile_idx] == ...)
