# Helper align46's attack (docs/z3.md "Attacks on counted waits of a tile's first or
# last K iteration"); run in an empty folder, then cake check --require-proof each file
# (ok_*: correct, bad_*: broken; each file says # expect:).
# The persistent warp-specialized GEMM of tilelang_ws_persistent_serial_phase_restart_fixed
# (a 3-slot ring with counted arrivals and derived expect_tx) plus a per-tile scale
# buffer smem_s whose barriers s_full/s_empty have counted phases and are touched
# in one K iteration per tile (G) by both roles.
import os
_CORPUS = os.path.join(os.path.dirname(__file__), '../../../corpus/bugs/sync.race/'
                       'tilelang_ws_persistent_serial_phase_restart_fixed.cake')


def _template():
    """The corpus schedule with the scale buffer added ({...} fields filled by make)."""
    src = open(_CORPUS).read().replace('{', '{{').replace('}', '}}')
    src = src[src.index('@cake.schedule'):]
    edits = [
        ('def tilelang_ws_persistent_serial_phase_restart_fixed(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d,',
         'def align46_{name}(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, S: LM.tma2d,'),
        ('    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)\n',
         '    smem_s = pool.view(offset=90112, shape=(64, 128), dtype=lm.f32)\n'
         '    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)\n    sc     = lm.regs(shape=(64, 128), dtype=lm.f32)\n'),
        ('    empty = lm.barrier(count=3, prod=[consumer], cons=[producer], init_count=1)\n',
         '    empty = lm.barrier(count=3, prod=[consumer], cons=[producer], init_count=1)\n'
         '    s_full  = lm.barrier(count=1, prod=[producer], cons=[consumer], init_count=1)\n'
         '    s_empty = lm.barrier(count=1, prod=[consumer], cons=[producer], init_count={scount})\n'),
        ('                smem_b.tma_load(B, coords=(0, k * 64), stage=it % 3, barrier=full)\n',
         '                smem_b.tma_load(B, coords=(0, k * 64), stage=it % 3, barrier=full)\n'
         '                if {pg}:\n{pwait}\n'
         '                    smem_s.tma_load(S, coords=(tile * 64, 0), stage=0, barrier=s_full)\n'),
        ('                lm.arrive(empty, stage=it % 3)\n',
         '                lm.arrive(empty, stage=it % 3)\n                if {cg}:\n{cwait}\n'
         '                    lm.copy(sc, smem_s[0])\n                    lm.fence_proxy()\n{carrive}\n'),
        ('            lm.copy(smem_c[0], acc)\n', '            lm.binary(acc, acc, sc, op="mul")\n            lm.copy(smem_c[0], acc)\n'),
        ('    with consumer:\n', '    with consumer:\n{pre}\n'),
    ]
    for a, b in edits:
        assert a in src, a
        src = src.replace(a, b, 1)
    return src


TPL = _template()
I = ' ' * 20
def make(name, g='k == 0', pg=None, cg=None, pwait=None, cwait=None, carrive=None, scount=1, pre=''):
    pg = pg or g; cg = cg or g
    pwait = pwait if pwait is not None else I + 'if t > 0:\n' + I + '    lm.wait(s_empty, stage=0)'
    cwait = cwait if cwait is not None else I + 'lm.wait(s_full, stage=0)'
    carrive = carrive if carrive is not None else I + 'lm.arrive(s_empty, stage=0)'
    src = TPL.format(name=name, pg=pg, cg=cg, pwait=pwait, cwait=cwait, carrive=carrive, scount=scount, pre=pre)
    open(f'{name}.cake', 'w').write(f"# expect: {'pass' if name.startswith('ok') else 'fail'}\n" + src)
for gname, g in [('first', 'k == 0'), ('last', 'k == k_tiles - 1')]:
    make(f'ok_{gname}', g)
    make(f'bad_{gname}_cwait_early', g, cwait=I + 'if t > 0:\n' + I + '    lm.wait(s_full, stage=0)')
    make(f'bad_{gname}_cwait_late', g, cwait=I + 'lm.wait(s_full, stage=0)\n' + I + 'if t == 0:\n' + I + '    lm.wait(s_full, stage=0)')
    make(f'bad_{gname}_pwait_early', g, pwait=I + 'if t > 1:\n' + I + '    lm.wait(s_empty, stage=0)')
    make(f'bad_{gname}_pwait_late', g, pwait=I + 'lm.wait(s_empty, stage=0)')
    make(f'bad_{gname}_release_skipped', g, carrive=I + 'if t % 2 == 0:\n' + I + '    lm.arrive(s_empty, stage=0)')
    make(f'bad_{gname}_count_high', g, scount=2)
    make(f'bad_{gname}_double_release', g, carrive=I + 'lm.arrive(s_empty, stage=0)\n' + I + 'lm.arrive(s_empty, stage=0)')
    make(f'bad_{gname}_pwait_skipped_t9', g, pwait=I + 'if t > 0 and t != 9:\n' + I + '    lm.wait(s_empty, stage=0)')
    make(f'bad_{gname}_release_skipped_t9', g, carrive=I + 'if t != 9:\n' + I + '    lm.arrive(s_empty, stage=0)')
# read in the last iteration, released in the first (before the read)
make('ok_read_last_load_first', 'k == 0', cg='k == k_tiles - 1')
# the producer's wait named by iter= (an evaluated phase), the rest counted
PW = I + 'lm.wait(s_empty, iter=t - 1)'
for gname, g in [('first', 'k == 0'), ('last', 'k == k_tiles - 1')]:
    make(f'ok_{gname}_piter', g, pwait=PW)
    make(f'bad_{gname}_piter_cwait_early', g, pwait=PW, cwait=I + 'if t > 0:\n' + I + '    lm.wait(s_full, stage=0)')
    make(f'bad_{gname}_piter_cwait_late', g, pwait=PW, cwait=I + 'lm.wait(s_full, stage=0)\n' + I + 'if t == 0:\n' + I + '    lm.wait(s_full, stage=0)')
    make(f'bad_{gname}_piter_release_skipped', g, pwait=PW, carrive=I + 'if t % 2 == 0:\n' + I + '    lm.arrive(s_empty, stage=0)')
    make(f'bad_{gname}_piter_release_skipped_t9', g, pwait=PW, carrive=I + 'if t != 9:\n' + I + '    lm.arrive(s_empty, stage=0)')
    make(f'bad_{gname}_piter_cwait_skipped_t9', g, pwait=PW, cwait=I + 'if t != 9:\n' + I + '    lm.wait(s_full, stage=0)')
    make(f'bad_{gname}_piter_count_high', g, pwait=PW, scount=2)
    make(f'bad_{gname}_piter_double_release', g, pwait=PW, carrive=I + 'lm.arrive(s_empty, stage=0)\n' + I + 'lm.arrive(s_empty, stage=0)')
    make(f'bad_{gname}_piter_wrong_phase', g, pwait=I + 'lm.wait(s_empty, iter=t - 2)')

# all counted and in every tile: the consumer releases s_empty once before its tile loop
PRE = '        lm.arrive(s_empty, stage=0)'
PW0 = I + 'lm.wait(s_empty, stage=0)'
for gname, g in [('first', 'k == 0'), ('last', 'k == k_tiles - 1')]:
    make(f'ok_{gname}_pre', g, pwait=PW0, pre=PRE)
    make(f'bad_{gname}_pre_missing', g, pwait=PW0)
    make(f'bad_{gname}_pre_twice', g, pwait=PW0, pre=PRE + '\n' + PRE)
    make(f'bad_{gname}_pre_cwait_late', g, pwait=PW0, pre=PRE, cwait=I + 'lm.wait(s_full, stage=0)\n' + I + 'if t == 0:\n' + I + '    lm.wait(s_full, stage=0)')
    make(f'bad_{gname}_pre_cwait_early', g, pwait=PW0, pre=PRE, cwait=I + 'if t > 0:\n' + I + '    lm.wait(s_full, stage=0)')
    make(f'bad_{gname}_pre_release_skipped_t9', g, pwait=PW0, pre=PRE, carrive=I + 'if t != 9:\n' + I + '    lm.arrive(s_empty, stage=0)')
    make(f'bad_{gname}_pre_pwait_skipped_t9', g, pwait=I + 'if t != 9:\n' + I + '    lm.wait(s_empty, stage=0)', pre=PRE)
    make(f'bad_{gname}_pre_double_release', g, pwait=PW0, pre=PRE, carrive=I + 'lm.arrive(s_empty, stage=0)\n' + I + 'lm.arrive(s_empty, stage=0)')
    make(f'bad_{gname}_pre_count_high', g, pwait=PW0, pre=PRE, scount=2)
    make(f'bad_{gname}_pre_no_release', g, pwait=PW0, pre=PRE, carrive='')
