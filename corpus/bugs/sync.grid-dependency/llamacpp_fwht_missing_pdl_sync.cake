# BUG (sync.grid-dependency): ggml-org/llama.cpp PR #23690 ("CUDA: missing
# PDL sync for FWHT, better fallback", 2026-05-25; the problem reported on
# PR #23615, which added the kernel).  ggml's CUDA backend launches kernels
# through ggml_cuda_kernel_launch with programmatic dependent launch (PR
# #22522), so a kernel may start while the preceding kernel of the graph
# still runs; every kernel launched that way must call ggml_cuda_pdl_sync()
# (cudaGridDependencySynchronize, griddepcontrol.wait) before it reads
# what the preceding kernel wrote.  The new fast Walsh-Hadamard transform
# kernel fwht_cuda<N> (ggml/src/ggml-cuda/fwht.cu; KV-cache rotation) was
# launched with ggml_cuda_kernel_launch but never called
# ggml_cuda_pdl_sync(): it loaded its source rows - the output of the
# preceding kernel - before that kernel had finished, "a race condition
# that can lead to incorrect results" (garbled output on Blackwell, Qwen
# with a q8_0 KV cache).  The fix adds ggml_cuda_pdl_sync() after the
# row-bounds check, before the loads.
# Modelled: fwht_cuda<128> as launched (4 rows per block, one warp per
# row: blockDim = (32, 4), each warp a one-warp instance), the bounds check
# `r < n_rows` with r = 4 * blockIdx.x + threadIdx.y, the row loaded into
# registers and scaled, the butterfly stages (warp shuffles and register
# pairs: registers only) as two lm.binary steps, the row stored;
# lm.grid_dependency(Src) says the preceding kernel writes the source.
# Left out: the exact butterfly arithmetic and the signs of the stages.
# Fix: llamacpp_fwht_missing_pdl_sync_fixed.cake.
# expect: sync.grid-dependency
@cake.schedule(target="sm_90a")
def llamacpp_fwht_missing_pdl_sync(lm, Src: LM.gmem, Dst: LM.gmem, n_rows: LM.i32):
    lm.grid_dependency(Src)
    reg  = lm.regs(shape=(1, 128), dtype=lm.f32)
    pair = lm.regs(shape=(1, 128), dtype=lm.f32)

    rows = lm.role(warps=[0, 1, 2, 3], group=1)

    with rows:
        r = 4 * lm.block_idx(0) + lm.instance()
        if r < n_rows:
            # BUG: no ggml_cuda_pdl_sync() before the loads
            lm.copy(reg, Src, coords=(r, 0))                # expect-error: sync.grid-dependency
            lm.binary(reg, reg, 0.08838834764831845, op="mul")
            lm.copy(pair, reg)
            lm.binary(reg, reg, pair, op="add")             # shuffle stages h < 32
            lm.binary(reg, reg, pair, op="sub")             # register stages h >= 32
            lm.copy(Dst, reg, coords=(r, 0))
