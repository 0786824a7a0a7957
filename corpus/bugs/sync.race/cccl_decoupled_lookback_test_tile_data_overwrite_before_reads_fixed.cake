# FIXED: cccl_decoupled_lookback_test_tile_data_overwrite_before_reads.cake
# as NVIDIA/cccl PR #4556 fixes it (the stored later text of
# cub/test/catch2_test_device_decoupled_look_back.cu):
#     // "Compute" tile aggregate
#     MessageT tile_aggregate = tile_data[tile_idx];
#     __syncthreads();
# every warp has loaded the tile's aggregate before thread 0 stores the
# inclusive prefix over it.
# expect: pass
@cake.schedule(target="sm_80")
def decoupled_look_back_kernel_fixed(lm, TileData: LM.gmem, TileState: LM.gmem):
    agg   = lm.regs(shape=(1, 1), dtype=lm.i32)     # tile_aggregate
    excl  = lm.regs(shape=(1, 1), dtype=lm.i32)     # exclusive_prefix
    incl  = lm.regs(shape=(1, 1), dtype=lm.i32)     # inclusive_prefix
    check = lm.regs(shape=(1, 1), dtype=lm.i32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()                                   # warp_id
        tile = lm.block_idx(0)                              # prefix.GetTileIdx()
        lm.copy(agg, TileData, coords=(0, tile))            # tile_aggregate = tile_data[tile_idx]
        lm.sync(block)                                      # __syncthreads()
        if tile == 0:
            if w == 0:
                lm.copy(TileState, agg, coords=(0, tile))   # SetInclusive(tile_idx, tile_aggregate)
                lm.copy(TileData, agg, coords=(0, tile))    # tile_data[tile_idx] = tile_aggregate
        else:
            if w == 0:
                lm.fill(excl, 0)                            # prefix(tile_aggregate): the look-back
                lm.binary(incl, excl, agg, op="add")        # scan_op(exclusive_prefix, tile_aggregate)
                lm.copy(TileData, incl, coords=(0, tile))   # tile_data[tile_idx] = inclusive_prefix
            lm.sync(block)
            lm.copy(check, TileData, coords=(0, tile))      # assert(tile_data[tile_idx] == ...)
