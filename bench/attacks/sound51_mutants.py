#!/usr/bin/env python3
"""Session 51's soundness attack (helper sound51, docs/z3.md "Soundness
review, session 51"): broken schedules aimed at the paths session 50 added to
the persistent proof and the checker, with correct twins, written to
OUT/<base>/<label>_<name>.cake, then `cake check` and `cake check
--require-proof` on each:

    bench/attacks/sound51_mutants.py OUT                # writes the files
    bench/attacks/sound51_mutants.py OUT --run [CAKE]   # also runs cake on each

A "bad" schedule is broken: `cake check` must exit 1, or 2 (unknown), never 0,
and `--require-proof` must not prove it (the runner marks either HOLE). A
"good" one is correct in the model: an exit 1 is a false alarm (the runner
marks it FALSE-ALARM); unknown is allowed. ONLY=base,... and
MATCH=regex pick what runs. Bases (run from the repository root):

* tail (two50's trip::cutDeadTails): the reduced tail ring of
  tests/encoder/tail_cut50_test.cpp with work left in the tail past the
  guard's threshold: in an `else`, under `or`, per instance, under a
  condition or loop bound that leaves 64 bits only past the threshold (the
  hole: the prover took it as a premise, "defined and true", and the copy
  was proved), thresholds by floor division, a loop from a parameter.
* window (fmha50's narrow first ring window, ProofBudget::grant): the
  persistent warp-specialized GEMM (4 stages: narrow window 16, usual 24)
  with an arrive skipped, a wait offset or a guard on the ring index, the
  tile index or the K index at values between the two widths and past both.
* store (fa4_50's last tile's async store moved to copy x - Pg): the
  tile-end kernel of tests/encoder/trip_last_store_test.cpp with the store's
  wait, commit, fence and final drain left out on the last tiles or the
  first, the store ring widened to two slots with the wrong wait depth.
* residue (persist50's forgotten data tags and residue short tiles): the
  guarded scale load of TripProof.PersistentLoadGuardedByAResidueOfKIsProved
  read on other residues, one iteration back (across the tile's start, where
  the previous tile's parity decides), at k % 4 subsets of the loads.
* cluster (two50's clusterExitsMatter, cluster50's kernelEndsWithBlockBarrier):
  two roles of a 2-CTA cluster syncing unequally, with data handed over
  only by an exit-completed generation, a role that waits at a second
  barrier, role-less warps (past the roles or in a gap between them), TMEM
  kernels.
* between (sound50's monotone between-runs rule and summed stepping terms):
  a slice whose column offset is a monotone step of P, one step value
  reading bytes no one wrote; cover47's row read one float past the stores
  where the cancelling steps of a square are 1.
* renamed (fa4_50's tile periods without the renamed ring-start reads): the
  two-slot-Q store-warp reproducer (tests/encoder/s_ahead_kernel.h) with the
  tile's first S reading or waiting a lap off from tile 3..14 on (about the
  old warm-up 13 and the new 4), the Q of another tile.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attack_runner import main_bases, raw_string, read, rep  # noqa: E402
import sound49_mutants as s49  # noqa: E402


# ---------------------------------------------------------------- tail
def tail():
    base = raw_string("tests/encoder/tail_cut50_test.cpp", "kTailRing")
    END = "                lm.copy(Out, rows, coords=(4 * i, 0))\n"
    LOAD_IF = "            if i < m:\n                lm.wait(empty"
    CONS_IF = "            if i < m:\n                lm.wait(full"

    def cons_tail(t):
        return rep(base, END, END + t)

    nv = read("corpus/bugs/sync.arrival-underflow/nvfuser_ws_two_wg_wait_parity_unpredicated_tail_two_params_fixed.cake")
    groups = rep(rep(base, "    cons = lm.role(warps=[0])", "    cons = lm.role(warps=[0, 2], group=1)"),
                 "init_count=1, pipeline=ring)\n\n", "init_count=2, pipeline=ring)\n\n")
    return [
        ("good", "base", base),
        ("bad", "else_waits", cons_tail("            else:\n                lm.wait(full, iter=i)\n")),
        ("bad", "or_last", rep(base, CONS_IF, "            if i < m or i == n - 1:\n                lm.wait(full")),
        ("bad", "load_ceil_even", rep(base, LOAD_IF, "            if i < (m + 1) // 2 * 2:\n                lm.wait(empty")),
        ("bad", "load_floor_half_twice", rep(base, LOAD_IF, "            if 2 * i < m:\n                lm.wait(empty")),
        ("good", "load_cdiv_twice", rep(base, LOAD_IF, "            if i < 2 * lm.cdiv(m, 2) - (m % 2):\n                lm.wait(empty")),
        ("bad", "undefined_past_threshold",
         cons_tail("            if i - m + 9223372036854775807 >= 0:\n                if i > m:\n"
                   "                    lm.wait(full, iter=i)\n")),
        ("bad", "undefined_inner_bound",
         cons_tail("            if i >= m:\n                for j in lm.range(0, (i - m + 2) * 4611686018427387904):\n"
                   "                    if j >= 0:\n                        lm.wait(full, iter=i)\n")),
        ("good", "defined_condition_in_tail",
         cons_tail("            if i + 1000 >= 0:\n                if i < m:\n                    lm.fence_proxy()\n")),
        # (a second wait on the next stage's completed phase: correct)
        ("good", "inner_loop_waits_next_stage",
         cons_tail("            for j in lm.range(0, 2):\n                if i + j < m:\n"
                   "                    if j == 1:\n                        lm.wait(full, iter=i + 1)\n")),
        ("bad", "inner_loop_reaches_tail",
         cons_tail("            for j in lm.range(0, 2):\n                if i + j < m + 1:\n"
                   "                    if j == 1:\n                        lm.wait(full, iter=i + 1)\n")),
        ("bad", "per_instance_one_past",
         rep(groups, CONS_IF, "            if i < m + lm.instance():\n                lm.wait(full")),
        ("good", "per_instance_group", groups),
        ("bad", "loop_from_param",
         rep(base, "        for i in lm.range(0, n):\n            if i < m:\n                lm.wait(full",
             "        for i in lm.range(m - 1, n):\n            if i < m:\n                lm.wait(full")),
        # (a stage past 2 * n_iters is loaded and read by neither role: correct, the cut refused)
        ("good", "nvfuser_fact_one_past", rep(nv, "lm.assume(n_stages <= 2 * n_iters)", "lm.assume(n_stages <= 2 * n_iters + 1)")),
        ("bad", "nvfuser_compute_one_stage_past", rep(nv, "            if s < n_stages:                                         # the fix",
                                                      "            if s <= n_stages:                                        # the fix")),
        ("bad", "nvfuser_group_one_instance_off", rep(nv, "        g = lm.instance()\n", "        g = 1 - lm.instance() + lm.instance() * 2\n")),
        ("good", "nvfuser_groups_swapped", rep(nv, "        g = lm.instance()\n", "        g = 1 - lm.instance()\n")),
        ("bad", "nvfuser_loader_group_loop_to_3", rep(nv, "            for g in lm.range(0, 2):", "            for g in lm.range(0, 3):")),
        ("bad", "threshold_past_bound_without_fact", rep(rep(base, "    lm.assume(m <= n)\n", ""), CONS_IF,
                                                           "            if i < m or i < n:\n                lm.wait(full")),
    ]


# ---------------------------------------------------------------- window
def window():
    base = read("corpus/gemm/sm90_persistent_ws.cake")
    ARR = "                lm.arrive(empty, iter=it)\n"
    out = [("good", "base", base)]
    for g in ["it == 13", "it == 18", "it == 21", "it == 30", "it >= 18", "k == 18", "k >= 18", "t == 18", "t >= 20",
              "t == 9 and k == 1", "it % 20 == 19"]:
        name = re.sub(r"\W+", "_", g.replace(">=", "ge").replace("%", "mod"))
        out.append(("bad", "skip_arrive_" + name, rep(base, ARR, f"                if not ({g}):\n    {ARR}")))
    for d in [8, 17, 20, 23, 26, 40]:
        out.append(("bad", f"empty_wait_minus_{d}", rep(base, "lm.wait(empty, iter=it - 4)", f"lm.wait(empty, iter=it - {d})")))
        out.append(("bad", f"full_wait_minus_{d - 4}", rep(base, "lm.wait(full, iter=it)", f"lm.wait(full, iter=it - {d - 4})")))
    for d in [13, 19, 22]:
        out.append(("bad", f"arrive_plus_{d}", rep(base, "lm.arrive(empty, iter=it)", f"lm.arrive(empty, iter=it + {d})")))
    # (an arrive named a whole number of laps ahead is the same mbarrier slot:
    # the hardware op is the one of the base)
    for d in [16, 36]:
        out.append(("good", f"arrive_plus_{d}_same_slot", rep(base, "lm.arrive(empty, iter=it)", f"lm.arrive(empty, iter=it + {d})")))
    return out


# ---------------------------------------------------------------- store
def store():
    k = raw_string("tests/encoder/persistent_kernels.h", "kTileEndKernel")
    k = rep(k, "K: LM.tma3d, seqlen_k", "K: LM.tma3d, O: LM.tma3d, seqlen_k")
    k = rep(k, "lm.smem(65536)", "lm.smem(131072)")
    k = rep(k, "    tmem_o = lm.tmem(",
            "    smem_o = pool.view(offset=65536, shape=(128, 128), dtype=lm.bf16, stages=1)\n    tmem_o = lm.tmem(")
    WAIT = "            lm.tma_store_wait(pending=0)\n"
    COPY = "            lm.copy(smem_o[0], o)\n"
    FENCE = "            lm.fence_proxy()\n"
    STORE = "            smem_o.tma_store(O, coords=(0, t * 128, 0), stage=0)\n"
    COMMIT = "            lm.tma_store_commit()\n"
    DRAIN = "        lm.tma_store_wait(pending=0)\n"
    base = rep(k, "            lm.tmem_load_wait()\n", "            lm.tmem_load_wait()\n" + WAIT + COPY + FENCE + STORE + COMMIT + DRAIN)

    def guarded(line, cond):
        return rep(base, line, f"            if {cond}:\n    {line}")

    two = rep(base, "stages=1)\n    tmem_o", "stages=2)\n    tmem_o")
    two = rep(two, WAIT + COPY, WAIT.replace("pending=0", "pending=1") + "            lm.copy(smem_o[t % 2], o)\n")
    two = rep(two, "smem_o.tma_store(O, coords=(0, t * 128, 0), stage=0)", "smem_o.tma_store(O, coords=(0, t * 128, 0), stage=t % 2)")
    out = [("good", "base", base), ("good", "two_slots", two)]
    for cond in ["t + 2 < T", "t + 1 < T", "t + 3 < T", "t >= 1", "t != 5"]:
        name = re.sub(r"\W+", "_", cond.replace(">=", "ge").replace("!=", "ne"))
        # (no store is in flight before the first tile's: its wait is idle)
        out.append(("good" if cond == "t >= 1" else "bad", "wait_only_if_" + name, guarded(WAIT, cond)))
        out.append(("bad", "fence_only_if_" + name, guarded(FENCE, cond)))
        out.append(("bad", "commit_only_if_" + name, guarded(COMMIT, cond)))
    out += [
        ("bad", "no_drain", rep(base, DRAIN, "")),
        ("bad", "wait_pending_1", rep(base, WAIT, WAIT.replace("pending=0", "pending=1"))),
        ("bad", "two_slots_pending_2", rep(two, "lm.tma_store_wait(pending=1)\n            lm.copy", "lm.tma_store_wait(pending=2)\n            lm.copy")),
        ("bad", "two_slots_same_slot_written", rep(two, "lm.copy(smem_o[t % 2], o)", "lm.copy(smem_o[0], o)")),
        ("bad", "two_slots_store_other_slot", rep(two, "stage=t % 2)", "stage=(t + 1) % 2)")),
        ("bad", "store_before_fence", rep(base, FENCE + STORE, STORE + FENCE)),
        ("bad", "copy_before_tmem_wait", rep(base, "            lm.tmem_load_wait()\n" + WAIT + COPY,
                                             WAIT + COPY + "            lm.tmem_load_wait()\n")),
        ("bad", "release_q_before_last_wait", rep(base, "            lm.wait(o_done, iter=t * n_blocks + n_blocks - 1)\n",
                                                  "            lm.wait(o_done, iter=t * n_blocks + n_blocks - 2)\n")),
    ]
    return out


# ---------------------------------------------------------------- residue
def residue():
    base = raw_string("tests/encoder/trip_proof_test.cpp", "kGuardedLoad")
    READ_IF = "                if k % 2 == 0:\n                    lm.copy(s_r"
    out = [("good", "base", base)]
    for cond, label in [("k % 2 == 1", "bad"), ("k % 4 == 0", "good"), ("k % 4 == 2", "good"), ("k % 4 == 1", "bad"),
                        ("k % 4 == 3", "bad"), ("(k + 1) % 2 == 1", "good"), ("k % 2 == 0 and k > 2", "good"),
                        ("k == 1", "bad"), ("k % 3 == 0", "bad"), ("(k + t) % 2 == 0", "bad")]:
        name = re.sub(r"\W+", "_", cond)
        out.append((label, "read_if_" + name, rep(base, READ_IF, f"                if {cond}:\n                    lm.copy(s_r")))
    back = rep(base, "                    lm.copy(s_r, smem_s[it])\n", "                    lm.copy(s_r, smem_s[it - 1])\n")
    out.append(("bad", "read_one_back_on_even", back))
    odd_back = rep(rep(base, READ_IF, "                if k % 2 == 1:\n                    lm.copy(s_r"),
                   "                    lm.copy(s_r, smem_s[it])\n", "                    lm.copy(s_r, smem_s[it - 1])\n")
    out.append(("bad", "read_one_back_on_odd", odd_back))
    out.append(("bad", "load_guard_k_mod_4", rep(rep(base, "                if k % 2 == 0:\n                    smem_s.tma_load",
                                                      "                if k % 4 == 0:\n                    smem_s.tma_load"),
                                                  "lm.expect_tx(full, 16384, iter=it)", "lm.expect_tx(full, 16384, iter=it)")))
    return out


# ---------------------------------------------------------------- cluster
CLUSTER = '''@cake.schedule(target="sm_90a", cluster=(2, 1, 1))
def exits(lm, X: LM.gmem):
    pool = lm.smem(4096)
    buf  = pool.view(offset=0, shape=(4, 4), dtype=lm.f32)
    r    = lm.regs(shape=(4, 4), dtype=lm.f32)
    s    = lm.regs(shape=(4, 4), dtype=lm.f32)
    a    = lm.role(warps=[0])
    b    = lm.role(warps=[1])
    flag = lm.barrier(count=1, prod=[b], cons=[a], init_count=1)
    with a:
A    with b:
B'''


def cluster_pair(a, b, warps=None, tmem=False):
    t = CLUSTER.replace("A", a).replace("B", b)
    if warps:
        t = t.replace('cluster=(2, 1, 1))', f'cluster=(2, 1, 1), warps={warps})')
    if tmem:
        t = t.replace('target="sm_90a"', 'target="sm_100a"')
        t = t.replace("    a    = lm.role", "    acc  = lm.tmem(cols=0, width=32, shape=(32, 32), dtype=lm.f32)\n"
                      "    tr   = lm.regs(shape=(32, 32), dtype=lm.f32)\n    a    = lm.role")
        # (an op in TMEM: the lowered kernel ends with __syncthreads(); tcgen05.dealloc)
        t = t.replace("    with a:\n", "    with a:\n        lm.fill(tr, 0.0)\n        lm.tmem_store(acc, tr)\n        lm.tmem_store_wait()\n")
    return t


def cluster():
    SYNC = "        lm.cluster_sync()\n"
    READ = "        lm.copy(s, buf[0])\n        lm.copy(X, s, coords=(0, 0))\n"
    WRITE = "        lm.fill(r, 0.0)\n        lm.copy(buf[0], r)\n"
    SIGNAL = "        lm.arrive(flag, stage=0)\n"
    WAIT = "        lm.wait(flag, stage=0)\n"
    return [
        ("good", "equal_syncs_handover", cluster_pair(SYNC + SYNC + READ, WRITE + SYNC + SYNC)),
        ("bad", "handover_by_exit_only", cluster_pair(SYNC + SYNC + READ, SYNC + WRITE)),
        ("good", "handover_by_flag_then_exit", cluster_pair(SYNC + SYNC + WAIT + READ, SYNC + WRITE + SIGNAL)),
        # (a's exit completes b's second generation, and a signalled before it)
        ("good", "b_waits_for_a_after_a_exits", cluster_pair(SYNC + SIGNAL, SYNC + SYNC + WAIT)
         .replace("prod=[b], cons=[a]", "prod=[a], cons=[b]")),
        ("bad", "a_second_sync_b_blocked", cluster_pair(SYNC + SYNC + SIGNAL, SYNC + WAIT + SYNC)
         .replace("prod=[b], cons=[a]", "prod=[a], cons=[b]")),
        ("good", "a_signals_then_syncs", cluster_pair(SYNC + SIGNAL + SYNC, SYNC + WAIT)
         .replace("prod=[b], cons=[a]", "prod=[a], cons=[b]")),
        ("bad", "sync_under_loop_unequal", cluster_pair("        for i in lm.range(0, 2):\n    " + SYNC + READ, SYNC + WRITE)),
        ("good", "sync_under_loop_written_before", cluster_pair("        for i in lm.range(0, 2):\n    " + SYNC + READ, WRITE + SYNC)),
        ("bad", "roleless_warps_tmem", cluster_pair(SYNC + READ, WRITE + SYNC, warps=3, tmem=True)),
        ("bad", "unequal_tmem", cluster_pair(SYNC + SYNC + READ, WRITE + SYNC, tmem=True)),
        ("bad", "gap_warp_tmem", cluster_pair(WRITE + SYNC, SYNC + READ, tmem=True)
         .replace("    b    = lm.role(warps=[1])", "    b    = lm.role(warps=[2])")),
        ("good", "no_gap_tmem", cluster_pair(WRITE + SYNC, SYNC + READ, tmem=True)),
        ("good", "roleless_warps_no_tmem", cluster_pair(SYNC + SYNC + READ, WRITE + SYNC + SYNC, warps=3)),
    ]


# ---------------------------------------------------------------- between
def slice_read(f):
    """cover47's row kernel (sound49_mutants.ROW) with columns 96:128 written
    by warps[0] too and a 32-column read at column 32 * f: columns 64:96 are
    written by no one."""
    t = rep(s49.ROW.replace("GUARD", ""), "        lm.sync(block)\n",
            "        if w == 0:\n            lm.copy(buf[0][0:1, 96:128], part[0:1, 0:32])\n        lm.sync(block)\n")
    t = rep(t, "got[0:1, 0:READ], buf[0][0:1, 0:READ]", f"got[0:1, 0:32], buf[0][0:1, 32 * {f}:32 * {f} + 32]")
    return rep(t, "got[0:1, 0:READ]", "got[0:1, 0:32]")


def between():
    # columns 64:96 are written by no one: the step value 2 reads them
    out = []
    for name, f in [("step_300", "((P + 9) // 300)"), ("step_scaled", "((P * 3 + 1) // 900)"),
                    ("square_step", "(P * P // 250000)"), ("min_step", "min(3, (P + 11) // 290)"),
                    ("step_of_991", "((P + 9) // 991 * 2)"), ("two_steps_back", "(3 - (P + 100) // 367)")]:
        out.append(("bad", name, slice_read(f)))
    out.append(("good", "steps_skip_2", slice_read("((P + 9) // 500 * 3)")))
    # sound50's cancelling steps through a square (a product of parameters is
    # a part of its own): 1 at P in {886} (5000), {114, 386, 614, 886} (1000);
    # at 250000 at no P of 1..1000 (correct)
    for m, label in [(5000, "bad"), (1000, "bad"), (4001, "bad"), (250000, "good")]:
        for gname, guard in [("", ""), ("_beside_P_1000", "        if P == 1000:\n            lm.sync(block)\n")]:
            read = f"64 + ((P * P + 9) // {m} - (P * P + 3) // {m})"
            out.append((label, f"square_window_{m}{gname}", s49.ROW.replace("GUARD", guard).replace("READ", read)))
    return out


# ---------------------------------------------------------------- renamed
def q_on_two_slots():
    k = raw_string("tests/encoder/s_ahead_kernel.h", "kSAhead")
    k = rep(k, "smem_q  = pool.view(offset=0,      shape=(128, 64),  dtype=lm.bf16, stages=1,",
            "smem_q  = pool.view(offset=0,      shape=(128, 64),  dtype=lm.bf16, stages=2,")
    k = rep(k, "smem_k  = pool.view(offset=16384,", "smem_k  = pool.view(offset=32768,")
    k = rep(k, "q_full  = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)",
            "q_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=kv)")
    k = rep(k, "q_empty = lm.barrier(count=1, prod=[mma], cons=[load], init_count=1)",
            "q_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=kv)")
    k = rep(k, "lm.wait(q_empty, iter=t - 1)", "lm.wait(q_empty, iter=t - 2)")
    k = rep(k, "        lm.wait(q_empty, iter=n_tiles - 1)\n",
            "        lm.wait(q_empty, iter=n_tiles - 2)\n        lm.wait(q_empty, iter=n_tiles - 1)\n")
    return k.replace("smem_q[0]", "smem_q[t]")


def renamed():
    base = q_on_two_slots()
    FIRST = ("            lm.wait(k_full, iter=base)\n"
             "            lm.mma(tmem_s, smem_q[t], smem_k[base], init=True)\n")
    out = [("good", "base", base)]

    def from_tile(x, wait, read):
        alt = (f"            lm.wait(k_full, iter={wait})\n"
               f"            lm.mma(tmem_s, smem_q[t], smem_k[{read}], init=True)\n")
        return rep(base, FIRST, f"            if t < {x}:\n" + "".join("    " + l + "\n" for l in FIRST.splitlines())
                   + "            else:\n" + "".join("    " + l + "\n" for l in alt.splitlines()))

    for x in [3, 4, 7, 9, 12, 14]:
        out.append(("bad", f"first_s_reads_next_lap_from_{x}", from_tile(x, "base", "base + 2")))
        out.append(("bad", f"first_s_reads_lap_behind_from_{x}", from_tile(x, "base - 2", "base - 2")))
        out.append(("bad", f"first_s_waits_lap_behind_from_{x}", from_tile(x, "base - 2", "base")))
        out.append(("good", f"first_s_respelled_from_{x}", from_tile(x, "t * n_blocks", "t * n_blocks")))
    out.append(("bad", "first_s_reads_q_of_next_tile", rep(base, "smem_q[t], smem_k[base]", "smem_q[t + 1], smem_k[base]")))
    out.append(("bad", "first_s_reads_q_two_back_from_5",
                rep(base, "smem_q[t], smem_k[base]", "smem_q[t - 2 * (t // 5)], smem_k[base]")))
    return out


BASES = [("tail", tail), ("window", window), ("store", store), ("residue", residue), ("cluster", cluster),
         ("between", between), ("renamed", renamed)]




if __name__ == "__main__":
    main_bases(BASES, require_proof=True, timeout=240)
