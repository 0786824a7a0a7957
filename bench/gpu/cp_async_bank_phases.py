#!/usr/bin/env python3
# Shared-memory wavefronts of one warp's cp.async (LDGSTS) instruction under a thread -> chunk mapping:
# a 16-byte store per thread is served a quarter-warp (8 threads) at a time, in one wavefront when the
# 8 chunks fall in 8 different 16-byte bank groups (offset / 16 mod 8), else in as many as the most
# chunks sharing a group. Also the distinct 128-byte global lines a warp instruction touches. For the
# stepped copies of the sm_80 GEMMs: one chunk of a row per thread (main) and two (session 16's tried
# lowering, docs/gpu.md "sm_80: two cp.async chunks of a row per thread"), and two with the rows of a
# quarter-warp chosen so that their swizzled chunks differ (not built).
# Measured since (session 18, docs/gpu.md "sm_80: paired cp.async rows timed"): Nsight Compute counts
# 0 LDGSTS bank conflicts and, for the k64 GEMMs' 128-byte rows, one shared wavefront per global line (4 for one
# chunk a row, 8 for two with paired rows), so the quarter-warp count below does not predict LDGSTS's cost;
# the global-line count does.
# Usage: python3 bench/gpu/cp_async_bank_phases.py
def swz(off, sw):
    mask = {128: 0x70, 64: 0x30, 32: 0x10}.get(sw, 0)
    return off ^ ((off >> 3) & mask)


def instr(row_bytes, sw, chunks_a_row_per_thread, j=0, paired=False):
    per_row = row_bytes // 16
    row_threads = per_row // chunks_a_row_per_thread
    rows_a_quarter = 8 // row_threads
    smem, lines = [], set()
    for t in range(32):
        r, c = t // row_threads, t % row_threads + j * row_threads
        if paired:  # a quarter-warp's rows 4 (128B swizzle) apart: r = q + 4 k for its k-th row
            q, k = t // 8, (t % 8) // row_threads
            r = q + (8 // rows_a_quarter) * k
        smem.append(swz(r * row_bytes + c * 16, sw))
        lines.add((r * 4096 * 2 + c * 16) // 128)  # a row pitch of 8 KB in global memory (K = 4096 bf16)
    waves = 0
    for q in range(4):
        groups = [(o // 16) % 8 for o in smem[8 * q:8 * q + 8]]
        waves += max(groups.count(g) for g in set(groups))
    return waves, len(lines)


for name, rb, sw in (("128x64 bf16 tile, 128B swizzle (the k64 GEMMs)", 128, 128),
                     ("128x32 bf16 tile, 64B swizzle (corpus sm80_cp_async_multistage)", 64, 64)):
    for w, paired in ((1, False), (2, False), (2, True))[:3 if sw == 128 else 2]:
        waves, lines = instr(rb, sw, w, paired=paired)
        print(f"{name}: {w} chunk(s) of a row per thread{', rows paired' if paired else ''}: {waves} shared "
              f"wavefronts (4 = conflict-free), {lines} global 128-byte lines per warp instruction")
