# Helper align46's attack (docs/z3.md "Attacks on counted waits of a tile's first or
# last K iteration"); run in an empty folder, then cake check --require-proof each file
# (ok_*: correct, bad_*: broken; each file says # expect:).
# Persistent sm_100a GEMM (tile loop x K loop, symbolic T and K): a 2-stage
# A/B ring named by iter=, plus two tile-level barriers with counted phases
# (stage= without phase=) whose K-loop side runs in one K iteration per tile:
#  acc_full/acc_empty: the MMA's wait on acc_empty and its commit of acc_full;
#  s_full/s_empty: a per-tile scale load by the load role, read by the epilogue.
TPL = '''@cake.schedule(target="sm_100a")
def align46_{name}(lm, A: LM.tma2d, B: LM.tma2d, S: LM.tma2d, D: LM.gmem, T: LM.i32, K: LM.i32):
    lm.assume(T >= 1)
    lm.assume(K >= 1)
    pool   = lm.smem(98304)
    smem_a = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_s = pool.view(offset=65536, shape=(128, 32), dtype=lm.f32, stages=1)
    accum  = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    r      = lm.regs(shape=(32, 32), dtype=lm.f32)
    sc     = lm.regs(shape=(32, 32), dtype=lm.f32)
    epi  = lm.role(warps=[0, 1, 2, 3], group=1)
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])
    pipe      = lm.pipeline(stages=2)
    full      = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty     = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    acc_full  = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    acc_empty = lm.barrier(count=1, prod=[epi], cons=[mma], init_count={acc_count})
    s_full    = lm.barrier(count=1, prod=[load], cons=[epi], init_count=1)
    s_empty   = lm.barrier(count=1, prod=[epi], cons=[load], init_count=4)
    m0 = lm.block_idx(0) * 128
    with load:
        for t in lm.range(0, T):
            for k in lm.range(0, K):
                it = K * t + k
                lm.wait(empty, iter=it - 2)
                smem_a.tma_load(A, coords=(m0, 64 * k), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(128 * t, 64 * k), iter=it, barrier=full)
                if {lg}:
{lwait}
                    smem_s.tma_load(S, coords=(m0, 32 * t), stage=0, barrier=s_full)
    with mma:
        for t in lm.range(0, T):
            for k in lm.range(0, K):
                it = K * t + k
                if {mg}:
{mwait}
                lm.wait(full, iter=it)
                lm.mma(accum, smem_a[it], smem_b[it], init=(k == 0))
                lm.mma_commit(barrier=empty, iter=it)
                if k == K - 1:
                    lm.mma_commit(barrier=acc_full, stage=0)
    with epi:
        q = 32 * lm.instance()
        for t in lm.range(0, T):
{ewait}
            lm.tmem_load(r, accum[q:q + 32, 0:32])
            lm.tmem_load_wait()
{earrive}
            lm.wait(s_full, stage=0)
            lm.copy(sc, smem_s[0][q:q + 32, 0:32])
            lm.fence_proxy()
{sarrive}
            lm.binary(r, r, sc, op="mul")
            lm.copy(D, r, coords=(m0 + q, 128 * t))
'''
L, M, E = ' ' * 20, ' ' * 20, ' ' * 12
def make(name, g='k == 0', lg=None, mg=None, lwait=None, mwait=None, ewait=None, earrive=None, sarrive=None,
         acc_count=4):
    lg = lg or g; mg = mg or 'k == 0'
    lwait = lwait if lwait is not None else L + 'if t > 0:\n' + L + '    lm.wait(s_empty, stage=0)'
    mwait = mwait if mwait is not None else M + 'if t > 0:\n' + M + '    lm.wait(acc_empty, stage=0)'
    ewait = ewait if ewait is not None else E + 'lm.wait(acc_full, stage=0)'
    earrive = earrive if earrive is not None else E + 'lm.arrive(acc_empty, stage=0)'
    sarrive = sarrive if sarrive is not None else E + 'lm.arrive(s_empty, stage=0)'
    src = TPL.format(name=name, lg=lg, mg=mg, lwait=lwait, mwait=mwait, ewait=ewait, earrive=earrive,
                     sarrive=sarrive, acc_count=acc_count)
    exp = 'pass' if name.startswith('ok') else 'fail'
    open(f'{name}.cake', 'w').write(f'# expect: {exp}\n' + src)
for gname, g in [('first', 'k == 0'), ('last', 'k == K - 1')]:
    make(f'ok_{gname}', g)
    # MMA's counted acc_empty wait one phase late: it waits in tile 0 too
    make(f'bad_{gname}_mma_wait_late', g, mwait=M + 'lm.wait(acc_empty, stage=0)')
    # one phase early: skips its wait in tile 1 (overwrites the accumulator under the epilogue's load)
    make(f'bad_{gname}_mma_wait_early', g, mwait=M + 'if t > 1:\n' + M + '    lm.wait(acc_empty, stage=0)')
    # the load's counted s_empty wait one phase early / late
    make(f'bad_{gname}_load_wait_early', g, lwait=L + 'if t > 1:\n' + L + '    lm.wait(s_empty, stage=0)')
    make(f'bad_{gname}_load_wait_late', g, lwait=L + 'lm.wait(s_empty, stage=0)')
    # releases skipped on odd tiles
    make(f'bad_{gname}_acc_release_skipped', g, earrive=E + 'if t % 2 == 0:\n' + E + '    lm.arrive(acc_empty, stage=0)')
    make(f'bad_{gname}_s_release_skipped', g, sarrive=E + 'if t != 1:\n' + E + '    lm.arrive(s_empty, stage=0)')
    # arrival counts off: acc_empty expects 8 arrivals (4 come) / 2 (4 come)
    make(f'bad_{gname}_acc_count_high', g, acc_count=8)
    make(f'bad_{gname}_acc_count_low', g, acc_count=2)
    # the epilogue waits one phase late on acc_full (an extra wait in tile 0)
    make(f'bad_{gname}_epi_wait_late', g, ewait=E + 'lm.wait(acc_full, stage=0)\n' + E + 'if t == 0:\n' + E + '    lm.wait(acc_full, stage=0)')
# the MMA's first-iteration wait moved to the last iteration: it guards nothing of its own tile's chain
make('bad_mma_wait_after_chain', 'k == 0', mg='k == K - 1')
# the same schedule with iter= phases everywhere (a reference for the proof's reach)
import re
src=open('ok_first.cake').read().replace('align46_ok_first','align46_ok_iter')
for a,b in [('lm.wait(s_empty, stage=0)','lm.wait(s_empty, iter=t - 1)'),('lm.wait(acc_empty, stage=0)','lm.wait(acc_empty, iter=t - 1)'),('barrier=s_full)','barrier=s_full, iter=t)'),('stage=0, barrier=s_full','barrier=s_full'),('lm.mma_commit(barrier=acc_full, stage=0)','lm.mma_commit(barrier=acc_full, iter=t)'),('lm.wait(acc_full, stage=0)','lm.wait(acc_full, iter=t)'),('lm.arrive(acc_empty, stage=0)','lm.arrive(acc_empty, iter=t)'),('lm.wait(s_full, stage=0)','lm.wait(s_full, iter=t)'),('lm.arrive(s_empty, stage=0)','lm.arrive(s_empty, iter=t)')]: src=src.replace(a,b)
open('ok_iter.cake','w').write(src)
# defects only past the bounded check's tile counts (the proof must not pass them)
make('bad_first_acc_release_skipped_t9', 'k == 0', earrive=E + 'if t != 9:\n' + E + '    lm.arrive(acc_empty, stage=0)')
make('bad_first_mma_wait_skipped_t9', 'k == 0', mwait=M + 'if t > 0 and t != 9:\n' + M + '    lm.wait(acc_empty, stage=0)')
make('bad_first_load_wait_skipped_t9', 'k == 0', lwait=L + 'if t > 0 and t != 9:\n' + L + '    lm.wait(s_empty, stage=0)')
make('bad_last_load_wait_skipped_t9', 'k == K - 1', lwait=L + 'if t > 0 and t != 9:\n' + L + '    lm.wait(s_empty, stage=0)')
make('bad_first_epi_extra_wait_t9', 'k == 0', ewait=E + 'lm.wait(acc_full, stage=0)\n' + E + 'if t == 9:\n' + E + '    lm.wait(acc_full, stage=0)')
