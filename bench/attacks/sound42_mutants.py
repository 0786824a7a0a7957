#!/usr/bin/env python3
"""Session 42's soundness attack (helper sound42, docs/z3.md "Soundness review,
session 42"): broken mutations of the schedules session 41's steps fire on,
and correct twins, written to OUT/<base>/<name>.cake (sound40_mutants.py's
format and runner):

    bench/attacks/sound42_mutants.py OUT          # writes the files and OUT/index.tsv
    bench/attacks/sound41_run.py OUT [CAKE]       # cake check on each (sound40_run.py's counts)
    bench/attacks/sound42_mutants.py OUT --all-pass   # every file marked pass, then the proof alone
    build/bench/cake_bench_proof_audit OUT --every=1000000000 --verbose > AUDIT

Targets: fa3kb's kind boundary (FA3's sliding window: guards that are not
the one monotone split, kinds that synchronize differently), mc41's pairs
of interchangeable processes (DeepGEMM's two math warpgroups in a 2-CTA
cluster: one field of one instance changed), inst41's private per-instance
loops (the xpu FMHA's per-subgroup K loop: loops that are not private, or
whose later iterations differ), gaps41's respelled bounds (Triton #2146's
inner steps and the floored two-slot ring: parts equal to a bound only under
facts that do not hold), good41's per-barrier derived expect_tx (the
consumer-armed barrier: bytes off in one role, a second barrier) and fa4x's
aligned ring-start copies (TripFa10's kernel, where written).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sound40_mutants as s40  # noqa: E402
from attack_runner import corpus, read, write_index  # noqa: E402

# ---------------------------------------------------------------- fa3kb: the kind boundary
FA3 = "bugs/data.stale-read/fa3_sliding_window_v_skipped_outside_window_fixed.cake"
LOAD = ("            if j >= first_in_window:\n                smem_vt.tma_load(Vt, coords=(head, 0, j * 64), iter=j, barrier=v_full)\n"
        "            else:\n                lm.arrive(v_full, iter=j)\n")
PV = ("            lm.wait(v_full, iter=j)\n            if j >= first_in_window:\n                lm.mma(o_acc, p, smem_vt[j], init=False)\n"
      "                lm.mma_commit()\n                lm.mma_wait(pending=0)\n            lm.arrive(v_empty, iter=j)\n")
WIN = "    first_in_window = n_blocks - window   # the first key block inside the sliding window\n"


def load(cond, else_body="lm.arrive(v_full, iter=j)"):
    return [(LOAD, f"            if {cond}:\n                smem_vt.tma_load(Vt, coords=(head, 0, j * 64), iter=j, barrier=v_full)\n"
                   f"            else:\n                {else_body}\n")]


def pv(cond, wait="            lm.wait(v_full, iter=j)\n", rel="            lm.arrive(v_empty, iter=j)\n", orelse=""):
    return [(PV, wait + f"            if {cond}:\n                lm.mma(o_acc, p, smem_vt[j], init=False)\n"
                        "                lm.mma_commit()\n                lm.mma_wait(pending=0)\n" + orelse + rel)]


X = "first_in_window"
KB_MUTANTS = [
    ("base", "good", []),
    ("both_not_monotone", "good", load(f"j >= {X} and j != {X} + 3") + pv(f"j >= {X} and j != {X} + 3")),
    ("load_not_monotone", "bad", load(f"j >= {X} and j != {X} + 3")),
    ("pv_not_monotone_hole", "good", pv(f"j >= {X} and j != {X} + 3")),
    ("both_parity", "good", load(f"j >= {X} or j % 2 == 1") + pv(f"j >= {X} or j % 2 == 1")),
    ("load_parity", "bad", load(f"j >= {X} and j % 2 == 0")),
    ("pv_lt_form", "good", [(PV, PV.replace(f"if j >= {X}:\n                lm.mma(o_acc, p, smem_vt[j], init=False)\n"
                                            "                lm.mma_commit()\n                lm.mma_wait(pending=0)\n",
                                            f"if j < {X}:\n                pass\n            else:\n"
                                            "                lm.mma(o_acc, p, smem_vt[j], init=False)\n"
                                            "                lm.mma_commit()\n                lm.mma_wait(pending=0)\n"))]),
    ("pv_reversed", "good", pv(f"{X} <= j")),
    ("pv_plus_one_spelling", "good", pv(f"j + 1 > {X}")),
    ("pv_gt_minus1_spelling", "good", pv(f"j > {X} - 1")),
    ("pv_other_param", "bad", pv(f"j >= {X} - (seqlen_q > 1000)")),
    ("both_other_param", "good", load(f"j >= {X} + (seqlen_q > 1000)") + pv(f"j >= {X} + (seqlen_q > 1000)")),
    ("load_nested_later", "bad", load(f"j >= {X}", f"lm.arrive(v_full, iter=j)") + [
        ("                smem_vt.tma_load(Vt, coords=(head, 0, j * 64), iter=j, barrier=v_full)\n            else:",
         f"                if j >= {X} + 1:\n                    smem_vt.tma_load(Vt, coords=(head, 0, j * 64), iter=j, barrier=v_full)\n"
         "                else:\n                    lm.arrive(v_full, iter=j)\n            else:")]),
    ("b_no_wait", "bad", pv(f"j >= {X}", wait="") + [("            lm.arrive(v_empty, iter=j)\n        # epilogue",
                                                        "            lm.arrive(v_empty, iter=j)\n        # epilogue")] +
     [("                lm.mma(o_acc, p, smem_vt[j], init=False)\n", "                lm.wait(v_full, iter=j)\n                lm.mma(o_acc, p, smem_vt[j], init=False)\n")]),
    ("b_release_next", "bad", pv(f"j >= {X}", rel="", orelse=f"                lm.arrive(v_empty, iter=j)\n            else:\n"
                                                             "                lm.arrive(v_empty, iter=j + 1)\n")),
    ("b_release_parity", "bad", pv(f"j >= {X}", rel="", orelse="                lm.arrive(v_empty, iter=j)\n            elif j % 2 == 0:\n"
                                                             "                lm.arrive(v_empty, iter=j)\n")),
    ("b_release_twice", "bad", pv(f"j >= {X}", orelse="            else:\n                lm.arrive(v_empty, iter=j)\n")),
    ("b_read_other_slot", "bad", pv(f"j >= {X}", orelse="            else:\n                lm.mma(o_acc, p, smem_vt[j + 1], init=False)\n"
                                                        "                lm.mma_commit()\n                lm.mma_wait(pending=0)\n")),
    ("b_read_prev_slot", "bad", pv(f"j >= {X}", orelse="            elif j > 0:\n                lm.mma(o_acc, p, smem_vt[j - 1], init=False)\n"
                                                        "                lm.mma_commit()\n                lm.mma_wait(pending=0)\n")),
    ("a_read_prev_at_boundary", "bad", pv(f"j >= {X}", orelse="") + [
        ("                lm.mma(o_acc, p, smem_vt[j], init=False)\n",
         f"                if j == {X} and j > 0:\n                    lm.mma(o_acc, p, smem_vt[j - 1], init=False)\n"
         "                lm.mma(o_acc, p, smem_vt[j], init=False)\n")]),
    ("b_commit_empty", "good", pv(f"j >= {X}", orelse="            else:\n                lm.mma_commit()\n")),
    ("window_from_load", "bad", load(f"j >= n_blocks - window + 1")),
    ("x_in_slot", "bad", load(f"j >= {X}", f"lm.arrive(v_full, iter=j + ({X} > 2))")),
    ("x_in_pv_slot", "bad", [(PV, PV.replace("smem_vt[j]", f"smem_vt[j + ({X} == j - 5)]"))]),
    ("x_k_release", "bad", [("            lm.arrive(k_empty, iter=j)\n",
                             f"            if j != {X} + 4:\n                lm.arrive(k_empty, iter=j)\n")]),
    ("x_k_wait_late", "bad", [("            lm.wait(k_full, iter=j)\n",
                               f"            if j != {X} + 2:\n                lm.wait(k_full, iter=j)\n")]),
    ("consumer1_only_pv", "bad", pv(f"j >= {X} or lm.instance() == 1")),
    ("consumer1_boundary_late", "bad", pv(f"j >= {X} + lm.instance()")),
    ("window_any_both", "good", [("    lm.assume(window >= 16)\n", "    lm.assume(window >= -3)\n")]),
    ("window_any_pv_minus", "bad", [("    lm.assume(window >= 16)\n", "    lm.assume(window >= -3)\n")] + pv(f"j >= {X} - 1")),
]
KB_MUTANTS += [
    ("consumer1_boundary_early", "bad", pv(f"j >= {X} - lm.instance()")),
]
KB_MUTANTS = [m if m[0] != "consumer1_boundary_late" else (m[0], "good", m[2]) for m in KB_MUTANTS]

# ---------------------------------------------------------------- gaps41: respelled bounds
TRITON = "bugs/sync.race/triton_ws_persistent_inner_steps_floor_max_unaligned_k_fixed.cake"
STEPS = "    num_inner_loop_steps = max(K // 64, 1)\n"
TFACT = "    lm.assume(K % 64 == 0 or K < 64)\n"


def steps(expr, fact=None):
    e = [(STEPS, f"    num_inner_loop_steps = {expr}\n")]
    return e + ([(TFACT, f"    lm.assume({fact})\n")] if fact else [])


RESPELL_MUTANTS = [
    ("base", "good", []),
    ("plus1_floor", "good", steps("max((K + 1) // 64, 1)")),
    ("plus64_floor", "bad", steps("(K + 64) // 64")),
    ("ceil_spelled", "good", steps("max((K + 63) // 64, 1)")),
    ("max_bool", "good", steps("max(K // 64, K > 0)")),
    ("floor_plus_small", "good", steps("K // 64 + (K < 64)")),
    ("floor_plus_lt63", "bad", steps("K // 64 + (K < 63)")),
    ("fact_lt66", "bad", steps("max(K // 64, 1)", "K % 64 == 0 or K < 66")),
    ("fact_lt65", "good", steps("max(K // 64, 1)", "K % 64 == 0 or K < 65")),
    ("neg_floor", "good", steps("0 - ((0 - K) // 64)")),
    ("fact_mod128", "good", steps("max(K // 64, 1)", "K % 128 == 0 or K < 64")),
    ("min_floor", "bad", steps("min(K // 64, 1)")),
    ("times_m_zero", "good", steps("max(K // 64, 1) + 0 * M")),
    ("max_m_guard", "bad", steps("max(K // 64, M > 1000)")),
    ("one_point", "bad", steps("max(K // 64, 1) + (M == 12345) * (K == 4096)")),
    ("square_never", "good", steps("max(K // 64, 1) + ((K * K) % 7 == 3)")),
    ("square_sometimes", "bad", steps("max(K // 64, 1) + ((K * K) % 7 == 2)")),
    ("huge_point", "bad", steps("max(K // 64, 1) + (K == 2147483584)")),
    ("block_point", "bad", steps("max(K // 64, 1) + (lm.block_idx(0) == 3) * (K == 192)")),
    ("grid_point", "bad", steps("max(K // 64, 1) + (lm.grid_dim(0) == 5) * (K == 192)")),
    ("mod_neg", "bad", steps("max(K // 64, 1) + (K % -64 != 0)")),
    ("mod_neg_good", "good", steps("max(K // 64, 1) + (K % 64 < 0)")),
    ("cdiv_neg", "bad", steps("max(lm.cdiv(K, -64) * -1 + (K > 64), 1)")),
    ("stride_in_k_only", "bad", [("                idx = t * num_inner_loop_steps + k\n                lm.wait(empty",
                                  "                idx = t * max(K // 64 - (K == 640), 1) + k\n                lm.wait(empty")]),
    ("fact_guarded_k", "bad", steps("max(K // 64, 1)", "K % 64 == 0 or K < 64 or M > 100000")),
]
FLOOR = "bugs/sync.deadlock/sm90_ws_two_slots_producer_bound_floored_fixed.cake"
PBOUND = "        for k in lm.range(0, 2 * lm.cdiv(K, 128)):\n"
CBOUND = "        for j in lm.range(0, (K + 127) // 128):\n"


def pbound(expr):
    return [(PBOUND, f"        for k in lm.range(0, {expr}):\n")]


FLOOR_MUTANTS = [
    ("base", "good", []),
    ("two_floor_plus", "good", pbound("2 * ((K - 1) // 128 + 1)")),
    ("two_floor_off", "bad", pbound("2 * ((K - 2) // 128 + 1)")),
    ("sum_spelling", "good", pbound("lm.cdiv(K, 128) + (K + 127) // 128")),
    ("sum_off", "bad", pbound("lm.cdiv(K, 128) + (K + 126) // 128")),
    ("two_cdiv_256", "bad", pbound("2 * lm.cdiv(K, 256) * 2")),
    ("cdiv_64_even", "bad", pbound("lm.cdiv(K, 64)")),
    ("cdiv_64_even_fact", "good", pbound("lm.cdiv(K, 64)") + [("    lm.assume(K > 0)\n", "    lm.assume(K > 0)\n    lm.assume(K % 128 == 0)\n")]),
    ("cdiv_64_fact_wrong", "bad", pbound("lm.cdiv(K, 64)") + [("    lm.assume(K > 0)\n", "    lm.assume(K > 0)\n    lm.assume(K % 64 == 0)\n")]),
    ("consumer_m", "bad", [(CBOUND, "        for j in lm.range(0, (K + 127) // 128 + (M == 7) * (K == 256)):\n")]),
]

# ---------------------------------------------------------------- inst41: private per-instance loops
XPU = "attention/sm80_xpu_fmha_causal_per_subgroup_bounds_slm_epilogue.cake"
BODY = ("            lm.copy(kt, Kc, coords=(q0, kb * 64))\n            lm.binary(acc, acc, kt, op=\"add\")\n")


def body(text):
    return [(BODY, text)]


PRIVATE_MUTANTS = [
    ("base", "good", []),
    ("div_zero_later", "unmodelled", body("            lm.copy(kt, Kc, coords=(q0, 64 // (1 - kb)))\n            lm.binary(acc, acc, kt, op=\"add\")\n")),
    ("guard_instance", "bad", body("            if w == 1:\n                lm.copy(kt, Kc, coords=(q0, kb * 64))\n            lm.binary(acc, acc, kt, op=\"add\")\n")),
    ("guard_instance_uninit", "bad", [("        lm.fill(acc, 0.0)\n", "        lm.fill(acc, 0.0)\n        lm.fill(kt, 0.0)\n")] * 0 +
     body("            if w != 1:\n                lm.copy(kt, Kc, coords=(q0, kb * 64))\n            lm.binary(acc, acc, kt, op=\"add\")\n")),
    ("write_o_s_next", "bad", body(BODY + "            lm.copy(o_s[(w + 1) % 4], acc)\n")),
    ("read_o_s", "bad", body(BODY + "            lm.copy(ot, o_s[(w + 1) % 4])\n")),
    ("reads_out", "good", body("            lm.copy(kt, O, coords=(q0, kb * 64))\n            lm.binary(acc, acc, kt, op=\"add\")\n")),
    ("slice_param", "good", body("            lm.copy(kt[:, 0:32], Kc, coords=(q0, kb * 64))\n            lm.copy(kt[:, 32:64], Kc, coords=(q0, kb * 64 + 32))\n"
                                 "            lm.binary(acc, acc, kt, op=\"add\")\n")),
    ("half_written_then_read", "bad", body("            lm.copy(kt[:, 0:32], Kc, coords=(q0, kb * 64))\n            lm.binary(acc, acc, kt, op=\"add\")\n")),
    ("seq_guard_in_body", "bad", body("            if seq_q > 100:\n                lm.copy(kt, Kc, coords=(q0, kb * 64))\n            lm.binary(acc, acc, kt, op=\"add\")\n")),
    ("uninit_second_reg", "bad", body(BODY + "            lm.binary(acc, acc, ot, op=\"add\")\n            lm.fill(ot, 1.0)\n")),
]

# ---------------------------------------------------------------- good41: per-barrier derived expect_tx
ARMED = "basics/consumer_armed_barrier.cake"
ARM = "            lm.expect_tx(full, 2 * 64 * 64 * 2, iter=k)\n"
TX_MUTANTS = [
    ("base", "good", []),
    ("bytes_short", "bad", [(ARM, "            lm.expect_tx(full, 2 * 64 * 64 * 2 - 16, iter=k)\n")]),
    ("bytes_long", "bad", [(ARM, "            lm.expect_tx(full, 2 * 64 * 64 * 2 + 16, iter=k)\n")]),
    ("bytes_last_tile", "bad", [(ARM, "            lm.expect_tx(full, 2 * 64 * 64 * 2 - 16 * (k + 1 == n_tiles), iter=k)\n")]),
    ("bytes_tile_5", "bad", [(ARM, "            lm.expect_tx(full, 2 * 64 * 64 * 2 - 16 * (k == 5), iter=k)\n")]),
    ("armed_in_dead_branch", "bad", [(ARM, "            if n_tiles < 0:\n                lm.expect_tx(full, 2 * 64 * 64 * 2, iter=k)\n")]),
    ("armed_once", "bad", [(ARM, "            if k == 0:\n                lm.expect_tx(full, 2 * 64 * 64 * 2, iter=k)\n")]),
    ("loader_arms_too", "bad", [("            smem_a.tma_load(A, coords=(0, 64 * k), iter=k, barrier=full)\n",
                                 "            lm.expect_tx(full, 8192, iter=k)\n            smem_a.tma_load(A, coords=(0, 64 * k), iter=k, barrier=full)\n")]),
    ("loader_arms_split", "bad", [(ARM, "            lm.expect_tx(full, 64 * 64 * 2, iter=k)\n"),
                                   ("            smem_a.tma_load(A, coords=(0, 64 * k), iter=k, barrier=full)\n",
                                    "            lm.expect_tx(full, 8192, iter=k)\n            smem_a.tma_load(A, coords=(0, 64 * k), iter=k, barrier=full)\n")]),
    ("arm_next_phase", "bad", [(ARM, "            lm.expect_tx(full, 2 * 64 * 64 * 2, iter=k + 1)\n")]),
    ("arm_after_wait_last", "bad", [(ARM, ""), ("            lm.wait(full, iter=k)\n",
                                                "            if k + 1 < n_tiles:\n                lm.expect_tx(full, 2 * 64 * 64 * 2, iter=k)\n"
                                                "            lm.wait(full, iter=k)\n            if k + 1 == n_tiles:\n"
                                                "                lm.expect_tx(full, 2 * 64 * 64 * 2, iter=k)\n")]),
    ("b_on_other_barrier", "bad", [("            smem_b.tma_load(B, coords=(0, 64 * k), iter=k, barrier=full)\n",
                                    "            smem_b.tma_load(B, coords=(0, 64 * k), iter=k, barrier=full2)\n"),
                                   ("    empty = lm.barrier(", "    full2 = lm.barrier(count=2, prod=[load], cons=[math], init_count=1)\n    empty = lm.barrier(")]),
    ("b_on_other_barrier_waited", "bad", [("            smem_b.tma_load(B, coords=(0, 64 * k), iter=k, barrier=full)\n",
                                           "            smem_b.tma_load(B, coords=(0, 64 * k), iter=k, barrier=full2)\n"),
                                          ("    empty = lm.barrier(", "    full2 = lm.barrier(count=2, prod=[load], cons=[math], init_count=1)\n    empty = lm.barrier("),
                                          ("            lm.wait(full, iter=k)\n", "            lm.wait(full, iter=k)\n            lm.wait(full2, iter=k)\n")]),
]

# ---------------------------------------------------------------- mc41: interchangeable processes
def two_slot():
    t = read("bench/limits/sm90_deepgemm_leader_multicast_a_2wg.cake")
    t = t.replace("stages=3", "stages=2").replace("lm.wait(empty, iter=k - 3)", "lm.wait(empty, iter=k - 2)")
    return t


I = "lm.instance()"
SYM_MUTANTS = [
    ("base", "good", []),
    ("rows_swapped", "good", [("        r0 = 64 * lm.instance()\n", "        r0 = 64 - 64 * lm.instance()\n")]),
    ("rows_overlap_read", "good", [("            lm.mma(tmp, smem_a[k][r0:r0 + 64, :]", "            lm.mma(tmp, smem_a[k][r0 // 2:r0 // 2 + 64, :]")]),
    ("wg1_sfa_next_stage", "bad", [("smem_sfa[k][:, r0:r0 + 64]", f"smem_sfa[k + {I}][:, r0:r0 + 64]")]),
    ("wg1_release_before_copy", "bad", [("            lm.copy(sa, smem_sfa[k][:, r0:r0 + 64])\n", ""),
                                        ("            lm.arrive(empty, iter=k, cta=1)\n",
                                         f"            lm.arrive(empty, iter=k, cta=1)\n            lm.copy(sa, smem_sfa[(k + 1) * 0 + k][:, r0:r0 + 64])\n")]),
    ("wg1_release_cta0_twice", "bad", [("            lm.arrive(empty, iter=k, cta=1)\n", f"            lm.arrive(empty, iter=k, cta=1 - {I})\n")]),
    ("wg1_wait_late_k", "bad", [("            lm.wait(full, iter=k)\n", f"            lm.wait(full, iter=k + {I} * (k == 1))\n")]),
    ("wg1_sfa_write", "bad", [("            lm.copy(sa, smem_sfa[k][:, r0:r0 + 64])\n",
                               "            lm.copy(sa, smem_sfa[k][:, r0:r0 + 64])\n            lm.copy(smem_sfa[k][:, 64 - r0:128 - r0], sa)\n")]),
    ("both_sfa_write_own", "good", [("            lm.copy(sa, smem_sfa[k][:, r0:r0 + 64])\n",
                                    "            lm.copy(sa, smem_sfa[k][:, r0:r0 + 64])\n            lm.copy(smem_sfa[k][:, r0:r0 + 64], sa)\n")]),
    ("wg_rows_32_overlap_sfa_write", "bad", [("            lm.copy(sa, smem_sfa[k][:, r0:r0 + 64])\n",
                                              "            lm.copy(sa, smem_sfa[k][:, r0:r0 + 64])\n            lm.copy(smem_sfa[k][:, r0 // 2:r0 // 2 + 64], sa)\n")]),
    ("wg1_fence_missing_k1", "bad", [("            lm.fence_proxy()\n", f"            if {I} == 0 or k != 1:\n                lm.fence_proxy()\n")]),
]

# respellings the comparer may call equal (round two): each value against
# lm.cdiv(K, 64) under the PR's lemma, labelled by evaluation
RESPELL2_MUTANTS = [
    ("floor_of_floor_mul", "good", steps("max((K // 64 * 64) // 64, 1)")),
    ("double_floor", "good", steps("max(K * 2 // 128, 1)")),
    ("nested_floor", "good", steps("max((K // 2) // 32, 1)")),
    ("floor3_mul3", "bad", steps("max((K // 3) * 3 // 64, 1)")),
    ("mod_plus_floor", "bad", steps("max(K % 64 + K // 64, 1)")),
    ("times_k_over_k", "good", steps("max(K // 64, 1) * (K // K)")),
    ("min_cap_exact", "good", steps("min(max(K // 64, 1), 33554431)")),
    ("min_cap_short", "bad", steps("min(max(K // 64, 1), 33554430)")),
    ("mod_cap", "bad", steps("max(K // 64, 1) % 33554431")),
    ("mul_div_64", "good", steps("(max(K // 64, 1) * 64) // 64")),
    ("mul3_plus1", "good", steps("(max(K // 64, 1) * 3 + 1) // 3")),
    ("mul3_plus3", "bad", steps("(max(K // 64, 1) * 3 + 3) // 3")),
    ("minus_k0", "good", steps("max(K // 64, 1) - (K == 0)")),
    ("minus_k448", "bad", steps("max(K // 64, 1) - (K == 64 * 7)")),
    ("cdiv_of_floor", "bad", steps("lm.cdiv(K // 64, 1) + (K < 64) * (K > 1)")),
    ("abs_like", "good", steps("max(K // 64, 0 - K // 64, 1)")),
    ("div_neg_neg", "good", steps("max((0 - K) // (0 - 64), 1)")),
    ("mod_neg_divisor", "good", steps("max(K // 64, 1) + (K % (0 - 64) < 0) * (K > 64)")),
]

# ---------------------------------------------------------------- fa4x: copies per ring start (TripFa10's kernel)
def ring_minus_tile():
    text = read("tests/encoder/persistent_kernels.h")
    body = text.split('kRingMinusTile = R"CAKE(', 1)[1].split(')CAKE";', 1)[0]
    return body.replace("    with mma:\n        for t in lm.range(0, T):\n",
                        "    with mma:\n        for t in lm.range(0, T):\n            lm.wait(v_full, iter=t * n_blocks)\n")


PRE = "            lm.wait(v_full, iter=t * n_blocks)\n"


def pre(text):
    return [(PRE, text)]


FA4X_MUTANTS = [
    ("base", "good", []),
    ("pre_future_v_t3", "bad", pre(PRE + "            if t >= 3:\n                lm.wait(v_full, iter=t * n_blocks + 2)\n")),
    ("pre_p_same", "good", pre(PRE + "            lm.wait(p_full, iter=t * n_blocks)\n")),
    ("pre_p_next", "bad", pre(PRE + "            lm.wait(p_full, iter=t * n_blocks + 1)\n")),
    ("pre_v_old_t4", "bad", pre(PRE + "            if t >= 4:\n                lm.wait(v_full, iter=t * n_blocks - 2)\n")),
    ("pre_o_ready_t5", "bad", pre(PRE + "            if t == 5:\n                lm.wait(o_ready, iter=t * n_blocks)\n")),
    ("pre_only_t0", "good", pre("            if t == 0:\n                lm.wait(v_full, iter=0)\n")),
    ("pre_v_next_tile_last", "bad", pre(PRE + "            if t + 1 == T and t >= 2:\n                lm.wait(v_full, iter=t * n_blocks + n_blocks)\n")),
]


def main():
    out = sys.argv[1]
    index = []
    s40.write(out, "kb", corpus(FA3), KB_MUTANTS, index)
    s40.write(out, "respell", corpus(TRITON), RESPELL_MUTANTS, index)
    s40.write(out, "floor", corpus(FLOOR), FLOOR_MUTANTS, index)
    s40.write(out, "private", corpus(XPU), PRIVATE_MUTANTS, index)
    s40.write(out, "tx", corpus(ARMED), TX_MUTANTS, index)
    s40.write(out, "sym", two_slot(), SYM_MUTANTS, index)
    s40.write(out, "respell2", corpus(TRITON), RESPELL2_MUTANTS, index)
    s40.write(out, "fa4x", ring_minus_tile(), FA4X_MUTANTS, index)
    write_index(out, index)


if __name__ == "__main__":
    main()
