# Helper align46's attack (docs/z3.md "Attacks on counted waits of a tile's first or
# last K iteration"): humming's multicast GEMM (corpus twin fixed), whose leader waits
# for epi_done with a counted phase in the first K iteration of tiles t > 0, mutated
# (wait one phase early / late, a release skipped on a tile, arrival counts off), with
# the epilogue's release moved into the last K iteration, a pre-released variant that
# waits in every tile, and a counted token barrier touched in the first (or last) K
# iteration of every tile by both roles. Run in an empty folder; ok_* are correct,
# bad_* broken: for f in *.cake; do build/cli/cake check --require-proof $f; done
import sys
src = open(__import__('os').path.join(__import__('os').path.dirname(__file__), '../../../corpus/bugs/sync.race/humming_multicast_peer_epilogue_reuse_fixed.cake')).read()
W = "                if rank == 0 and t > 0 and k == 0:\n                    lm.wait(epi_done, stage=0)\n"
A = "            lm.arrive(epi_done, stage=0, cta=0)\n"
EPI = ("            # epilogue: C staged over the A ring (a union)\n            lm.copy(smem_c[0], acc)\n            lm.fence_proxy()\n"
       "            smem_c.tma_store(C, coords=(m_blk, rank * 128), stage=0)\n            lm.tma_store_commit()\n"
       "            lm.tma_store_wait(pending=0)\n" + A)
assert W in src and A in src and EPI in src
def rep(s, a, b):
    assert a in s, a
    return s.replace(a, b)
def out(name, s):
    s = s.replace('def humming_multicast_peer_epilogue_reuse_fixed', 'def align46_' + name)
    open(name + '.cake', 'w').write(s)
# the epilogue and its counted release in the MMA role's last K iteration
INK = ("                if k == k_tiles - 1:\n" + "\n".join("        " + l for l in EPI.splitlines()[1:]) + "\n")
last = rep(src, EPI, "")
last = rep(last, "                lm.arrive(empty, iter=it, cta=1)\n", "                lm.arrive(empty, iter=it, cta=1)\n" + INK)
AL = "                    lm.arrive(epi_done, stage=0, cta=0)\n"
for base, bname, arr in [(src, 'after', A), (last, 'inlast', AL)]:
    out(f'ok_{bname}', base)
    ind = arr[:len(arr) - len(arr.lstrip())]
    # the counted wait one phase late from tile 1 (a second wait in tile 1)
    out(f'bad_{bname}_wait_late_t1', rep(base, W, W + "                if rank == 0 and t == 1 and k == 0:\n                    lm.wait(epi_done, stage=0)\n"))
    # one phase early from tile 2 (tile 1 skips its wait) / from tile 41 (past the bounded check)
    for tt in (1, 40):
        out(f'bad_{bname}_wait_skipped_t{tt}', rep(base, W, W.replace("t > 0 and k == 0", f"t > 0 and t != {tt} and k == 0")))
        # the release skipped on one tile
        out(f'bad_{bname}_release_skipped_t{tt}', rep(base, arr, f"{ind}if t != {tt}:\n    " + arr))
    # the wait in the last K iteration: after this tile's multicast of A
    out(f'bad_{bname}_wait_in_last', rep(base, W, W.replace("and k == 0:", "and k == k_tiles - 1:")))
    # arrival counts off
    out(f'bad_{bname}_count_high', rep(base, "init_count=2)\n\n    k_tiles", "init_count=3)\n\n    k_tiles"))
    out(f'bad_{bname}_count_low', rep(base, "init_count=2)\n\n    k_tiles", "init_count=1)\n\n    k_tiles"))
    out(f'bad_{bname}_release_rank0_only', rep(base, arr, f"{ind}if rank == 0:\n    " + arr))
    # one phase late everywhere: the wait in tile 0 too / early everywhere: a pre-release
    out(f'bad_{bname}_wait_every_tile', rep(base, W, W.replace("t > 0 and ", "")))
    out(f'bad_{bname}_wait_two_behind', rep(base, W, W.replace("t > 0", "t > 1")))
# every tile waits (counted, phase t) and the MMA role releases once before its tile loop
PRE_AT = "    with math:\n        lm.cluster_sync()\n"
PRE = PRE_AT + "        lm.arrive(epi_done, stage=0, cta=0)\n"
pre = rep(rep(src, W, W.replace("t > 0 and ", "")), PRE_AT, PRE)
out('ok_pre', pre)
out('bad_pre_twice', rep(pre, PRE, PRE + "        lm.arrive(epi_done, stage=0, cta=0)\n"))
out('bad_pre_wait_skipped_t1', rep(pre, W.replace("t > 0 and ", ""), W.replace("t > 0", "t != 1")))
out('bad_pre_release_skipped_t1', rep(pre, A, "            if t != 1:\n    " + A))
for gname, g in [('p50', 't % 50 == 49'), ('sq', '(t * t) % 97 == 50')]:
    out(f'bad_pre_wait_skipped_{gname}', rep(pre, W.replace("t > 0 and ", ""), W.replace("t > 0", f"not ({g})")))
    out(f'bad_pre_release_skipped_{gname}', rep(pre, A, f"            if not ({g}):\n    " + A))
    out(f'bad_after_wait_skipped_{gname}', rep(src, W, W.replace("t > 0", f"t > 0 and not ({g})")))
    out(f'bad_after_release_skipped_{gname}', rep(src, A, f"            if not ({g}):\n    " + A))
# a token barrier touched only in the first K iteration by both roles (counted, every tile):
# the MMA role releases it once before its tile loop and then at each tile's first K
# iteration (after that tile's first data arrived); the load role waits for it at each
# tile's first K iteration, before the tile's loads
tok = rep(src, "    epi_done = lm.barrier(count=1, prod=[math], cons=[load], init_count=2)\n",
          "    epi_done = lm.barrier(count=1, prod=[math], cons=[load], init_count=2)\n"
          "    tok      = lm.barrier(count=1, prod=[math], cons=[load], init_count=1)\n")
TW = "                lm.wait(empty, iter=it - 2)\n                lm.expect_tx(full, 24576, iter=it)\n"
tok = rep(tok, TW, "                if rank == 0 and k == 0:\n                    lm.wait(tok, stage=0)\n" + TW)
TP = "    with math:\n        lm.cluster_sync()\n"
tok = rep(tok, TP, TP + "        if rank == 0:\n            lm.arrive(tok, stage=0)\n")
TA = "                lm.arrive(empty, iter=it, cta=1)\n"
TAR = "                if rank == 0 and k == 0:\n                    lm.arrive(tok, stage=0)\n"
tok = rep(tok, TA, TA + TAR)
out('ok_tok', tok)
out('bad_tok_no_pre', rep(tok, TP + "        if rank == 0:\n            lm.arrive(tok, stage=0)\n", TP))
out('bad_tok_pre_twice', rep(tok, "            lm.arrive(tok, stage=0)\n", "            lm.arrive(tok, stage=0)\n            lm.arrive(tok, stage=0)\n"))
for gname, g in [('t1', 't == 1'), ('t40', 't == 40'), ('p50', 't % 50 == 49')]:
    out(f'bad_tok_release_skipped_{gname}', rep(tok, TAR, TAR.replace("and k == 0:", f"and k == 0 and not ({g}):")))
    out(f'bad_tok_wait_skipped_{gname}', rep(tok, "if rank == 0 and k == 0:\n                    lm.wait(tok", f"if rank == 0 and k == 0 and not ({g}):\n                    lm.wait(tok"))
out('bad_tok_release_twice', rep(tok, TAR, TAR + TAR))
out('bad_tok_count_high', rep(tok, "cons=[load], init_count=1)\n", "cons=[load], init_count=2)\n"))
# the same token touched only in the last K iteration by both roles
tokl = tok.replace("if rank == 0 and k == 0:\n                    lm.wait(tok", "if rank == 0 and k == k_tiles - 1:\n                    lm.wait(tok")
TARL = TAR.replace("and k == 0:", "and k == k_tiles - 1:")
tokl = rep(tokl, TAR, TARL)
out('ok_tok_last', tokl)
out('bad_tok_last_pre_twice', rep(tokl, "            lm.arrive(tok, stage=0)\n", "            lm.arrive(tok, stage=0)\n            lm.arrive(tok, stage=0)\n"))
out('bad_tok_last_release_skipped_t40', rep(tokl, TARL, TARL.replace("k_tiles - 1", "k_tiles - 1 and t != 40")))
out('bad_tok_last_wait_skipped_t40', rep(tokl, "k == k_tiles - 1:\n                    lm.wait(tok", "k == k_tiles - 1 and t != 40:\n                    lm.wait(tok"))
# the wait in the last K iteration, the release in the first: the release may run ahead of the wait
out('bad_tok_mixed', rep(tok, "if rank == 0 and k == 0:\n                    lm.wait(tok", "if rank == 0 and k == k_tiles - 1:\n                    lm.wait(tok"))
