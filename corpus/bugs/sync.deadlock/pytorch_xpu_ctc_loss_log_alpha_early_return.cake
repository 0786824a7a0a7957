# BUG (sync.deadlock): intel/torch-xpu-ops PR #1087 ("CTCLoss: Fix the hang
# issue caused by barrier divergence", merged 2024-11-15; resolves
# pytorch/pytorch issue #140781, the XPU CTC loss hang).
# src/ATen/native/xpu/sycl/LossCTCKernels.cpp, CTCLossLogAlphaKernelFunctor,
# the SYCL port of CUDA's ctc_loss_log_alpha_gpu_kernel (LossCTC.cu): a
# work-group of threads_batch rows x threads_target columns, one batch
# element b per row.  The port kept CUDA's early exits:
#     if (b >= batch_size) return;                   // padding rows of the last group
#     if (input_length == 0) { if (tid_x == 0) nll[b] = ...; return; }
#     ... alpha at t = 0 ...
#     for (t = 1; t < max_input_length; t++) {
#       item.barrier();                              // __syncthreads() in CUDA
#       if (t < input_length && s < 2 * target_length + 1) alpha[b][t][s] = ...;
#     }
#     item.barrier();
#     if (tid_x == 0) nll[b] = -log_likelihood(alpha[b][input_length - 1]);
# A SYCL work-group barrier waits for every work-item of the group (CUDA's
# __syncthreads() in practice skips exited threads, which is why the CUDA
# kernel does not hang there), so a group with a padding row or an empty
# sequence waits forever at the first barrier.  The fix keeps every row in
# the loop with a `valid` flag guarding the work ("Waiting for support for
# activeThreadsOnlyBarrier"; the stored version is the fixed one).
# Modelled: threads_target = 32, four rows as one-warp instances; the rows
# that go on (b < batch_size and input_length > 0) are the first rows_live
# of the group; item.barrier() a named barrier over the group; alpha a
# global tensor each row stores its own b of; its reads of alpha[b][t - 1]
# (its own row: one instance here) kept in registers; one column block
# (2 * max_target_length + 1 <= 32).  Left out: the logsumexp arithmetic,
# the t = 0 cases, nll of the empty rows.
# Fix: pytorch_xpu_ctc_loss_log_alpha_early_return_fixed.cake.
# expect: sync.deadlock
@cake.schedule(target="sm_80")
def pytorch_xpu_ctc_loss_log_alpha(lm, LogProbs: LM.gmem, Alpha: LM.gmem, Nll: LM.gmem,
                                   max_input_length: LM.i32, rows_live: LM.i32):
    lm.assume(max_input_length >= 1)
    lm.assume(rows_live >= 0)
    lm.assume(rows_live <= 4)
    la   = lm.regs(shape=(1, 32), dtype=lm.f32)
    lp   = lm.regs(shape=(1, 32), dtype=lm.f32)
    loss = lm.regs(shape=(1, 1), dtype=lm.f32)

    rows  = lm.role(warps=[0, 1, 2, 3], group=1)
    group = lm.named_barrier(roles=[rows])

    with rows:
        y = lm.instance()                               # tid_y: b = y + group_y * 4
        if y < rows_live:                               # BUG: the other rows return
            lm.copy(la, LogProbs, coords=(y, 0))        # alpha at t = 0
            lm.copy(Alpha, la, coords=(y, 0))
            for t in lm.range(1, max_input_length):
                lm.sync(group)                          # expect-error: sync.deadlock
                # alpha[b][t-1][s-2..s]: this row's own values (registers here)
                lm.copy(lp, LogProbs, coords=(y, 32 * t))
                lm.binary(la, la, lp, op="add")
                lm.copy(Alpha, la, coords=(y, 32 * t))
            lm.sync(group)                              # expect-error: sync.deadlock
            # alpha[b][input_length - 1]: this row's own values
            lm.reduce(loss, la, op="max", axis=1)
            lm.copy(Nll, loss, coords=(0, y))
