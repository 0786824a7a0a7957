#!/usr/bin/env python3
"""Library references for the attention and k-means workloads, timed on the
device in the same call as the cake kernels (bench/gpu/device_cost_sweep.sh).

* torch.nn.functional.scaled_dot_product_attention with the cuDNN and the
  flash backends, causal and not, bf16 [B, H, S, D];
* a k-means assignment kernel in Triton following flash-kmeans (one program
  owns a tile of points, keeps it on chip, streams the centroids in tiles,
  dot products on the tensor cores, dist = ||c||^2 - 2 x.c, a running
  argmin across centroid tiles; no [N, K] matrix in memory), checked against
  PyTorch's bmm + argmin, which is timed too.

Every time is the median of triton.testing.do_bench, which zeroes a 256 MB
buffer (flushing the L2) before each run. Prints one JSON object per line.

    python3 bench/gpu/torch_refs.py [--budget S] [--only sdpa|kmeans] [--first N]
"""
import json
import sys
import time

import torch
import triton
import triton.language as tl

T0 = time.time()
BUDGET_S = float(sys.argv[sys.argv.index("--budget") + 1]) if "--budget" in sys.argv else 90.0


def emit(**kw):
    kw["elapsed_s"] = round(time.time() - T0, 1)
    print(json.dumps(kw), flush=True)


# TORCH_REP_MS: do_bench's timing window (60 ms is ~9 runs of the 7 ms B=4 H=32 S=8192 SDPA)
REP_MS = float(__import__("os").environ.get("TORCH_REP_MS", "60"))


def bench(fn):
    return triton.testing.do_bench(fn, warmup=10, rep=REP_MS, return_mode="median")


@triton.jit
def kmeans_assign(X, C, CN, LAB, DIST, N, K, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    b = tl.program_id(1)
    offs_m = pid * BM + tl.arange(0, BM)
    offs_d = tl.arange(0, D)
    x = tl.load(X + b * N * D + offs_m[:, None] * D + offs_d[None, :], mask=offs_m[:, None] < N, other=0.0)
    best = tl.full([BM], float("inf"), tl.float32)
    best_i = tl.zeros([BM], tl.int32)
    for k0 in range(0, K, BN):
        offs_n = k0 + tl.arange(0, BN)
        c = tl.load(C + b * K * D + offs_n[:, None] * D + offs_d[None, :], mask=offs_n[:, None] < K, other=0.0)
        dots = tl.dot(x, tl.trans(c))
        cn = tl.load(CN + b * K + offs_n, mask=offs_n < K, other=float("inf"))
        dist = cn[None, :] - 2.0 * dots
        m = tl.min(dist, axis=1)
        mi = tl.argmin(dist, axis=1).to(tl.int32) + k0
        better = m < best
        best = tl.where(better, m, best)
        best_i = tl.where(better, mi, best_i)
    tl.store(LAB + b * N + offs_m, best_i, mask=offs_m < N)
    tl.store(DIST + b * N + offs_m, best, mask=offs_m < N)


def triton_assign(X, C, CN, BM=128, BN=128):
    B, N, D = X.shape
    K = C.shape[1]
    lab = torch.empty((B, N), dtype=torch.int32, device=X.device)
    dist = torch.empty((B, N), dtype=torch.float32, device=X.device)
    grid = (triton.cdiv(N, BM), B)
    kmeans_assign[grid](X, C, CN, lab, dist, N, K, D=D, BM=BM, BN=min(BN, K), num_warps=8, num_stages=3)
    return lab, dist


def kmeans(B, N, K, D):
    g = torch.Generator(device="cuda").manual_seed(1)
    X = (torch.rand((B, N, D), device="cuda", generator=g) * 2 - 1).to(torch.bfloat16)
    C = (torch.rand((B, K, D), device="cuda", generator=g) * 2 - 1).to(torch.bfloat16)
    CN = (C.float() ** 2).sum(-1)

    def torch_ref():
        return (CN[:, None, :] - 2.0 * torch.bmm(X, C.transpose(1, 2)).float()).argmin(-1)

    ref = torch_ref()
    lab, dist = triton_assign(X, C, CN)
    torch.cuda.synchronize()
    dots = torch.bmm(X.float(), C.float().transpose(1, 2))
    d_all = CN[:, None, :] - 2 * dots
    best = d_all.min(-1).values
    mine = d_all.gather(-1, lab.long()[..., None])[..., 0]
    ties_ok = ((mine - best) <= 1e-3 * best.abs().clamp(min=1)).float().mean().item()
    agree = (lab.long() == ref).float().mean().item()
    del dots, d_all
    t_triton = bench(lambda: triton_assign(X, C, CN))
    t_torch = bench(torch_ref)
    emit(ref="kmeans-assign", B=B, N=N, K=K, D=D, triton_ms=t_triton, torch_bmm_argmin_ms=t_torch,
         index_agreement=agree, within_tie_tolerance=ties_ok)


def sdpa(B, H, S, D, causal):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    g = torch.Generator(device="cuda").manual_seed(2)
    q, k, v = ((torch.rand((B, H, S, D), device="cuda", generator=g) * 2 - 1).to(torch.bfloat16) for _ in range(3))
    out = {}
    for name, backend in [("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)]:
        try:
            with sdpa_kernel(backend):
                torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
                out[name + "_ms"] = bench(
                    lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal))
        except Exception as e:  # a backend the build lacks is reported, not fatal
            out[name + "_error"] = str(e)[:200]
    flops = 4.0 * B * H * S * S * D * (0.5 if causal else 1.0)
    for name in ("cudnn", "flash"):
        if name + "_ms" in out:
            out[name + "_tflops"] = flops / (out[name + "_ms"] * 1e-3) / 1e12
    emit(ref="attention-fwd", B=B, H=H, S=S, D=D, causal=int(causal), **out)


def main():
    emit(device=torch.cuda.get_device_name(0), torch=torch.__version__, triton=triton.__version__)
    jobs = [
        ("sdpa", lambda: sdpa(4, 32, 8192, 128, False)),
        ("sdpa", lambda: sdpa(4, 32, 8192, 128, True)),
        ("kmeans", lambda: kmeans(32, 65536, 1024, 128)),
        ("kmeans", lambda: kmeans(8, 65536, 128, 128)),
        ("kmeans", lambda: kmeans(8, 65536, 256, 128)),
        ("sdpa", lambda: sdpa(4, 16, 1024, 64, False)),
        ("sdpa", lambda: sdpa(1, 16, 4096, 64, False)),
        ("sdpa", lambda: sdpa(1, 8, 8192, 64, False)),
        ("sdpa", lambda: sdpa(1, 16, 4096, 64, True)),
    ]
    # --only NAME [--first N]: the jobs of one family (its first N)
    if "--only" in sys.argv:
        name = sys.argv[sys.argv.index("--only") + 1]
        jobs = [j for j in jobs if j[0] == name]
    if "--first" in sys.argv:
        jobs = jobs[:int(sys.argv[sys.argv.index("--first") + 1])]
    for _, j in jobs:
        if time.time() - T0 > BUDGET_S:
            emit(skipped="time budget reached")
            break
        try:
            j()
        except Exception as e:
            emit(error=str(e)[:300])
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
