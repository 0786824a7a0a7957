# mutant: trip-minus-1
# original: corpus/copy/sm80_vector_copy.cake
# line: 14: for i in lm.range(0, my_tiles):
# change: loop bound: `my_tiles` -> `my_tiles - 1`
# label: benign: no violation under exhaustive exploration with rows in {0, 80, 144, 208}; block_idx 0 of grid_dim 1; 34 states (explicit-state simulator (encoder/simulator.h))
# expect: pass
# The simplest schedule: a grid-stride elementwise kernel (y = relu(x)) that
# never touches shared memory - 128-bit global loads into registers, compute,
# global stores.  One role, one instance, no barriers.
# Models: a PyTorch/CUTLASS-style vectorized elementwise kernel on Ampere.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_80")
def relu_vector_copy(lm, X: LM.gmem, Y: LM.gmem, rows: LM.i32):
    x = lm.regs(shape=(64, 128), dtype=lm.bf16)
    f = lm.regs(shape=(64, 128), dtype=lm.f32)
    wg = lm.role(warps=[0, 1, 2, 3])
    n_tiles  = lm.cdiv(rows, 64)
    my_tiles = lm.cdiv(max(n_tiles - lm.block_idx(0), 0), lm.grid_dim(0))
    with wg:
        for i in lm.range(0, my_tiles - 1):
            t = lm.block_idx(0) + i * lm.grid_dim(0)
            lm.copy(x, X, coords=(t * 64, 0))
            lm.copy(f, x)
            lm.unary(f, f, op="relu")
            lm.copy(x, f)
            lm.copy(Y, x, coords=(t * 64, 0))
