# FIXED form of cccl_merge_sort_pdl_sync_after_partition_read.cake
# (NVIDIA/cccl PR #5456): _CCCL_PDL_GRID_DEPENDENCY_SYNC() is the first
# statement of AgentMerge::consume_tile, so the merge_partitions loads
# happen after the preceding partition grid has completed.
# expect: pass
@cake.schedule(target="sm_90a")
def cccl_merge_sort_pdl_sync_first(lm, Partitions: LM.gmem, KeysIn: LM.gmem, KeysOut: LM.gmem):
    lm.grid_dependency(Partitions)
    pool   = lm.smem(16384)
    keys_s = pool.view(offset=0, shape=(16, 256), dtype=lm.i32)
    bounds = lm.regs(shape=(1, 2), dtype=lm.i32)
    keys_r = lm.regs(shape=(16, 256), dtype=lm.i32)
    merged = lm.regs(shape=(16, 256), dtype=lm.i32)

    block = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7])

    with block:
        tile = lm.block_idx(0)
        lm.grid_dep_wait()
        lm.copy(bounds, Partitions, coords=(0, tile))
        lm.copy(keys_r, KeysIn, coords=(tile * 16, 0))
        lm.copy(keys_s[0], keys_r)
        lm.copy(merged, keys_s[0])
        lm.copy(KeysOut, merged, coords=(tile * 16, 0))
