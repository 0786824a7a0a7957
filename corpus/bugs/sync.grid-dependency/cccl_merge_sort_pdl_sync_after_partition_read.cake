# BUG (sync.grid-dependency): NVIDIA/cccl issue #5297, fixed by PR #5456
# "Fix grid dependency sync in cub::DeviceMergeSort" (2025-08-07;
# backports #5460, #5461).  DeviceMergeSort launches its merge kernels
# with programmatic dependent launch: each AgentMerge grid may start while
# the preceding partition grid (which writes merge_partitions) still runs.
# AgentMerge::consume_tile read merge_partitions[tile_idx] and
# merge_partitions[tile_idx + 1] BEFORE _CCCL_PDL_GRID_DEPENDENCY_SYNC()
# (griddepcontrol.wait), so it could read partition bounds the preceding
# grid had not written yet ("may read invalid data and later access
# shared memory out of bounds", cudaErrorIllegalAddress).
# Fix (PR #5456): the grid dependency sync is the first statement of
# consume_tile, before the merge_partitions loads.
# Written in CAKE IR with the PDL extension (docs/ir-extensions.md): one
# 256-thread block role; lm.grid_dependency(Partitions) (the preceding
# grid writes it); the partition bounds are read with a generic global
# load into registers, then the block waits for the grid dependency, loads
# its keys tile through registers into shared memory, reads it back (the
# merge-path search) and stores the merged tile.  Left out: that the key
# ranges are DATA-dependent on the partition bounds (the IR's coordinates
# are integer expressions, not values read from memory), the second key
# range, and the trigger of the next launch.
# Fix: cccl_merge_sort_pdl_sync_after_partition_read_fixed.cake.
# expect: sync.grid-dependency
@cake.schedule(target="sm_90a")
def cccl_merge_sort_pdl_sync_after_partition_read(lm, Partitions: LM.gmem, KeysIn: LM.gmem, KeysOut: LM.gmem):
    lm.grid_dependency(Partitions)
    pool   = lm.smem(16384)
    keys_s = pool.view(offset=0, shape=(16, 256), dtype=lm.i32)
    bounds = lm.regs(shape=(1, 2), dtype=lm.i32)
    keys_r = lm.regs(shape=(16, 256), dtype=lm.i32)
    merged = lm.regs(shape=(16, 256), dtype=lm.i32)

    block = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7])

    with block:
        tile = lm.block_idx(0)
        lm.copy(bounds, Partitions, coords=(0, tile))                           # expect-error: sync.grid-dependency
        lm.grid_dep_wait()
        lm.copy(keys_r, KeysIn, coords=(tile * 16, 0))
        lm.copy(keys_s[0], keys_r)
        lm.copy(merged, keys_s[0])
        lm.copy(KeysOut, merged, coords=(tile * 16, 0))
