#!/usr/bin/env python3
"""Generate the decode-shape GEMM schedules (issue 13, M <= 128).

C[M,N] = A[M,K] . B[N,K]^T in bf16 (f32 accumulate). At decode sizes the
time is streaming B (N x K) from DRAM once, so the schedule wants one wave
of CTAs that each keep many bytes of B in flight and consume them fast:

  * a 64 x BN output tile per CTA (BN small: N / BN CTAs ~ one or two per SM);
  * a deep TMA ring (S slots of a 64x64 A box and a BNx64 B box) filled by
    one elected thread of the load warp;
  * W consumer warpgroups that split the K loop ("sliced-K", as
    corpus/splitk/sm90_sliced_k_two_wg.cake): instance i takes the k-blocks
    with k % W == i, keeps one wgmma group in flight (mma_wait(pending=1))
    and frees the slot of its previous k-block (k - W); S is a multiple of
    W, so a slot is always consumed by the same warpgroup;
  * the partials of instances 1..W-1 go through smem (one f32 slot each)
    and a named barrier to instance 0, which adds them, converts to bf16
    and TMA-stores the tile (clipped at M and N).

For M = 128 the "m128" variants put the two warpgroups on the two m64
halves of a 128 x BN tile instead (cooperative, as corpus/gemm/sm90_ws_4stage.cake),
so B is streamed once per 128 rows; each releases its previous k-block (empty
init_count 2).

Split-K over CTAs (`cake run --split-k S`, two kernels as
corpus/splitk/sm90_splitk_partials.cake): the "splitk" files hold a partial
kernel (64 x BN tile, one consumer warpgroup, K slice lm.block_idx(2) of
lm.grid_dim(2) = S slices, f32 partial tile TMA-stored into the workspace
W[S, M, N]) and a reduce kernel (64 x RBN tiles of W streamed over S through
a 4-slot ring, summed, stored as bf16 C). S is a run-time choice (W's outer
size), so one file serves every split count; fewer k-blocks per CTA and
wider tiles at N = 4096 are what the split buys.

The "_pdl" pairs chain the two kernels with programmatic dependent launch:
the partial kernel's consumers run lm.launch_dependents() at their start, so
the reduce grid is launched (and its CTAs take the SMs the partial CTAs
leave) while the partial kernel streams B; the reduce names W in
lm.grid_dependency and its load warp runs lm.grid_dep_wait() before the
first TMA load of W (griddepcontrol.wait: the partial grid has completed and
its stores are visible). The partial kernel, itself PDL-launched behind
whatever grid precedes it, names A (the previous layer writes it) and W (the
previous split-K reduce reads it) and waits before loading A and before
storing W. `cake run --split-k` refuses a PDL reduce that does not name W.

The "_rg{RBN}_pdl" pairs keep the _pdl partial kernel and read W in the reduce
with plain global loads (reduce_global): RBN columns of one output row per CTA,
no smem, no TMA, no barriers (docs/benchmarks.md "A split-K reduce with plain
global loads").

Seventh pass (docs/benchmarks.md "Wider reduce rows; three partial-kernel layouts
that did not help"): reduces of 1,024-4,096 columns per CTA (_rg1024 wins at M = 128),
partial CTAs of <= 115 KB (two per SM), "_m128" partials (a 128-row tile, two
warpgroups) and "_ar_" partials (A from registers, schedule_splitk_areg); only
_rg1024 was kept as a winner, the others stay as measured, verified data points.

Ninth pass (helper decode, docs/benchmarks.md "Decode: the transposed wgmma's issue order, wide
transposed tiles, a 64x64 tile at M = 128"): transposed tiles with 5-10 ring slots and the
1,024-column reduce, 448-column transposed tiles (split_columns: two column chunks), 128 x 128
partials, and the plain 64 x 64 13-slot tile (sm90_decode_bn64_s13_w1, the winner at
128 x 4096 x 4096 without split-K).

Session 13 (helper decode, docs/benchmarks.md "Decode, session 13"): the global-load reduce with
U slices of W loaded per iteration before their adds (reduce_global's u, U_SPLITK_VARIANTS,
suffix _rg{RBN}u{U}: the split-K tail at S = 4 / 8 and M <= 8), and transposed tiles over the
whole K without split-K (schedule_tplain, T_PLAIN_VARIANTS, sm90_decode_t{ROWS}_bn{BN}_s{S}).

Session 14 (helper decode, docs/benchmarks.md "Decode, session 14"): shallower rings for the transposed
16 / 32-row partials at N = K = 4096 (t16_bn64_s10, t32_bn64_s8: 1.012 / 1.020 where the 20 / 16-slot
rings gave 0.970 / 0.961 in the same call), and transposed partials in a (1, 2, 1) cluster whose CTAs
each load half of the shared A k-block, multicast to both (cluster_a_multicast, suffix _c2).

Usage: gen.py OUT_DIR  (writes sm90_decode_bn{BN}_s{S}_w{W}.cake for VARIANTS,
sm90_decode_m128_bn{BN}_s{S}.cake for M128_VARIANTS and
sm90_decode_splitk_bn{BN}_s{S}.cake for SPLITK_VARIANTS)
"""
import sys

# (BN, S, W[, rot]): BN = tile width (wgmma n), S = ring slots, W = consumer warpgroups,
# rot: the CTA's K walk starts at k-block (block_idx(1) * k_tiles) // grid_dim(1) and wraps
# (suffix _r). Measured: M = 1 runs 20-70 % slower than M = 64 with the same B traffic;
# one hypothesis (not measured) is that without the rotation every CTA reads the same A
# k-block at the same time, at M = 1 one 128-B line served by one L2 slice.
VARIANTS = [
    (32, 16, 2, True), (32, 18, 1, True), (112, 8, 2, True), (112, 9, 1, True), (64, 12, 2, True),
    (32, 16, 2), (32, 16, 4), (16, 8, 2), (64, 12, 2),
    (112, 8, 2), (56, 4, 2), (128, 6, 2), (32, 8, 2),
    (64, 13, 1),  # helper decode: cuBLAS's M = 128 tile (nvjet 64x64_64x13), 128 CTAs at 128 x 4096
]
# (ROWS, BN, S): transposed tiles over the whole K, no split-K (schedule_tplain; session 13)
T_PLAIN_VARIANTS = [(8, 128, 12), (16, 128, 12), (32, 128, 10), (8, 64, 10), (16, 64, 10),
                    (8, 128, 8), (16, 128, 8), (32, 128, 8), (32, 64, 8),  # session 15: shallower rings
                    (8, 128, 6), (16, 128, 6), (32, 128, 6), (8, 64, 8), (16, 64, 8)]
# (ROWS, BN, S): schedule_tpair, 128-wide k-blocks in two halves per slot (session 15)
T_PAIR_VARIANTS = [(8, 128, 6), (16, 128, 6), (32, 128, 5), (8, 64, 5)]
# (BN, S) for the 128-row cooperative tile
M128_VARIANTS = [(32, 10), (112, 6), (64, 8), (32, 10, True), (112, 6, True)]
# (BN, S, RBN[, pdl]): split-K partial tile width and ring slots, reduce tile width,
# the two kernels chained with programmatic dependent launch (suffix _pdl); RBN = 32: the
# reduce's W slots 128-byte swizzled (suffix _r32 on the pair's file)[, rg]: the reduce reads W
# with plain global loads, RBN columns of one row per CTA (suffix _rg{RBN}, reduce_global)
SPLITK_VARIANTS = [(128, 8, 64), (256, 4, 64), (64, 12, 64), (224, 4, 64), (96, 10, 64),
                   (128, 8, 64, True), (256, 4, 64, True), (64, 12, 64, True), (224, 4, 64, True),
                   (96, 10, 64, True),
                   (64, 12, 32), (64, 12, 32, True), (96, 10, 32, True), (128, 8, 32, True),
                   (256, 4, 32, True), (224, 4, 32, True),
                   (64, 12, 128, True, True), (64, 12, 256, True, True), (64, 12, 512, True, True), (128, 8, 256, True, True), (224, 4, 256, True, True),
                   (96, 10, 256, True, True), (256, 4, 256, True, True),
                   # decode3: wider reduce rows (fewer, fuller reduce CTAs at M = 128: 4096 columns of one
                   # row per CTA is 128 CTAs, where rg256 gives 2,048), and partial CTAs small enough for two
                   # per SM (<= 113 KB of smem each: twice the CTAs in flight, the epilogue of one CTA
                   # overlapped with the other's stream)
                   (128, 8, 1024, True, True), (128, 8, 2048, True, True), (128, 8, 4096, True, True),
                   (64, 6, 256, True, True), (128, 3, 256, True, True), (112, 3, 256, True, True)]
# (BN, S, RBN): split-K partial with a 128 x BN cooperative tile (two consumer warpgroups on the
# m64 halves, as M128_VARIANTS), so B is streamed once per 128 rows at M = 128; global-load reduce
M128_SPLITK_VARIANTS = [(64, 8, 256), (64, 8, 4096),
                        # helper decode: the 1,024-column reduce; a 128 x 128 tile (S = 4 at N = 4096: 128
                        # CTAs reading 512 KB of A and B each where the 64 x 128 S = 2 tile reads 768 KB)
                        (64, 8, 1024), (128, 5, 1024)]
# (ROWS, BN, S, RBN): split-K partial with a ROWS x BN tile, ROWS < 64 (decode M): its mma is the
# transposed wgmma (helper smallm, docs/ir-extensions.md "Transposed wgmma"), cuBLAS's decode tile
# (nvjet 64x8 splitK: the weights on the wgmma's 64-row side); global-load reduce, PDL
T_SPLITK_VARIANTS = [(8, 64, 20, 128), (8, 64, 20, 256), (16, 64, 20, 256), (32, 64, 16, 256),
                     (8, 128, 12, 256), (16, 128, 12, 256), (8, 256, 6, 256), (16, 256, 6, 256),
                     # helper decode (ninth pass, docs/benchmarks.md "Decode: reduce residency and wide
                     # transposed tiles"): shallower rings, so the reduce CTAs (no smem, but the driver's
                     # 1 KB each) fit beside a partial CTA under PDL; the 1,024-column reduce (M x N / 1024
                     # CTAs instead of M x N / 256); 448-column tiles (7 m64 blocks: 32 tiles x S = 4 is
                     # 128 CTAs at N = 14336, where 64 / 128 / 256 columns give 224 / 112 / 56 tiles)
                     (16, 64, 20, 1024), (16, 128, 10, 256), (16, 128, 10, 1024), (16, 256, 5, 256),
                     (16, 256, 5, 1024), (16, 448, 3, 1024), (32, 64, 16, 1024), (32, 128, 10, 256),
                     (32, 128, 10, 1024), (32, 256, 5, 1024), (32, 448, 2, 1024), (8, 448, 3, 256),
                     (8, 256, 6, 1024),
                     # session 14: shallower rings for 16 / 32 x 4096 x 4096 (S = 2: the partial as fast as
                     # cuBLAS's, 14.1-14.2 us, where the 20 / 16-slot rings take 14.9-15.2)
                     (16, 64, 10, 1024), (32, 64, 8, 256)]
# (ROWS, BN, S, RBN, U): the pairs of the last suite (docs/benchmarks.md "Decode, session 13") with
# the reduce that loads U slices of W per iteration before adding them (reduce_global's u)
U_SPLITK_VARIANTS = [(8, 128, 12, 256, 4), (8, 256, 6, 256, 4), (16, 64, 20, 256, 4), (16, 64, 20, 1024, 4),
                     (16, 256, 5, 256, 4), (16, 128, 10, 256, 4), (32, 64, 16, 256, 4),
                     (32, 128, 10, 256, 4), (64, 64, 12, 256, 4), (64, 128, 8, 1024, 4),
                     (8, 128, 12, 256, 2), (16, 64, 20, 256, 2),
                     (32, 256, 5, 256, 4), (8, 256, 6, 256, 8), (16, 256, 5, 256, 8), (32, 256, 5, 256, 8)]
# (ROWS, BN, S, RBN, U): session 14, transposed partials in a (1, 2, 1) cluster, A halves multicast to
# both CTAs (cluster_a_multicast, suffix _c2). Rings of 5 slots only: `cake check` models both CTAs, and
# the 8-20-slot rings were undecided at its 1,800 s wall-clock budget (146 s of CPU at load 12-20;
# docs/benchmarks.md "Decode, session 14"). Measured there: none beats the non-cluster lines by more than
# the noise, and the 5-slot ring is too shallow at S = 2 (40 KiB of B in flight)
C_SPLITK_VARIANTS = [(16, 256, 5, 256, 8), (16, 256, 5, 256, 0), (32, 256, 5, 256, 0),
                     (16, 64, 5, 1024, 0), (32, 64, 5, 256, 0)]
# (BN, S, RBN): split-K partial with A from registers and a ring of B alone (schedule_splitk_areg)
AREG_SPLITK_VARIANTS = [(64, 24, 256), (128, 12, 256), (224, 5, 256), (128, 12, 1024)]
SMEM_LIMIT = 232448  # 227 KiB of dynamic smem per CTA on sm_90
ASSUME_MNK = ["    lm.assume(M > 0)", "    lm.assume(N > 0)", "    lm.assume(K > 0)"]


def head(comment, name, params, total, views):
    """Comment, decorator, signature, assumptions, the smem pool and its views."""
    return [f"# {c}" for c in comment] + [
        "# expect: pass",
        "@cake.schedule(target=\"sm_90a\")",
        f"def {name}(lm, {params}):",
    ] + (ASSUME_MNK if "K: LM.i32" in params else []) + [f"    pool   = lm.smem({total})"] + [
        f"    {v:<6} = pool.view({spec})" for v, spec in views]


def ring(s, math_warps, load_warps, empty_count=1):
    """The consumer and load roles, the S-slot pipeline and its full/empty barriers."""
    return [
        "",
        f"    math = lm.role(warps=[{', '.join(map(str, math_warps))}], group=4)",
        f"    load = lm.role(warps=[{', '.join(map(str, load_warps))}])",
        f"    pipe  = lm.pipeline(stages={s})",
        "    full  = lm.barrier(prod=[load], cons=[math], init_count=1, pipeline=pipe)",
        f"    empty = lm.barrier(prod=[math], cons=[load], init_count={empty_count}, pipeline=pipe)",
    ]


def store(ind, view, tensor, coords):
    """TMA-store stage 0 of `view` at `coords` and wait for it."""
    return [
        ind + f"{view}.tma_store({tensor}, coords=({coords}), stage=0)",
        ind + "lm.tma_store_commit()",
        ind + "lm.tma_store_wait(pending=0)",
    ]


def load_loop(s, rot, count="k_tiles", base=""):
    """The load warp's body: A and B k-blocks into the ring, optionally rotated per CTA
    (count: the loop's trip count; base: added to k for the k-block, a split-K slice start)."""
    kk = "(k0 + k) % k_tiles" if rot else f"({base} + k)" if base else "k"
    lines = ["    with load:"]
    if rot:
        lines.append("        k0 = (lm.block_idx(1) * k_tiles) // lm.grid_dim(1)")
    lines += [
        f"        for k in lm.range(0, {count}):",
        f"            lm.wait(empty, iter=k - {s})",
    ]
    if rot:
        lines.append(f"            kk = {kk}")
        kk = "kk"
    lines += [
        f"            smem_a.tma_load(A, coords=(m_blk, {kk} * 64), iter=k, barrier=full)",
        f"            smem_b.tma_load(B, coords=(n_blk, {kk} * 64), iter=k, barrier=full)",
    ]
    return lines


def mma_loop(start, count, step, init, release_lag, a_view="smem_a[k]", first=None, operands=None):
    """A consumer's K loop: one wgmma group in flight, the slot of k - release_lag freed
    (from k >= release_lag on; `first`: that condition as written, default `k >= lag`;
    `operands`: the (a, b) views of each lm.mma of one commit group, default a_view and smem_b[k])."""
    rng = f"{start}, {count}" + (f", {step}" if step > 1 else "")
    return [
        f"        for k in lm.range({rng}):",
        "            lm.wait(full, iter=k)",
    ] + [f"            lm.mma(acc, {a}, {b}, init={init})" for a, b in operands or [(a_view, "smem_b[k]")]] + [
        "            lm.mma_commit()",
        "            lm.mma_wait(pending=1)",
        f"            if {first or f'k >= {release_lag}'}:",
        f"                lm.arrive(empty, iter=k - {release_lag})",
        "        lm.mma_wait(pending=0)",
    ]


def schedule(bn, s, w, rot=False):
    assert s % w == 0 and s > w and bn % 8 == 0
    a_bytes, b_bytes = 64 * 64 * 2, bn * 64 * 2
    off_b = s * a_bytes
    off_r = off_b + s * b_bytes
    off_c = off_r + (w - 1) * 64 * bn * 4
    total = off_c + 64 * bn * 2
    assert total <= SMEM_LIMIT, (bn, s, w, total)
    name = f"sm90_decode_bn{bn}_s{s}_w{w}" + ("_r" if rot else "")
    views = [("smem_a", f"offset=0, shape=(64, 64), dtype=lm.bf16, stages={s}, swizzle=\"128B\""),
             ("smem_b", f"offset={off_b}, shape=({bn}, 64), dtype=lm.bf16, stages={s}, swizzle=\"128B\"")]
    if w > 1:
        views.append(("smem_r", f"offset={off_r}, shape=(64, {bn}), dtype=lm.f32, stages={w - 1}"))
    views.append(("smem_c", f"offset={off_c}, shape=(64, {bn}), dtype=lm.bf16, stages=1"))
    kbytes = (s * (a_bytes + b_bytes)) // 1024
    lines = head([f"Decode-shape GEMM (generated by gen.py; see its docstring): 64x{bn} tile,",
                  f"{s}-slot TMA ring ({kbytes} KiB), {w} consumer warpgroup(s) slicing K, one wgmma",
                  f"group in flight per warpgroup. smem {total} B."],
                 name, "A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, N: LM.i32, K: LM.i32", total, views)
    lines.append(f"    acc    = lm.regs(shape=(64, {bn}), dtype=lm.f32)")
    if w > 1:
        lines.append(f"    other  = lm.regs(shape=(64, {bn}), dtype=lm.f32)")
    lines += ring(s, range(4 * w), [4 * w])
    if w > 1:
        lines.append("    red   = lm.named_barrier(roles=[math])")
    reduce_lines, ind = [], "        "
    if w > 1:
        reduce_lines = [
            "        if lm.instance() > 0:",
            "            lm.copy(smem_r[lm.instance() - 1], acc)",
            "        lm.sync(red)",
            "        if lm.instance() == 0:",
        ]
        for j in range(w - 1):
            reduce_lines += [
                f"            lm.copy(other, smem_r[{j}])",
                "            lm.binary(acc, acc, other, op=\"add\")",
            ]
        ind = "            "
    lines += [
        "",
        "    k_tiles = lm.cdiv(K, 64)",
        "    m_blk = lm.block_idx(0) * 64",
        f"    n_blk = lm.block_idx(1) * {bn}",
        "",
    ] + load_loop(s, rot) + [
        "",
        "    with math:",
        "        lm.fill(acc, 0.0)",
    ] + mma_loop("lm.instance()" if w > 1 else "0", "k_tiles", w, "False", w) + reduce_lines + [
        ind + "lm.copy(smem_c[0], acc)",
        ind + "lm.fence_proxy()",
    ] + store(ind, "smem_c", "C", "m_blk, n_blk")
    return name, "\n".join(lines) + "\n"


def ring_and_c_views(rows, bn, s):
    """The smem views of a rows x bn tile without a workspace: the S-slot rings of A (rows x 64)
    and B (bn x 64), 128B-swizzled, and one bf16 staging slot of the C tile; and the pool size."""
    off_b = s * rows * 64 * 2
    off_c = off_b + s * bn * 64 * 2
    total = off_c + rows * bn * 2
    assert total <= SMEM_LIMIT, (rows, bn, s, total)
    return [("smem_a", f"offset=0, shape=({rows}, 64), dtype=lm.bf16, stages={s}, swizzle=\"128B\""),
            ("smem_b", f"offset={off_b}, shape=({bn}, 64), dtype=lm.bf16, stages={s}, swizzle=\"128B\""),
            ("smem_c", f"offset={off_c}, shape=({rows}, {bn}), dtype=lm.bf16, stages=1")], total


def tile_head(comment, name, rows, bn, s, total, views, kblock):
    """The opening of an unsplit transposed tile (schedule_tplain, schedule_tpair): header, views,
    the accumulator, the ring of one consumer warpgroup and one load warp, and the tile's
    k-block count (k-blocks of `kblock`) and origin."""
    lines = head(comment, name, "A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, N: LM.i32, K: LM.i32", total,
                 views)
    lines.append(f"    acc    = lm.regs(shape=({rows}, {bn}), dtype=lm.f32)")
    return lines + ring(s, range(4), [4]) + [
        "",
        f"    k_tiles = lm.cdiv(K, {kblock})",
        f"    m_blk = lm.block_idx(0) * {rows}",
        f"    n_blk = lm.block_idx(1) * {bn}",
        "",
    ]


def schedule_tplain(rows, bn, s):
    """A rows x bn tile (rows < 64: the transposed wgmma, B's bn rows on its M side) over the
    whole K, no split-K: the bf16 tile TMA-stored into C, no workspace and no reduce kernel.
    For N = 14336 (bn = 128: 112 CTAs, one wave), where the split-K pairs at S = 2 pay a reduce
    tail of 1.1-1.8 us after a partial kernel as fast as cuBLAS's unsplit kernel (CUPTI records
    of decode4_call1/2)."""
    assert rows < 64 and bn % 64 == 0 and bn <= 256
    name = f"sm90_decode_t{rows}_bn{bn}_s{s}"
    views, total = ring_and_c_views(rows, bn, s)
    lines = tile_head([f"Decode-shape GEMM (generated by gen.py; see schedule_tplain): {rows}x{bn} tile, the",
                       f"transposed wgmma (m64n{rows}: B's rows its M side), {s}-slot TMA ring, one consumer",
                       f"warpgroup, the whole K per CTA (no split-K). smem {total} B."],
                      name, rows, bn, s, total, views, 64)
    lines += load_loop(s, False) + [
        "",
        "    with math:",
        "        lm.fill(acc, 0.0)",
    ] + mma_loop("0", "k_tiles", 1, "False", 1) + [
        "        lm.copy(smem_c[0], acc)",
        "        lm.fence_proxy()",
    ] + store("        ", "smem_c", "C", "m_blk, n_blk")
    return name, "\n".join(lines) + "\n"


def schedule_tpair(rows, bn, s):
    """schedule_tplain with k-blocks of 128: each of the S slots holds two 64-column halves of the
    A and B k-block (views smem_a0/a1, smem_b0/b1: a 128B-swizzled box is at most 64 bf16 wide),
    loaded together on one barrier and consumed by two wgmma groups in one commit. The two TMA
    boxes of a slot read 256 contiguous bytes of each B row at once where the 64-wide ring reads
    128 (session 15: does the row locality of DRAM pay at N = 14336?)."""
    assert rows < 64 and bn % 64 == 0 and bn <= 256
    name = f"sm90_decode_t{rows}_bn{bn}_k128_s{s}"
    a_slot, b_slot = rows * 64 * 2, bn * 64 * 2
    off_a1, off_b0 = s * a_slot, 2 * s * a_slot
    off_b1 = off_b0 + s * b_slot
    off_c = off_b1 + s * b_slot
    total = off_c + rows * bn * 2
    assert total <= SMEM_LIMIT, (rows, bn, s, total)
    views = [("smem_a0", f"offset=0, shape=({rows}, 64), dtype=lm.bf16, stages={s}, swizzle=\"128B\""),
             ("smem_a1", f"offset={off_a1}, shape=({rows}, 64), dtype=lm.bf16, stages={s}, swizzle=\"128B\""),
             ("smem_b0", f"offset={off_b0}, shape=({bn}, 64), dtype=lm.bf16, stages={s}, swizzle=\"128B\""),
             ("smem_b1", f"offset={off_b1}, shape=({bn}, 64), dtype=lm.bf16, stages={s}, swizzle=\"128B\""),
             ("smem_c", f"offset={off_c}, shape=({rows}, {bn}), dtype=lm.bf16, stages=1")]
    lines = tile_head([f"Decode-shape GEMM (generated by gen.py; see schedule_tpair): {rows}x{bn} tile, the",
                       f"transposed wgmma (m64n{rows}), {s}-slot TMA ring of 128-wide k-blocks (two 64-wide",
                       f"halves per slot), one consumer warpgroup, the whole K per CTA. smem {total} B."],
                      name, rows, bn, s, total, views, 128)
    lines += [
        "    with load:",
        "        for k in lm.range(0, k_tiles):",
        f"            lm.wait(empty, iter=k - {s})",
        "            smem_a0.tma_load(A, coords=(m_blk, k * 128), iter=k, barrier=full)",
        "            smem_a1.tma_load(A, coords=(m_blk, k * 128 + 64), iter=k, barrier=full)",
        "            smem_b0.tma_load(B, coords=(n_blk, k * 128), iter=k, barrier=full)",
        "            smem_b1.tma_load(B, coords=(n_blk, k * 128 + 64), iter=k, barrier=full)",
        "",
        "    with math:",
        "        lm.fill(acc, 0.0)",
    ] + mma_loop("0", "k_tiles", 1, "False", 1, operands=[("smem_a0[k]", "smem_b0[k]"), ("smem_a1[k]", "smem_b1[k]")]) + [
        "        lm.copy(smem_c[0], acc)",
        "        lm.fence_proxy()",
    ] + store("        ", "smem_c", "C", "m_blk, n_blk")
    return name, "\n".join(lines) + "\n"


def schedule_m128(bn, s, rot=False):
    name = f"sm90_decode_m128_bn{bn}_s{s}" + ("_r" if rot else "")
    views, total = ring_and_c_views(128, bn, s)
    lines = head([f"Decode-shape GEMM for M ~ 128 (generated by gen.py; see its docstring): 128x{bn}",
                  f"tile, {s}-slot TMA ring, two consumer warpgroups on the m64 halves, one wgmma",
                  f"group in flight each. smem {total} B."],
                 name, "A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, N: LM.i32, K: LM.i32", total, views)
    lines.append(f"    acc    = lm.regs(shape=(64, {bn}), dtype=lm.f32)")
    lines += ring(s, range(8), [8], empty_count=2) + [
        "    red   = lm.named_barrier(roles=[math])",
        "",
        "    k_tiles = lm.cdiv(K, 64)",
        "    m_blk = lm.block_idx(0) * 128",
        f"    n_blk = lm.block_idx(1) * {bn}",
        "",
    ] + load_loop(s, rot) + [
        "",
        "    with math:",
        "        m0 = 64 * lm.instance()",
    ] + mma_loop("0", "k_tiles", 1, "(k == 0)", 1, a_view="smem_a[k][m0:m0 + 64, :]",
                                                 first="k > 0") + [
        "        lm.copy(smem_c[0][m0:m0 + 64, :], acc)",
        "        lm.fence_proxy()",
        "        lm.sync(red)",
        "        if lm.instance() == 0:",
    ] + store("            ", "smem_c", "C", "m_blk, n_blk")
    return name, "\n".join(lines) + "\n"


def reduce_global(rbn, pdl, u=0):
    """The reduce kernel of the "_rg" pairs: one output row segment of rbn columns per CTA,
    W read with plain global loads straight into registers (no smem, no TMA round trip, no
    barriers). A one-row fragment takes the generic row-vector layout (column thread + 128 j),
    so each warp load is 32 consecutive floats; with no smem its CTAs share an SM with a
    partial CTA, so under PDL they are all resident, waiting in griddepcontrol.wait.

    u > 0 (suffix u{u}, always PDL): u slices of W loaded per loop iteration, all issued before
    their adds, the ones past S skipped by a guard (their fragment stays 0). With u = 0 every
    slice's load waits for the previous iteration's: nvcc unrolls the runtime loop by 4 with the
    remainder loop after it, so for S <= 4 every slice goes through the remainder loop, one L2
    round trip after another (PTX of the rg256 reduce)."""
    sfx = f"u{u}_pdl" if u else "_pdl" if pdl else ""
    frags = [f"p{i}" for i in range(u)] if u else ["part"]
    lines = [
        "@cake.schedule(target=\"sm_90a\")",
        f"def sm90_splitk_reduce_rg{rbn}{sfx}(lm, W: LM.gmem, C: LM.gmem, S: LM.i32):",
        "    lm.assume(S > 0)",
    ] + (["    lm.grid_dependency(W)  # the partial kernel writes W"] if pdl or u else []) + [
        f"    total  = lm.regs(shape=(1, {rbn}), dtype=lm.f32)",
    ] + [f"    {p:<6} = lm.regs(shape=(1, {rbn}), dtype=lm.f32)" for p in frags] + [
        f"    out    = lm.regs(shape=(1, {rbn}), dtype=lm.bf16)  # C's element type is its operand's",
        "",
        "    math = lm.role(warps=[0, 1, 2, 3], group=4)",
        "",
        "    m0 = lm.block_idx(0)",
        f"    n0 = lm.block_idx(1) * {rbn}",
        "",
        "    with math:",
    ] + (["        lm.grid_dep_wait()  # the partial grid has completed, its W stores visible"] if pdl or u else [])
    if not u:
        lines += [
            "        lm.copy(total, W, coords=(0, m0, n0))",
            "        for s in lm.range(1, S):",
            "            lm.copy(part, W, coords=(s, m0, n0))",
            "            lm.binary(total, total, part, op=\"add\")",
        ]
    else:
        lines += [
            "        lm.fill(total, 0.0)",
            f"        for s in lm.range(0, S, {u}):",
            "            lm.copy(p0, W, coords=(s, m0, n0))",
        ]
        for i in range(1, u):
            lines += [f"            lm.fill(p{i}, 0.0)",
                      f"            if s + {i} < S:",
                      f"                lm.copy(p{i}, W, coords=(s + {i}, m0, n0))"]
        lines += [f"            lm.binary(total, total, p{i}, op=\"add\")" for i in range(u)]
    return lines + [
        "        lm.copy(out, total)",
        "        lm.copy(C, out, coords=(m0, n0))",
    ]


def split_columns(lines, rows, bn, s, off_b, off_p):
    """A transposed-tile partial kernel (rows < 64) with bn > 256 columns, rewritten with its B
    box, accumulator and workspace tile in two column chunks (256 and bn - 256, both multiples of
    64): a TMA box dimension is at most 256 (`tma.box-extent`). Chunk j covers columns
    n_blk + 256 j ..; both loads arrive on the one `full` barrier of the k-block, both mma ops
    are in the one committed group, both stores in the one bulk group."""
    assert rows < 64 and 256 < bn <= 512 and bn % 64 == 0
    w = (256, bn - 256)
    out = []
    for l in lines:
        ind = l[:len(l) - len(l.lstrip())]
        if l.lstrip().startswith("smem_b ") and "pool.view" in l:
            out += [f"    smem_b{j} = pool.view(offset={off_b + j * s * 256 * 128}, shape=({w[j]}, 64), dtype=lm.bf16, "
                    f"stages={s}, swizzle=\"128B\")" for j in (0, 1)]
        elif l.lstrip().startswith("smem_p ") and "pool.view" in l:
            out += [f"    smem_p{j} = pool.view(offset={off_p + j * rows * 256 * 4}, shape=({rows}, {w[j]}), "
                    "dtype=lm.f32, stages=1)" for j in (0, 1)]
        elif l.lstrip().startswith("acc ") and "lm.regs" in l:
            out += [f"    acc{j}   = lm.regs(shape=({rows}, {w[j]}), dtype=lm.f32)" for j in (0, 1)]
        elif "smem_b.tma_load(B, coords=(n_blk," in l:
            out += [l.replace("smem_b.", f"smem_b{j}.").replace("(n_blk,", f"(n_blk + {256 * j},") for j in (0, 1)]
        elif "lm.mma(acc, " in l:
            out += [l.replace("lm.mma(acc,", f"lm.mma(acc{j},").replace("smem_b[k]", f"smem_b{j}[k]") for j in (0, 1)]
        elif l.strip() in ("lm.fill(acc, 0.0)", "lm.copy(smem_p[0], acc)"):
            out += [l.replace("acc", f"acc{j}").replace("smem_p", f"smem_p{j}") for j in (0, 1)]
        elif "smem_p.tma_store(W" in l:
            out += [ind + f"smem_p{j}.tma_store(W, coords=(lm.block_idx(2), m_blk, n_blk + {256 * j}), stage=0)"
                    for j in (0, 1)]
        else:
            assert "smem_b" not in l and "smem_p" not in l and " acc" not in l.replace("lm.regs", ""), l
            out.append(l)
    return out


def schedule_splitk(bn, s, rbn, pdl=False, rg=False, rows=64, ru=0, cl=False):
    """The split-K pair: partial kernel (K slice per lm.block_idx(2)) and reduce kernel
    (pdl: chained with programmatic dependent launch, see the docstring; rg: the reduce
    reads W with plain global loads, rbn columns of one row per CTA, reduce_global;
    rows = 128: a 128-row tile, two consumer warpgroups on its m64 halves; rows 8, 16 or 32: a
    rows x bn tile whose mma lowers to the transposed wgmma, docs/ir-extensions.md "Transposed
    wgmma": the bn weight rows on the wgmma's 64-row M side, the few activation rows its n)."""
    assert rows in (8, 16, 32, 64, 128) and (rows == 64 or (pdl and rg))
    assert rows >= 64 or bn % 64 == 0, (rows, bn)
    a_bytes, b_bytes = rows * 64 * 2, bn * 64 * 2
    off_b = s * a_bytes
    off_p = off_b + s * b_bytes
    total = off_p + rows * bn * 4
    assert total <= SMEM_LIMIT, (bn, s, total)
    sfx = "_pdl" if pdl else ""
    rsfx = (f"_rg{rbn}" + (f"u{ru}" if ru else "")) if rg else "" if rbn == 64 else f"_r{rbn}"
    tag = "_m128" if rows == 128 else f"_t{rows}" if rows < 64 else ""
    name = f"sm90_decode_splitk{tag}_bn{bn}_s{s}{'_c2' if cl else ''}{rsfx}{sfx}"
    views = [("smem_a", f"offset=0, shape=({rows}, 64), dtype=lm.bf16, stages={s}, swizzle=\"128B\""),
             ("smem_b", f"offset={off_b}, shape=({bn}, 64), dtype=lm.bf16, stages={s}, swizzle=\"128B\""),
             ("smem_p", f"offset={off_p}, shape=({rows}, {bn}), dtype=lm.f32, stages=1")]
    wgs = ("one consumer warpgroup" if rows == 64 else "two consumer warpgroups on the m64 halves" if rows == 128
           else "one consumer warpgroup, the transposed wgmma (m64n%d: B's rows its M side)" % rows)
    lines = head([f"Split-K decode GEMM (generated by gen.py; see its docstring): partial kernel with a",
                  f"{rows}x{bn} tile, {s}-slot TMA ring, {wgs}, K slice lm.block_idx(2) of",
                  f"lm.grid_dim(2) into the f32 workspace W[S, M, N] (smem {total} B); reduce kernel",
                  f"summing W over S in 64x{rbn} tiles. Run with `cake run --split-k S`."] +
                 (["The two kernels chained with programmatic dependent launch (gen.py's docstring)."]
                  if pdl else []),
                 name, "A: LM.tma2d, B: LM.tma2d, W: LM.tma3d, M: LM.i32, N: LM.i32, K: LM.i32", total, views)
    if pdl:  # before the pool: lm.grid_dependency is a top-level statement
        at = next(i for i, l in enumerate(lines) if l.startswith("    pool "))
        lines[at:at] = ["    lm.grid_dependency(A)  # the preceding grid may write A",
                        "    lm.grid_dependency(W)  # ... or still read W (a previous split-K reduce)"]
    lines.append(f"    acc    = lm.regs(shape=({min(rows, 64)}, {bn}), dtype=lm.f32)")
    lines += (ring(s, range(4), [4]) if rows <= 64 else
              ring(s, range(8), [8], empty_count=2) + ["    red   = lm.named_barrier(roles=[math])"]) + [
        "",
        "    k_tiles = lm.cdiv(K, 64)",
        "    k_per   = lm.cdiv(k_tiles, lm.grid_dim(2))",
        "    k_lo    = lm.block_idx(2) * k_per",
        "    k_n     = max(min(k_per, k_tiles - k_lo), 0)",
        f"    m_blk = lm.block_idx(0) * {rows}",
        f"    n_blk = lm.block_idx(1) * {bn}",
        "",
    ]
    load = load_loop(s, False, count="k_n", base="k_lo")
    lines += load[:1] + (["        lm.grid_dep_wait()"] if pdl else []) + load[1:] + [
        "",
        "    with math:",
    ] + (["        lm.launch_dependents()  # the reduce grid may launch now; it waits for this one"]
         if pdl else []) + (["        m0 = 64 * lm.instance()"] if rows == 128 else []) + [
        "        lm.fill(acc, 0.0)",
    ]
    if rows <= 64:
        lines += mma_loop("0", "k_n", 1, "False", 1) + (["        lm.grid_dep_wait()"] if pdl else []) + [
            "        lm.copy(smem_p[0], acc)",
            "        lm.fence_proxy()",
        ] + store("        ", "smem_p", "W", "lm.block_idx(2), m_blk, n_blk")
    else:  # each warpgroup its m64 half into smem_p, then warpgroup 0 stores the tile
        lines += mma_loop("0", "k_n", 1, "False", 1, a_view="smem_a[k][m0:m0 + 64, :]") + [
            "        lm.grid_dep_wait()",
            "        lm.copy(smem_p[0][m0:m0 + 64, :], acc)",
            "        lm.fence_proxy()",
            "        lm.sync(red)",
            "        if lm.instance() == 0:",
        ] + store("            ", "smem_p", "W", "lm.block_idx(2), m_blk, n_blk")
    if bn > 256:  # a TMA box and a plain wgmma n stop at 256: B, acc and smem_p in two column chunks
        lines = split_columns(lines, rows, bn, s, off_b, off_p)
    if cl:  # session 14: A halves multicast over a (1, 2, 1) cluster along N
        assert rows < 64 and bn <= 256 and rg
        lines = cluster_a_multicast(lines, rows, s)
    if rg:
        return name, "\n".join(lines + [""] + reduce_global(rbn, pdl, ru)) + "\n"
    r_slots = 4
    r_off_c = r_slots * 64 * rbn * 4
    r_total = r_off_c + 64 * rbn * 2
    # a 32-column f32 slot is one 128-byte swizzle span: the reduce's row-per-thread reads of
    # it are 4-way bank conflicts instead of 32-way (64-column rows, no swizzle; docs/benchmarks.md)
    wswz = ', swizzle="128B"' if rbn * 4 == 128 else ""
    rviews = [("smem_w", f"offset=0, shape=(64, {rbn}), dtype=lm.f32, stages={r_slots}{wswz}"),
              ("smem_c", f"offset={r_off_c}, shape=(64, {rbn}), dtype=lm.bf16, stages=1")]
    lines += [""] + head([], f"sm90_splitk_reduce_bn{rbn}{sfx}", "W: LM.tma3d, C: LM.tma2d, S: LM.i32", r_total,
                         rviews)[1:]
    lines.insert(len(lines) - len(rviews) - 1, "    lm.assume(S > 0)")
    if pdl:
        lines.insert(len(lines) - len(rviews) - 1, "    lm.grid_dependency(W)  # the partial kernel writes W")
    lines += [
        f"    part   = lm.regs(shape=(64, {rbn}), dtype=lm.f32)",
        f"    total  = lm.regs(shape=(64, {rbn}), dtype=lm.f32)",
    ] + ring(r_slots, range(4), [4]) + [
        "",
        "    m0 = lm.block_idx(0) * 64",
        f"    n0 = lm.block_idx(1) * {rbn}",
        "",
        "    with load:",
    ] + (["        lm.grid_dep_wait()  # the partial grid has completed, its W stores visible"] if pdl else []) + [
        "        for s in lm.range(0, S):",
        f"            lm.wait(empty, iter=s - {r_slots})",
        "            smem_w.tma_load(W, coords=(s, m0, n0), iter=s, barrier=full)",
        "",
        "    with math:",
        "        lm.fill(total, 0.0)",
        "        for s in lm.range(0, S):",
        "            lm.wait(full, iter=s)",
        "            lm.copy(part, smem_w[s])",
        "            lm.fence_proxy()  # generic reads done before the slot goes back to TMA",
        "            lm.arrive(empty, iter=s)",
        "            lm.binary(total, total, part, op=\"add\")",
        "        lm.copy(smem_c[0], total)",
        "        lm.fence_proxy()",
    ] + store("        ", "smem_c", "C", "m0, n0")
    return name, "\n".join(lines) + "\n"


def cluster_a_multicast(lines, rows, s):
    """A transposed-tile partial kernel (rows < 64) rewritten for a (1, 2, 1) thread-block cluster
    along N (session 14): the two CTAs of a cluster hold adjacent BN-column tiles of the same rows
    and K slice, so they read the same A k-block. Each loads one rows/2-row half of it, multicast
    to both (smem_ah aliases smem_a: slot 2s+r is half r of slot s), and its own B box: the A
    requests to L2 per k-block are halved (cuBLAS's nvjet_sm90_tst_64x16_64x16_2x1 / 64x32 decode
    kernels run in 2-CTA clusters). A slot is written by both producers, so each consumer frees
    it in both CTAs (empty init_count 2, arrive cta=0 and cta=1); every role passes
    lm.cluster_sync() first and last (corpus/cluster/sm90_multicast_b.cake). The grid is rounded
    up to whole clusters: a CTA past N loads a box wholly out of bounds (zeros) and its W store
    is clipped."""
    assert rows < 64 and rows % 16 == 0  # a half is >= 8 rows: one 1 KiB 128B-swizzle atom
    h = rows // 2
    out, part, seen_load, in_math = [], True, False, False
    for i, l in enumerate(lines):
        s_ = l.strip()
        if part and s_ == '@cake.schedule(target="sm_90a")':
            out.append('@cake.schedule(target="sm_90a", cluster=(1, 2, 1))')
            continue
        if part and s_.startswith("smem_a ") and "pool.view" in l:
            out += [l, f"    smem_ah = pool.view(offset=0, shape=({h}, 64), dtype=lm.bf16, stages={2 * s}, "
                       'swizzle="128B")  # slot 2s+r: half r of smem_a slot s']
            continue
        if part and s_.startswith("empty = lm.barrier(prod=[math]"):
            out.append(l.replace("init_count=1", "init_count=2"))
            continue
        if part and s_.startswith("n_blk = "):
            out += [l, "    rank  = lm.cluster_rank()"]
            continue
        if part and s_ == "with load:":
            out += [l, "        lm.cluster_sync()"]
            seen_load = True
            continue
        if part and s_.startswith("smem_a.tma_load(A, coords=(m_blk, "):
            ind = l[:len(l) - len(l.lstrip())]
            kk = s_.split("coords=(m_blk, ")[1].split(" * 64)")[0]
            out.append(ind + f"smem_ah[2 * (k % {s}) + rank].tma_load(A, coords=(m_blk + {h} * rank, {kk} * 64), "
                             "iter=k, barrier=full, multicast=3)")
            continue
        if part and s_ == "with math:":
            if seen_load:  # the load body ends at the blank line before `with math:`
                assert out[-1] == ""
                out[-1:-1] = ["        lm.cluster_sync()"]
            out += [l, "        lm.cluster_sync()"]
            in_math = True
            continue
        if part and in_math and s_.startswith("lm.arrive(empty, iter="):
            ind = l[:len(l) - len(l.lstrip())]
            out += [ind + s_.replace(")", ", cta=0)"), ind + s_.replace(")", ", cta=1)")]
            continue
        if part and in_math and s_ == "lm.tma_store_wait(pending=0)":
            out += [l, "        lm.cluster_sync()"]
            part = False  # the reduce kernel follows, unchanged
            continue
        out.append(l)
    assert not part, "no partial kernel epilogue found"
    return out


def schedule_splitk_areg(bn, s, rbn):
    """Split-K partial whose A operand comes from registers (wgmma with A in registers), with the
    global-load reduce. At decode M the 64-row A box of the TMA ring is mostly rows past M, and
    it takes half the ring's shared memory (a 64 x 64 bf16 slot per k-block, as large as a
    64-column B slot); here the ring holds B alone, so twice the B bytes are in flight per SM.
    The consumer warpgroup reads A's 64 x 64 k-block straight from global memory into the wgmma
    A-fragment layout (rows past M and columns past K read as 0) one k-block ahead of the wgmma
    that uses it (a_cur <- a_nxt <- A): the load is issued before the wait for B's slot, so its
    L2 latency hides behind that wait and the wgmma (a register copy of a load still in flight
    waits for it, so a longer chain of copies would not load further ahead). The wgmma reads
    a_cur's registers, so it is retired (mma_wait(pending=0)) before a_cur is written again."""
    b_bytes = bn * 64 * 2
    off_p = s * b_bytes
    total = off_p + 64 * bn * 4
    assert total <= SMEM_LIMIT, (bn, s, total)
    name = f"sm90_decode_splitk_ar_bn{bn}_s{s}_rg{rbn}_pdl"
    views = [("smem_b", f"offset=0, shape=({bn}, 64), dtype=lm.bf16, stages={s}, swizzle=\"128B\""),
             ("smem_p", f"offset={off_p}, shape=(64, {bn}), dtype=lm.f32, stages=1")]
    lines = head(["Split-K decode GEMM (generated by gen.py; see its docstring and schedule_splitk_areg's):",
                  f"partial kernel with a 64x{bn} tile, A from registers (read from global memory one",
                  f"k-block ahead), a {s}-slot TMA ring of B alone, one consumer warpgroup, K slice",
                  "lm.block_idx(2) of lm.grid_dim(2) into the f32 workspace W[S, M, N]",
                  f"(smem {total} B); reduce kernel with plain global loads, {rbn} columns of one row per CTA.",
                  "Run with `cake run --split-k S`."],
                 name, "A: LM.gmem, B: LM.tma2d, W: LM.tma3d, M: LM.i32, N: LM.i32, K: LM.i32", total, views)
    at = next(i for i, l in enumerate(lines) if l.startswith("    pool "))
    lines[at:at] = ["    lm.grid_dependency(A)  # the preceding grid may write A",
                    "    lm.grid_dependency(W)  # ... or still read W (a previous split-K reduce)"]
    lines += [f"    acc    = lm.regs(shape=(64, {bn}), dtype=lm.f32)",
              "    a_cur  = lm.regs(shape=(64, 64), dtype=lm.bf16)  # the wgmma's A operand",
              "    a_nxt  = lm.regs(shape=(64, 64), dtype=lm.bf16)  # A of the next k-block"]
    lines += ring(s, range(4), [4]) + [
        "",
        "    k_tiles = lm.cdiv(K, 64)",
        "    k_per   = lm.cdiv(k_tiles, lm.grid_dim(2))",
        "    k_lo    = lm.block_idx(2) * k_per",
        "    k_n     = max(min(k_per, k_tiles - k_lo), 0)",
        "    m_blk = lm.block_idx(0) * 64",
        f"    n_blk = lm.block_idx(1) * {bn}",
        "",
        "    with load:",
        "        lm.grid_dep_wait()",
        "        for k in lm.range(0, k_n):",
        f"            lm.wait(empty, iter=k - {s})",
        "            smem_b.tma_load(B, coords=(n_blk, (k_lo + k) * 64), iter=k, barrier=full)",
        "",
        "    with math:",
        "        lm.launch_dependents()  # the reduce grid may launch now; it waits for this one",
        "        lm.grid_dep_wait()  # before the first read of A (and the store of W)",
        "        lm.fill(acc, 0.0)",
        "        lm.copy(a_nxt, A, coords=(m_blk, k_lo * 64))",
        "        for k in lm.range(0, k_n):",
        "            lm.copy(a_cur, a_nxt)",
        "            lm.copy(a_nxt, A, coords=(m_blk, (k_lo + k + 1) * 64))",
        "            lm.wait(full, iter=k)",
        "            lm.mma(acc, a_cur, smem_b[k], init=False)",
        "            lm.mma_commit()",
        "            lm.mma_wait(pending=0)",
        "            lm.arrive(empty, iter=k)",
        "        lm.copy(smem_p[0], acc)",
        "        lm.fence_proxy()",
    ] + store("        ", "smem_p", "W", "lm.block_idx(2), m_blk, n_blk")
    return name, "\n".join(lines + [""] + reduce_global(rbn, True)) + "\n"


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    m128_splitk = [(bn, s, rbn, True, True, 128) for bn, s, rbn in M128_SPLITK_VARIANTS]
    m128_splitk += [(bn, s, rbn, True, True, rows) for rows, bn, s, rbn in T_SPLITK_VARIANTS]
    m128_splitk += [(bn, s, rbn, True, True, rows, u) for rows, bn, s, rbn, u in U_SPLITK_VARIANTS]
    m128_splitk += [(bn, s, rbn, True, True, rows, u, True) for rows, bn, s, rbn, u in C_SPLITK_VARIANTS]
    gens = [(schedule, VARIANTS), (schedule_m128, M128_VARIANTS), (schedule_splitk, SPLITK_VARIANTS),
            (schedule_splitk, m128_splitk), (schedule_splitk_areg, AREG_SPLITK_VARIANTS),
            (schedule_tplain, T_PLAIN_VARIANTS), (schedule_tpair, T_PAIR_VARIANTS)]
    for gen, variants in gens:
        for v in variants:
            name, text = gen(*v)
            with open(f"{out}/{name}.cake", "w") as f:
                f.write(text)
            print(name)


if __name__ == "__main__":
    main()
