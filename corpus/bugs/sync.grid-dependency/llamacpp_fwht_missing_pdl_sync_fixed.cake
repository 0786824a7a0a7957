# FIXED form of llamacpp_fwht_missing_pdl_sync.cake (ggml-org/llama.cpp PR
# #23690): fwht_cuda calls ggml_cuda_pdl_sync() (griddepcontrol.wait)
# after the row-bounds check and before it loads the source row the
# preceding kernel wrote.
# expect: pass
@cake.schedule(target="sm_90a")
def llamacpp_fwht_pdl_sync_fixed(lm, Src: LM.gmem, Dst: LM.gmem, n_rows: LM.i32):
    lm.grid_dependency(Src)
    reg  = lm.regs(shape=(1, 128), dtype=lm.f32)
    pair = lm.regs(shape=(1, 128), dtype=lm.f32)

    rows = lm.role(warps=[0, 1, 2, 3], group=1)

    with rows:
        r = 4 * lm.block_idx(0) + lm.instance()
        if r < n_rows:
            lm.grid_dep_wait()                              # ggml_cuda_pdl_sync()
            lm.copy(reg, Src, coords=(r, 0))
            lm.binary(reg, reg, 0.08838834764831845, op="mul")
            lm.copy(pair, reg)
            lm.binary(reg, reg, pair, op="add")             # shuffle stages h < 32
            lm.binary(reg, reg, pair, op="sub")             # register stages h >= 32
            lm.copy(Dst, reg, coords=(r, 0))
