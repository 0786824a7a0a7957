#!/usr/bin/env python3
"""The cost model's measurement plan: schedule variants and (schedule, shape) pairs.

Writes the variants (tile sizes, stages, consumer warpgroups of the corpus's
warp-specialized GEMM, k-means assignment and FA3 forward schedules) to
bench/gpu/schedules/cost_variants/, and the plan to
bench/gpu/schedules/cost_variants/plan.tsv:

    id  split  file  workload  shape  sets  kernel

split (round 1): every third pair of each workload (in plan order) is
`calibrate`, the rest `holdout`.

Round 2 (`--round 2`, docs/costmodel.md): the same schedules on shapes that
round 1 did not measure, split by shape: each schedule has one calibration
shape and its held-out shapes are others (a held-out shape is never fitted).
Round 1's records were used to develop the model; they join the calibration
set, and the accuracy is stated on round 2's held-out pairs only.

    python3 bench/gpu/cost_plan.py            # write variants + plan (round 1)
    python3 bench/gpu/cost_plan.py --round 2  # the same variants, round 2's plan (plan2.tsv)
    python3 bench/gpu/cost_plan.py --round 3  # fresh held-out shapes + 7-stage GEMM, k = 192 (plan3.tsv)
    python3 bench/gpu/cost_plan.py --round 4  # calibration round on the current lowering (plan4.tsv)
    python3 bench/gpu/cost_plan.py --round 5  # a fresh held-out set, all pairs new (plan5.tsv)
    python3 bench/gpu/cost_plan.py --round 6  # round 6's fresh held-out set (plan6.tsv)
    python3 bench/gpu/cost_plan.py --round 7  # round 7's fresh held-out set, k-means weighted (plan7.tsv)
"""
import itertools
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "bench/gpu/schedules/cost_variants")
SMEM_LIMIT = 227 * 1024 - 2048  # opt-in per block, less the lowering's alignment and the barriers

GEMM = '''# Cost-model variant of corpus/gemm/sm90_ws_4stage.cake (bench/gpu/cost_plan.py):
# CTA tile {bm}x{bn}x64, {stages} stages, {cons} consumer warpgroup(s).
# expect: pass
@cake.schedule(target="sm_90a")
def {name}(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
    pool   = lm.smem({smem})
    smem_a = pool.view(offset=0,      shape=({bm}, 64), dtype=lm.bf16, stages={stages}, swizzle="128B")
    smem_b = pool.view(offset={off_b},  shape=({bn}, 64), dtype=lm.bf16, stages={stages}, swizzle="128B")
    smem_c = pool.view(offset={off_c}, shape=(64, {bn}), dtype=lm.bf16, stages={cons})
    acc    = lm.regs(shape=(64, {bn}), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[{cwarps}], group=4, regs=232)

    pipe  = lm.pipeline(stages={stages})
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count={cons}, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * {bm}
    n_blk = lm.block_idx(1) * {bn}

    with producer:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - {stages})
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k][m0:m0 + 64, :], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.copy(smem_c[lm.instance()], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
'''

KMEANS = '''# Cost-model variant of corpus/kmeans/sm90_assign_k256_ws.cake (bench/gpu/cost_plan.py):
# k = {k} centroids, {bp} points per CTA ({cons} consumer warpgroup(s)), D streamed in
# 64-wide chunks through {stages} stages.
# expect: pass
@cake.schedule(target="sm_90a")
def {name}(lm, X: LM.tma2d, Cn: LM.tma2d, CN: LM.gmem, Lab: LM.gmem, N: LM.i32, D: LM.i32):
    lm.assume(D > 0)
    pool   = lm.smem({smem})
    smem_x = pool.view(offset=0,     shape=({bp}, 64), dtype=lm.bf16, stages={stages}, swizzle="128B")
    smem_c = pool.view(offset={off_c}, shape=({k}, 64), dtype=lm.bf16, stages={stages}, swizzle="128B")
    dots   = lm.regs(shape=(64, {k}), dtype=lm.f32)
    cn     = lm.regs(shape=(1, {k}), dtype=lm.f32)
    lab    = lm.regs(shape=(64, 1), dtype=lm.i32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[{cwarps}], group=4, regs=232)
    pipe  = lm.pipeline(stages={stages})
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count={cons}, pipeline=pipe)

    d_tiles = lm.cdiv(D, 64)
    p0 = lm.block_idx(0) * {bp}

    with producer:
        for k in lm.range(0, d_tiles):
            lm.wait(empty, iter=k - {stages})
            smem_x.tma_load(X, coords=(p0, k * 64), iter=k, barrier=full)
            smem_c.tma_load(Cn, coords=(0, k * 64), iter=k, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        for k in lm.range(0, d_tiles):
            lm.wait(full, iter=k)
            lm.mma(dots, smem_x[k][m0:m0 + 64, :], smem_c[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.copy(cn, CN, coords=(0, 0))
        lm.binary(dots, dots, -2.0, op="mul")
        lm.binary(dots, dots, cn, op="add")
        lm.reduce(lab, dots, op="argmin", axis=1)
        lm.copy(Lab, lab, coords=(p0 + m0, 0))
'''


def gemm_variants(deep=False):
    """deep (round 3): also 7-stage rings where they fit (BN = 64)."""
    for cons, bn, stages in itertools.product([1, 2], [64, 128, 256], [2, 3, 4, 5, 6] + ([7] if deep else [])):
        bm = 64 * cons
        a, b = bm * 128, bn * 128
        off_b = a * stages
        off_c = off_b + b * stages
        smem = off_c + cons * 64 * bn * 2
        if smem > SMEM_LIMIT:
            continue
        if cons == 1 and stages in (5,):
            continue  # keep the sweep small: 2, 3, 4, 6 stages for one consumer
        name = f"gemm_ws_m{bm}n{bn}s{stages}"
        cwarps = ", ".join(str(w) for w in range(4, 4 + 4 * cons))
        yield name, GEMM.format(name=name, bm=bm, bn=bn, stages=stages, cons=cons, smem=smem, off_b=off_b,
                                off_c=off_c, cwarps=cwarps)


def kmeans_variants(ks=(64, 128, 256)):
    for k, cons, stages in itertools.product(ks, [1, 2], [2, 4]):
        bp = 64 * cons
        off_c = bp * 128 * stages
        smem = off_c + k * 128 * stages
        if smem > SMEM_LIMIT:
            continue
        name = f"kmeans_k{k}_p{bp}s{stages}"
        cwarps = ", ".join(str(w) for w in range(4, 4 + 4 * cons))
        yield name, k, KMEANS.format(name=name, k=k, bp=bp, stages=stages, cons=cons, smem=smem, off_c=off_c,
                                     cwarps=cwarps)


def attention_variants():
    """FA3 forward with 2 or 3 K/V stages (the corpus schedule is 2)."""
    src = open(os.path.join(ROOT, "corpus/attention/sm90_fa3_fwd.cake")).read()
    body = src[src.index("@cake.schedule"):]
    yield "fa3_s2", "corpus/attention/sm90_fa3_fwd.cake", None
    # 3 stages: K and V rings of 3 slots (pool grows by one K and one V slot)
    b3 = (body.replace("def fa3_fwd(", "def fa3_fwd_s3(")
          .replace("pool    = lm.smem(65536)", "pool    = lm.smem(81920)")
          .replace("smem_k  = pool.view(offset=16384, shape=(64, 64),  dtype=lm.bf16, stages=2,",
                   "smem_k  = pool.view(offset=16384, shape=(64, 64),  dtype=lm.bf16, stages=3,")
          .replace("smem_vt = pool.view(offset=32768, shape=(64, 64),  dtype=lm.bf16, stages=2,",
                   "smem_vt = pool.view(offset=40960, shape=(64, 64),  dtype=lm.bf16, stages=3,")
          .replace("smem_o  = pool.view(offset=49152,", "smem_o  = pool.view(offset=65536,")
          .replace("kv      = lm.pipeline(stages=2)", "kv      = lm.pipeline(stages=3)")
          .replace("iter=j - 2)", "iter=j - 3)"))
    assert b3.count("stages=3") >= 3, "fa3 template drifted"
    yield "fa3_s3", None, ("# Cost-model variant of corpus/attention/sm90_fa3_fwd.cake (bench/gpu/cost_plan.py):\n"
                           "# 3-slot K and V rings.\n# expect: pass\n" + b3)


def round2_rows(write):
    """Round 2: (workload, file, shape, sets, kernel, split), shapes new to round 1."""
    rows = []
    gemm_cal = "M=8192,N=2048,K=2048"
    gemm_hold = ["M=3072,N=4096,K=4096", "M=1024,N=2048,K=8192", "M=32,N=16384,K=4096", "M=192,N=4096,K=8192",
                 "M=96,N=12288,K=2048", "M=6144,N=6144,K=2048"]
    files = [write(name, text) for name, text in gemm_variants()]
    files += ["corpus/gemm/sm90_ws_4stage.cake", "corpus/gemm/sm90_pingpong.cake",
              "corpus/gemm/sm90_persistent_ws.cake", "corpus/gemm/sm90_basic_one_consumer.cake"]
    for i, f in enumerate(files):
        rows.append(("gemm", f, gemm_cal, "", "", "calibrate"))
        for sh in (gemm_hold[i % 3 * 2], gemm_hold[i % 3 * 2 + 1]):
            rows.append(("gemm", f, sh, "", "", "holdout"))
    for name, k, text in kmeans_variants():
        f = write(name, text)
        rows.append(("kmeans-assign", f, f"N=16384,K={k},D=128,B=16", "", name, "calibrate"))
        for n, d, b in [(131072, 128, 2), (65536, 256, 2)]:
            rows.append(("kmeans-assign", f, f"N={n},K={k},D={d},B={b}", "", name, "holdout"))
    res = "corpus/kmeans/sm90_assign_resident_centroids.cake"
    rows.append(("kmeans-assign", res, "N=131072,K=128,D=128,B=4", "", "", "calibrate"))
    for sh in ["N=524288,K=128,D=128,B=1", "N=32768,K=128,D=128,B=16"]:
        rows.append(("kmeans-assign", res, sh, "", "", "holdout"))
    files = [corpus or write(name, text) for name, corpus, text in attention_variants()]
    files.append("corpus/attention/sm90_fa3_persistent.cake")
    for f in files:
        rows.append(("attention-fwd", f, "S=1536,D=64,B=4,H=8", "", "", "calibrate"))
        for sh in ["S=512,D=64,B=8,H=16", "S=3072,D=64,B=2,H=8", "S=6144,D=64,B=1,H=16", "S=16384,D=64,B=1,H=4"]:
            rows.append(("attention-fwd", f, sh, "", "", "holdout"))
    return rows


def round3_rows(write):
    """Round 3: every pair held out, on shapes no earlier round (nor the tune sweeps of
    docs/search.md, whose shapes are powers of two) measured. The calibration set is
    rounds 1 and 2 and the tune sweeps, all of which were read while the model was
    developed. New schedules too: 7-stage GEMM rings (BN = 64) and k = 192 k-means."""
    rows = []
    gemm_hold = ["M=2560,N=1536,K=3072", "M=1536,N=768,K=6144", "M=128,N=6144,K=6144", "M=5120,N=3072,K=1536",
                 "M=48,N=8192,K=8192", "M=384,N=1024,K=6144"]
    files = [write(name, text) for name, text in gemm_variants(deep=True)]
    files += ["corpus/gemm/sm90_ws_4stage.cake", "corpus/gemm/sm90_pingpong.cake",
              "corpus/gemm/sm90_persistent_ws.cake", "corpus/gemm/sm90_basic_one_consumer.cake"]
    for i, f in enumerate(files):
        for sh in (gemm_hold[i % 3 * 2], gemm_hold[i % 3 * 2 + 1]):
            rows.append(("gemm", f, sh, "", "", "holdout"))
    for name, k, text in kmeans_variants(ks=(64, 128, 192, 256)):
        f = write(name, text)
        for n, d, b in [(98304, 192, 3), (40960, 64, 12)]:
            rows.append(("kmeans-assign", f, f"N={n},K={k},D={d},B={b}", "", name, "holdout"))
    res = "corpus/kmeans/sm90_assign_resident_centroids.cake"
    for sh in ["N=196608,K=128,D=128,B=2", "N=24576,K=128,D=128,B=12"]:
        rows.append(("kmeans-assign", res, sh, "", "", "holdout"))
    files = [corpus or write(name, text) for name, corpus, text in attention_variants()]
    files.append("corpus/attention/sm90_fa3_persistent.cake")
    for f in files:
        for sh in ["S=2560,D=64,B=4,H=8", "S=768,D=64,B=8,H=24", "S=5120,D=64,B=1,H=12", "S=10240,D=64,B=1,H=6"]:
            rows.append(("attention-fwd", f, sh, "", "", "holdout"))
    return rows


def gemm_files(write, pick, extra):
    """The picked GEMM variants (written), the corpus's three sm_90a warp-specialized GEMMs, then `extra`."""
    return ([write(name, text) for name, text in gemm_variants(deep=True) if name in pick] +
            ["corpus/gemm/sm90_ws_4stage.cake", "corpus/gemm/sm90_pingpong.cake", "corpus/gemm/sm90_persistent_ws.cake"]
            + extra)


D128_STEMS = ["fa3_d128_b128", "fa3_d128_overlap", "fa3_d128_pingpong", "fa3_d128_fold", "fa3_d128_fold_early",
              "fa3_d128_fold_pingpong", "fa3_d128_fold_early_pingpong"]


def round4_rows(write):
    """Round 4 (docs/costmodel.md, "Round 4"): a calibration round on the current lowering.
    Every pair is measured in one call; each schedule has two calibration shapes and two
    held-out shapes from disjoint shape lists, none of them measured by an earlier round
    (nor the fresh attention pairs of bench/gpu/schedules/cost_fresh_pairs.tsv, which stay
    held out). Variants of tile, ring depth, consumer count, roles (ping-pong, persistent,
    one consumer, overlapped softmax) and small M."""
    rows = []
    gemm_cal = ["M=3584,N=2048,K=2560", "M=80,N=10240,K=4096"]
    gemm_hold = ["M=2816,N=3328,K=2048", "M=160,N=7168,K=5120", "M=4608,N=1280,K=3584", "M=64,N=6656,K=6144",
                 "M=1792,N=2304,K=4608", "M=224,N=4864,K=3072"]
    pick = {"gemm_ws_m64n64s2", "gemm_ws_m64n128s4", "gemm_ws_m64n256s3", "gemm_ws_m64n64s7",
            "gemm_ws_m128n64s7", "gemm_ws_m128n128s2", "gemm_ws_m128n128s5", "gemm_ws_m128n256s3"}
    files = gemm_files(write, pick, ["corpus/gemm/sm90_basic_one_consumer.cake",
                                     "bench/gpu/schedules/sm90_pingpong_128.cake", "bench/gpu/schedules/sm90_ws_128_s6.cake",
                                     "bench/gpu/schedules/sm90_ws_bn256_s4.cake", "bench/gpu/schedules/sm90_small_m.cake"])
    for i, f in enumerate(files):
        for sh in gemm_cal:
            rows.append(("gemm", f, sh, "", "", "calibrate"))
        for sh in (gemm_hold[i % 3 * 2], gemm_hold[i % 3 * 2 + 1]):
            rows.append(("gemm", f, sh, "", "", "holdout"))
    kpick = {"kmeans_k64_p64s2", "kmeans_k64_p128s4", "kmeans_k128_p64s4", "kmeans_k128_p128s2",
             "kmeans_k192_p64s2", "kmeans_k192_p128s2", "kmeans_k256_p64s2", "kmeans_k256_p128s2"}
    for name, k, text in kmeans_variants(ks=(64, 128, 192, 256)):
        if name not in kpick:
            continue
        f = write(name, text)
        for (n, d, b), split in [((57344, 128, 6), "calibrate"), ((20480, 256, 4), "calibrate"),
                                 ((73728, 192, 4), "holdout"), ((28672, 64, 16), "holdout")]:
            rows.append(("kmeans-assign", f, f"N={n},K={k},D={d},B={b}", "", name, split))
    f = "corpus/kmeans/sm90_assign_k256_ws.cake"
    for sh, split in [("N=57344,K=256,D=128,B=6", "calibrate"), ("N=20480,K=256,D=256,B=4", "calibrate"),
                      ("N=73728,K=256,D=192,B=4", "holdout"), ("N=28672,K=256,D=64,B=16", "holdout")]:
        rows.append(("kmeans-assign", f, sh, "", "", split))
    f = "corpus/kmeans/sm90_assign_resident_centroids.cake"
    for sh, split in [("N=229376,K=128,D=128,B=2", "calibrate"), ("N=40960,K=128,D=128,B=8", "calibrate"),
                      ("N=344064,K=128,D=128,B=1", "holdout"), ("N=12288,K=128,D=128,B=24", "holdout")]:
        rows.append(("kmeans-assign", f, sh, "", "", split))
    for f in ["corpus/kmeans/sm90_assign_streamed_centroids.cake", "bench/gpu/schedules/kmeans_assign_pingpong.cake"]:
        for sh, split in [("N=32768,K=512,D=128,B=8", "calibrate"), ("N=16384,K=256,D=128,B=16", "calibrate"),
                          ("N=49152,K=384,D=128,B=6", "holdout"), ("N=24576,K=768,D=128,B=4", "holdout")]:
            rows.append(("kmeans-assign", f, sh, "", "", split))
    d64 = [("S=3584,D=64,B=2,H=12", "calibrate"), ("S=1280,D=64,B=8,H=16", "calibrate"),
           ("S=6656,D=64,B=1,H=16", "holdout"), ("S=2304,D=64,B=4,H=12", "holdout")]
    d128 = [("S=3072,D=128,B=2,H=16", "calibrate"), ("S=1024,D=128,B=8,H=24", "calibrate"),
            ("S=5120,D=128,B=1,H=24", "holdout"), ("S=2560,D=128,B=4,H=16", "holdout")]
    files = [corpus or write(name, text) for name, corpus, text in attention_variants()]
    files.append("corpus/attention/sm90_fa3_persistent.cake")
    for f in files:
        for sh, split in d64:
            rows.append(("attention-fwd", f, sh, "", "", split))
    for stem in D128_STEMS:
        for sh, split in d128:
            rows.append(("attention-fwd", f"bench/gpu/schedules/attn_d128/{stem}.cake", sh, "", "", split))
    return rows


def fresh_rows(write, gemm_hold, pick, gemm_extra, small_m, kpick, kshapes, kfiles, d64, d128):
    """A fresh held-out set (rounds 5 and 6), every pair held out: the picked GEMM variants,
    the corpus's three warp-specialized GEMMs and `gemm_extra`, each at two of `gemm_hold`
    (rotating); `small_m` [(file, [shapes])]; the picked k-means variants at `kshapes`
    [(N, D, B)]; `kfiles` [(file, [shapes])]; the three D = 64 FA3 schedules at `d64`, the
    seven D = 128 ones at `d128`."""
    rows = []
    for i, f in enumerate(gemm_files(write, pick, gemm_extra)):
        for sh in (gemm_hold[i % 3 * 2], gemm_hold[i % 3 * 2 + 1]):
            rows.append(("gemm", f, sh, "", "", "holdout"))
    for f, shapes in small_m:
        for sh in shapes:
            rows.append(("gemm", f, sh, "", "", "holdout"))
    for name, k, text in kmeans_variants(ks=(64, 128, 192, 256)):
        if name not in kpick:
            continue
        f = write(name, text)
        for n, d, b in kshapes:
            rows.append(("kmeans-assign", f, f"N={n},K={k},D={d},B={b}", "", name, "holdout"))
    for f, shapes in kfiles:
        for sh in shapes:
            rows.append(("kmeans-assign", f, sh, "", "", "holdout"))
    files = [corpus or write(name, text) for name, corpus, text in attention_variants()]
    files.append("corpus/attention/sm90_fa3_persistent.cake")
    for f in files:
        for sh in d64:
            rows.append(("attention-fwd", f, sh, "", "", "holdout"))
    for stem in D128_STEMS:
        for sh in d128:
            rows.append(("attention-fwd", f"bench/gpu/schedules/attn_d128/{stem}.cake", sh, "", "", "holdout"))
    return rows


def round5_rows(write):
    """Round 5 (docs/costmodel.md, "Round 5"): a fresh held-out set, every pair held out.
    Written and committed, with the fitted coefficients, before any of it was measured.
    No (schedule, shape) pair of any earlier round: the GEMM and k-means variants that
    round 4 did not pick (rounds 1-3 measured them on an older lowering, at other shapes),
    schedules of bench/gpu/schedules/ no cost round measured (ping-pong 128x192 / 192x128 /
    5-slot, BN = 256 with and without persistence, M <= 16), and every shape new."""
    return fresh_rows(
        write,
        gemm_hold=["M=3328,N=2560,K=2304", "M=112,N=8704,K=3584", "M=2304,N=3840,K=1792", "M=48,N=9216,K=5632",
                   "M=4352,N=1536,K=2816", "M=272,N=5632,K=2560"],
        pick={"gemm_ws_m64n64s4", "gemm_ws_m64n128s2", "gemm_ws_m64n128s6", "gemm_ws_m64n256s2",
              "gemm_ws_m128n64s3", "gemm_ws_m128n64s5", "gemm_ws_m128n128s3", "gemm_ws_m128n128s6",
              "gemm_ws_m128n256s2"},
        gemm_extra=["bench/gpu/schedules/sm90_pingpong_128_s5.cake", "bench/gpu/schedules/sm90_pingpong_128x192.cake",
                    "bench/gpu/schedules/sm90_pingpong_192x128.cake", "bench/gpu/schedules/sm90_ws_bn256.cake",
                    "bench/gpu/schedules/sm90_ws_bn256_persistent.cake"],
        small_m=[("bench/gpu/schedules/sm90_small_m16.cake", ["M=16,N=12288,K=4096", "M=8,N=7680,K=6144"])],
        kpick={"kmeans_k64_p128s2", "kmeans_k128_p64s2", "kmeans_k128_p128s4", "kmeans_k192_p64s4",
               "kmeans_k256_p64s4", "kmeans_k256_p128s4"},
        kshapes=[(45056, 128, 5), (26624, 192, 6)],
        kfiles=[("corpus/kmeans/sm90_assign_k256_ws.cake", ["N=45056,K=256,D=128,B=5", "N=14336,K=256,D=256,B=7"]),
                ("corpus/kmeans/sm90_assign_resident_centroids.cake",
                 ["N=163840,K=128,D=128,B=3", "N=20480,K=128,D=128,B=14"]),
                ("corpus/kmeans/sm90_assign_streamed_centroids.cake",
                 ["N=40960,K=640,D=128,B=5", "N=20480,K=896,D=128,B=10"]),
                ("bench/gpu/schedules/kmeans_assign_pingpong.cake",
                 ["N=40960,K=640,D=128,B=5", "N=20480,K=896,D=128,B=10"])],
        d64=["S=4608,D=64,B=2,H=10", "S=1792,D=64,B=6,H=14"],
        d128=["S=3584,D=128,B=2,H=20", "S=1536,D=128,B=6,H=12"])


def round6_rows(write):
    """Round 6 (docs/costmodel.md, "Round 6"): a fresh held-out set, every pair held out,
    written and committed with the refitted coefficients before any of it was measured.
    Every (schedule, shape) pair is new: GEMM variants the two rounds on the current
    lowering did not measure (m64n64s3/s6, m64n128s3/s7, m64n256s4, m128n64s2/s4/s6,
    m128n128s4), role variants no cost round measured (corpus sm90_ws_shared_epilogue,
    bench sm90_pingpong_128x192_r240, sm90_ws_bn256_tma), the corpus and bench schedules
    of earlier rounds, the two small-M schedules at M <= 72, k-means variants new
    (k64_p64s4, k192_p128s4) and old, and the ten FA3 schedules, all on shapes no round
    measured."""
    return fresh_rows(
        write,
        gemm_hold=["M=2816,N=4608,K=1536", "M=96,N=10752,K=3072", "M=3840,N=1792,K=3328", "M=32,N=11264,K=4608",
                   "M=1280,N=5376,K=2560", "M=208,N=6400,K=3840"],
        pick={"gemm_ws_m64n64s3", "gemm_ws_m64n64s6", "gemm_ws_m64n128s3", "gemm_ws_m64n128s7", "gemm_ws_m64n256s4",
              "gemm_ws_m128n64s2", "gemm_ws_m128n64s4", "gemm_ws_m128n64s6", "gemm_ws_m128n128s4"},
        gemm_extra=["corpus/gemm/sm90_ws_shared_epilogue.cake", "bench/gpu/schedules/sm90_pingpong_128.cake",
                    "bench/gpu/schedules/sm90_pingpong_128x192_r240.cake", "bench/gpu/schedules/sm90_ws_bn256_tma.cake",
                    "bench/gpu/schedules/sm90_ws_128_s6.cake"],
        small_m=[("bench/gpu/schedules/sm90_small_m16.cake", ["M=12,N=10240,K=3584", "M=4,N=14336,K=2048"]),
                 ("bench/gpu/schedules/sm90_small_m.cake", ["M=40,N=8448,K=4096", "M=72,N=5120,K=6656"])],
        kpick={"kmeans_k64_p64s4", "kmeans_k192_p128s4", "kmeans_k128_p64s4", "kmeans_k256_p128s2",
               "kmeans_k64_p128s4"},
        kshapes=[(36864, 128, 7), (22528, 256, 5)],
        kfiles=[("corpus/kmeans/sm90_assign_k256_ws.cake", ["N=36864,K=256,D=128,B=7", "N=18432,K=256,D=192,B=9"]),
                ("corpus/kmeans/sm90_assign_resident_centroids.cake",
                 ["N=114688,K=128,D=128,B=4", "N=53248,K=128,D=128,B=6"]),
                ("corpus/kmeans/sm90_assign_streamed_centroids.cake",
                 ["N=24576,K=1024,D=128,B=6", "N=57344,K=512,D=128,B=4"]),
                ("bench/gpu/schedules/kmeans_assign_pingpong.cake",
                 ["N=24576,K=1024,D=128,B=6", "N=57344,K=512,D=128,B=4"])],
        d64=["S=3328,D=64,B=3,H=8", "S=5632,D=64,B=1,H=18"],
        d128=["S=2816,D=128,B=3,H=14", "S=4352,D=128,B=1,H=28"])


def round7_rows(write):
    """Round 7 (docs/costmodel.md, "Round 7"): a fresh held-out set, every pair held out,
    written and committed with the round-7 model and its fit (on every record of rounds
    4-6) before any of it was measured. Weighted to k-means (24 pairs: eight variants two
    per k, at D = 192 and the never-measured D = 320 with B = 10 launches, and the four
    corpus / bench schedules at new N, K, B), GEMM with four small-M pairs (M <= 96) and
    one small-M shape per schedule, and the ten FA3 schedules; every shape new."""
    return fresh_rows(
        write,
        gemm_hold=["M=2560,N=3584,K=1792", "M=56,N=9728,K=4608", "M=4096,N=1536,K=3072", "M=24,N=12800,K=3584",
                   "M=1536,N=4352,K=2816", "M=176,N=7424,K=3328"],
        pick={"gemm_ws_m64n64s2", "gemm_ws_m64n128s4", "gemm_ws_m64n256s3", "gemm_ws_m128n64s7",
              "gemm_ws_m128n128s2", "gemm_ws_m128n128s5", "gemm_ws_m128n256s3"},
        gemm_extra=["bench/gpu/schedules/sm90_pingpong_128_s5.cake", "bench/gpu/schedules/sm90_pingpong_192x128.cake"],
        small_m=[("bench/gpu/schedules/sm90_small_m16.cake", ["M=14,N=9216,K=5120", "M=6,N=12288,K=2560"]),
                 ("bench/gpu/schedules/sm90_small_m.cake", ["M=56,N=6144,K=5632", "M=96,N=7680,K=3072"])],
        kpick={"kmeans_k64_p64s2", "kmeans_k64_p128s2", "kmeans_k128_p64s2", "kmeans_k128_p128s2",
               "kmeans_k192_p64s4", "kmeans_k192_p128s2", "kmeans_k256_p64s2", "kmeans_k256_p128s4"},
        kshapes=[(61440, 192, 3), (14336, 320, 10)],
        kfiles=[("corpus/kmeans/sm90_assign_k256_ws.cake", ["N=51200,K=256,D=128,B=4", "N=12288,K=256,D=320,B=11"]),
                ("corpus/kmeans/sm90_assign_resident_centroids.cake",
                 ["N=147456,K=128,D=128,B=2", "N=28672,K=128,D=128,B=10"]),
                ("corpus/kmeans/sm90_assign_streamed_centroids.cake",
                 ["N=32768,K=768,D=128,B=5", "N=14336,K=1152,D=128,B=12"]),
                ("bench/gpu/schedules/kmeans_assign_pingpong.cake",
                 ["N=32768,K=768,D=128,B=5", "N=14336,K=1152,D=128,B=12"])],
        d64=["S=2816,D=64,B=4,H=10", "S=7168,D=64,B=1,H=12"],
        d128=["S=3328,D=128,B=2,H=18", "S=1792,D=128,B=5,H=16"])


def main():
    os.makedirs(OUT, exist_ok=True)
    rnd = sys.argv[sys.argv.index("--round") + 1] if "--round" in sys.argv else "1"
    if rnd in ("2", "3", "4", "5", "6", "7"):
        def write2(name, text):
            path = os.path.join(OUT, name + ".cake")
            with open(path, "w") as f:
                f.write(text)
            return os.path.relpath(path, ROOT)
        rows = {"2": round2_rows, "3": round3_rows, "4": round4_rows, "5": round5_rows, "6": round6_rows,
                "7": round7_rows}[rnd](write2)
        prefix = {"2": "q", "3": "r", "4": "c", "5": "f", "6": "g", "7": "h"}[rnd]
        with open(os.path.join(OUT, f"plan{rnd}.tsv"), "w") as out:
            for i, (w, f, sh, sets, kernel, split) in enumerate(rows):
                out.write(f"{prefix}{i:03d}\t{split}\t{f}\t{w}\t{sh}\t{sets}\n")
        print(f"round {rnd}: {len(rows)} pairs, {sum(r[5] == 'holdout' for r in rows)} held out")
        return
    rows = []  # (workload, file, shape, sets, kernel)

    def write(name, text):
        path = os.path.join(OUT, name + ".cake")
        with open(path, "w") as f:
            f.write(text)
        return os.path.relpath(path, ROOT)

    gemm_shapes = ["M=4096,N=4096,K=4096", "M=2048,N=2048,K=4096"]
    small_m = ["M=64,N=8192,K=4096", "M=128,N=8192,K=8192", "M=256,N=8192,K=8192"]
    for i, (name, text) in enumerate(gemm_variants()):
        f = write(name, text)
        shapes = list(gemm_shapes)
        shapes.append(small_m[i % 3])
        for sh in shapes:
            rows.append(("gemm", f, sh, "", name))
    for extra in ["corpus/gemm/sm90_ws_4stage.cake", "corpus/gemm/sm90_pingpong.cake",
                  "corpus/gemm/sm90_persistent_ws.cake", "corpus/gemm/sm90_basic_one_consumer.cake"]:
        for sh in gemm_shapes + small_m[1:2]:
            rows.append(("gemm", extra, sh, "", ""))
    for name, k, text in kmeans_variants():
        f = write(name, text)
        for n, d, b in [(65536, 128, 8), (32768, 256, 4)]:
            rows.append(("kmeans-assign", f, f"N={n},K={k},D={d},B={b}", "", name))
    for sh in ["N=65536,K=128,D=128,B=8", "N=262144,K=128,D=128,B=1"]:
        rows.append(("kmeans-assign", "corpus/kmeans/sm90_assign_resident_centroids.cake", sh, "", ""))
    for name, corpus, text in attention_variants():
        f = corpus or write(name, text)
        for sh in ["S=1024,D=64,B=4,H=16", "S=2048,D=64,B=2,H=16", "S=4096,D=64,B=1,H=16", "S=8192,D=64,B=1,H=8"]:
            rows.append(("attention-fwd", f, sh, "", name))
    for sh in ["S=2048,D=64,B=2,H=16", "S=4096,D=64,B=1,H=16"]:
        rows.append(("attention-fwd", "corpus/attention/sm90_fa3_persistent.cake", sh, "", ""))
    for sh in ["M=16384,N=8192", "M=65536,N=2048"]:
        rows.append(("row-max", "corpus/reduction/sm90_row_max_two_wg.cake", sh, "", ""))

    count = {}
    with open(os.path.join(OUT, "plan.tsv"), "w") as out:
        for i, (w, f, sh, sets, kernel) in enumerate(rows):
            n = count.get(w, 0)
            count[w] = n + 1
            split = "calibrate" if n % 3 == 0 else "holdout"
            out.write(f"p{i:03d}\t{split}\t{f}\t{w}\t{sh}\t{sets}\n")
    print(f"{len(rows)} pairs:", ", ".join(f"{w} {n}" for w, n in count.items()))


if __name__ == "__main__":
    main()
