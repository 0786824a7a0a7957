// Layout and hardware-contract gates: rule by rule, with the symbolic
// checks shown both ways (proved under lm.assume; a counterexample with
// concrete parameter values when an assumption is missing).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "ir/target.h"
#include "layout_test_util.h"

namespace cake {
namespace {

using layout_test::GateRun;
using layout_test::lineOf;
using layout_test::readFile;
using layout_test::ring;
using layout_test::runGates;
using layout_test::sourceDir;

std::string corpusText(const std::string& rel) { return readFile(sourceDir() / "corpus" / "layout" / rel); }

std::unique_ptr<GateRun> corpus(const std::string& rel, ir::Target t = ir::Target::Unspecified) {
  return runGates(corpusText(rel), t, rel);
}

const checks::PropertyVerdict& verdictOf(const GateRun& r, const std::string& rule) {
  static checks::PropertyVerdict none{"", checks::VerdictKind::Error, "missing"};
  const auto* v = r.verdict(rule);
  return v ? *v : none;
}

// ------------------------------------------------- symbolic, both ways

TEST(LayoutGates, ViewInsidePoolProvedUnderAssumptions) {
  auto r = corpus("good_view_outside_pool_bm_bounded.cake");
  EXPECT_EQ(r->errors(), 0u) << r->describe();
  const auto& v = verdictOf(*r, "layout.view-outside-pool");
  EXPECT_EQ(v.kind, checks::VerdictKind::Proved) << v.detail;
  EXPECT_NE(v.detail.find("symbolic"), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find("BM <= 128"), std::string::npos) << v.detail;
}

TEST(LayoutGates, ViewOutsidePoolCounterexampleNamesBM) {
  std::string text = corpusText("bad_view_outside_pool_bm_unbounded.cake");
  auto r = runGates(text);
  auto fs = r->rule("layout.view-outside-pool");
  ASSERT_EQ(fs.size(), 1u) << r->describe();
  const ir::Finding& f = *fs[0];
  EXPECT_EQ(f.severity, ir::Severity::Error);
  EXPECT_EQ(f.range.line, lineOf(text, "smem_x = pool.view"));
  EXPECT_EQ(f.verdict, "counterexample");
  ASSERT_TRUE(f.data.contains("counterexample")) << f.data.dump();
  int64_t bm = f.data["counterexample"]["BM"].get<int64_t>();
  EXPECT_GE(bm, 192);
  EXPECT_EQ(bm % 64, 0);
  EXPECT_EQ(f.data["view_end"].get<int64_t>(), 2 * bm * 64 * 2);
  EXPECT_EQ(f.data["pool_bytes"].get<int64_t>(), 32768);
  EXPECT_NE(f.message.find("when BM = " + std::to_string(bm)), std::string::npos) << f.message;
  // The other side: the pool.
  ASSERT_FALSE(f.notes.empty());
  EXPECT_EQ(f.notes[0].range.line, lineOf(text, "pool   = lm.smem"));
  EXPECT_EQ(verdictOf(*r, "layout.view-outside-pool").kind, checks::VerdictKind::Counterexample);
}

TEST(LayoutGates, ViewWithNonPositiveExtent) {
  auto r = runGates(ring(", BM: LM.i32", "", "32768",
                         R"(pool.view(offset=0, shape=(BM, 64), dtype=lm.bf16, stages=2, swizzle="128B"))", "BM"));
  auto fs = r->rule("layout.view-outside-pool");
  ASSERT_FALSE(fs.empty()) << r->describe();
  EXPECT_NE(fs[0]->message.find("not positive"), std::string::npos) << fs[0]->message;
  EXPECT_LE(fs[0]->data["counterexample"]["BM"].get<int64_t>(), 0);
}

TEST(LayoutGates, SmemLimitBothWays) {
  auto good = corpus("good_smem_limit_bm_128.cake");
  EXPECT_EQ(good->errors(), 0u) << good->describe();
  EXPECT_EQ(verdictOf(*good, "layout.smem-limit").kind, checks::VerdictKind::Proved);
  EXPECT_EQ(good->resources["smem"]["total"]["max"].get<int64_t>(), 8 * 128 * 128 + 16 * 8);

  std::string text = corpusText("bad_smem_limit_bm_256.cake");
  auto bad = runGates(text);
  auto fs = bad->rule("layout.smem-limit");
  ASSERT_EQ(fs.size(), 1u) << bad->describe();
  EXPECT_EQ(fs[0]->range.line, lineOf(text, "pool   = lm.smem"));
  int64_t bm = fs[0]->data["counterexample"]["BM"].get<int64_t>();
  EXPECT_GT(1024 * bm + 128, 232448);
  EXPECT_EQ(fs[0]->data["limit"].get<int64_t>(), 232448);
  EXPECT_EQ(bad->errors(), 1u) << bad->describe();
}

TEST(LayoutGates, SmemLimitPerTarget) {
  // 196608 bytes fit sm_90a (232448) but not sm_80 (166912).
  std::string src = ring("", "", "196608",
                         R"(pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B"))");
  auto hopper = runGates(src);
  EXPECT_FALSE(hopper->has("layout.smem-limit")) << hopper->describe();
  std::string ampere = src;
  ampere.replace(ampere.find("sm_90a"), 6, "sm_80");
  auto a = runGates(ampere);
  auto fs = a->rule("layout.smem-limit");
  ASSERT_EQ(fs.size(), 1u) << a->describe();
  EXPECT_NE(fs[0]->message.find("166912"), std::string::npos) << fs[0]->message;
  // 166912 exactly (minus the 4 mbarriers' 32 bytes and the 1024 bytes of
  // alignment slack the launch adds) still fits sm_80; one byte more does
  // not (the layout then ends at 165904, 16-byte aligned).
  std::string edge = ampere;
  edge.replace(edge.find("196608"), 6, "165856");
  auto e = runGates(edge);
  EXPECT_FALSE(e->has("layout.smem-limit")) << e->describe();
  edge.replace(edge.find("165856"), 6, "165857");
  auto e2 = runGates(edge);
  EXPECT_TRUE(e2->has("layout.smem-limit")) << e2->describe();
}

TEST(LayoutGates, MisalignedSwizzleAtomBothWays) {
  auto good = corpus("good_misaligned_offset_bm_multiple_of_8.cake");
  EXPECT_EQ(good->errors(), 0u) << good->describe();
  EXPECT_EQ(verdictOf(*good, "layout.misaligned").kind, checks::VerdictKind::Proved);
  auto bad = corpus("bad_misaligned_offset_bm_any.cake");
  auto fs = bad->rule("layout.misaligned");
  ASSERT_EQ(fs.size(), 1u) << bad->describe();
  int64_t bm = fs[0]->data["counterexample"]["BM"].get<int64_t>();
  EXPECT_NE(bm % 8, 0);
  EXPECT_EQ(fs[0]->data["alignment"].get<int64_t>(), 1024);
  EXPECT_NE(fs[0]->message.find("128B swizzle atom"), std::string::npos) << fs[0]->message;
}

TEST(LayoutGates, MisalignedSlotStride) {
  // 3 stages of 9 x 8 bf16 = 144-byte slots: slot 1 starts at byte 144,
  // 16-byte aligned but not 128-byte aligned as a TMA copy needs.
  auto r = runGates(ring("", "", "32768", R"(pool.view(offset=0, shape=(9, 8), dtype=lm.bf16, stages=3))", "9"));
  auto fs = r->rule("layout.misaligned");
  ASSERT_EQ(fs.size(), 1u) << r->describe();
  EXPECT_NE(fs[0]->message.find("slot 1"), std::string::npos) << fs[0]->message;
  EXPECT_EQ(fs[0]->data["alignment"].get<int64_t>(), 128);
}

// A block reduction's per-warp scratch as the shared array it is
// (`__shared__ float red[4]`: four 4-byte slots) is touched only by
// element-wise generic copies (ld.shared / st.shared of one float): its
// slots need 4 bytes, not 16 (docs/rules/layout.misaligned.md; before:
// "slot 1 of view 'red' starts 4 bytes after slot 0, not a multiple of 16
// bytes", a false alarm). The same slots written by cp.async need its
// chunk, 4 bytes for a 4-byte row (cp.async.ca 4; before session 42 a
// false alarm too: a Triton ring of one i32 index per slot); written by a
// register copy three floats wide (paired 8-byte stores) they are still
// misaligned.
const char* kRed4 = R"(@cake.schedule(target="sm_90a")
def red4(lm, X: LM.gmem, Y: LM.gmem):
    pool  = lm.smem(1024)
    red   = pool.view(offset=0, shape=(1, 1), dtype=lm.f32, stages=4)
    part  = lm.regs(shape=(1, 1), dtype=lm.f32)
    tot   = lm.regs(shape=(1, 1), dtype=lm.f32)
    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        lm.copy(part, X, coords=(w, 0))
        lm.copy(red[w], part)
        lm.sync(block)
        lm.copy(tot, red[(w + 1) % 4])
        lm.copy(Y, tot, coords=(w, 0))
)";

std::string red4(const std::string& from, const std::string& to, std::string t = kRed4) {
  const size_t at = t.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) t.replace(at, from.size(), to);
  return t;
}

// kRed4 with its slots, and the registers copied through them, n floats wide
std::string red4Wide(int n) {
  std::string t = kRed4;
  for (const std::string decl : {"red   = pool.view(offset=0, ", "part  = lm.regs(", "tot   = lm.regs("})
    t = red4(decl + "shape=(1, 1)", decl + "shape=(1, " + std::to_string(n) + ")", t);
  return t;
}

TEST(LayoutGates, MisalignedAsksEachSlotWhatItsUsesNeed) {
  auto ok = runGates(kRed4);
  EXPECT_FALSE(ok->has("layout.misaligned")) << ok->describe();
  EXPECT_EQ(verdictOf(*ok, "layout.misaligned").kind, checks::VerdictKind::Proved);
  // two floats per slot, written by a register copy two wide: 8-byte slots hold its pairs
  auto pairs = runGates(red4Wide(2));
  EXPECT_FALSE(pairs->has("layout.misaligned")) << pairs->describe();
  // cp.async writes the 4-byte slots: 4-byte chunks (cp.async.ca), aligned
  auto cp4 = runGates(red4("        lm.copy(part, X, coords=(w, 0))\n        lm.copy(red[w], part)\n",
                           "        red.cp_async(X, coords=(w, 0), stage=w)\n        lm.cp_async_commit()\n"
                           "        lm.cp_async_wait(pending=0)\n"));
  EXPECT_FALSE(cp4->has("layout.misaligned")) << cp4->describe();
  EXPECT_EQ(verdictOf(*cp4, "layout.misaligned").kind, checks::VerdictKind::Proved);
  struct Bad {
    std::string text;
    int64_t align;
    const char* why;
  } bad[] = {
      // 12-byte slots written three floats wide: paired stores need 8
      {red4Wide(3), 8, "paired 4-byte stores"},
  };
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.why);
    auto r = runGates(b.text);
    auto fs = r->rule("layout.misaligned");
    ASSERT_EQ(fs.size(), 1u) << r->describe();
    EXPECT_NE(fs[0]->message.find("slot 1 of view 'red'"), std::string::npos) << fs[0]->message;
    EXPECT_NE(fs[0]->message.find(b.why), std::string::npos) << fs[0]->message;
    EXPECT_EQ(fs[0]->data["alignment"].get<int64_t>(), b.align);
  }
}

TEST(LayoutGates, TmaRulesBothWays) {
  struct Pair {
    const char *good, *bad, *rule;
  } pairs[] = {
      {"good_tma_box_rows_bounded.cake", "bad_tma_box_rows_unbounded.cake", "tma.box-extent"},
      {"good_tma_inner_bytes_bk_multiple_of_4.cake", "bad_tma_inner_bytes_bk_even.cake", "tma.inner-bytes"},
      {"good_tma_swizzle_span_bk_64.cake", "bad_tma_swizzle_span_bk_128.cake", "tma.swizzle-span"},
      {"good_tx_balance_symbolic.cake", "bad_tx_imbalance_symbolic.cake", "sync.tx-imbalance"},
      {"good_tma_dtype_one_element_type.cake", "bad_tma_dtype_two_element_types.cake", "tma.dtype"},
  };
  for (const auto& p : pairs) {
    SCOPED_TRACE(p.rule);
    auto g = corpus(p.good);
    EXPECT_EQ(g->errors(), 0u) << g->describe();
    EXPECT_EQ(verdictOf(*g, p.rule).kind, checks::VerdictKind::Proved) << g->describe();
    auto b = corpus(p.bad);
    auto fs = b->rule(p.rule);
    ASSERT_EQ(fs.size(), 1u) << b->describe();
    EXPECT_FALSE(fs[0]->notes.empty());
    EXPECT_EQ(verdictOf(*b, p.rule).kind, checks::VerdictKind::Counterexample);
  }
  // The concrete values.
  auto box = corpus("bad_tma_box_rows_unbounded.cake");
  EXPECT_GT(box->rule("tma.box-extent")[0]->data["counterexample"]["BM"].get<int64_t>(), 256);
  auto inner = corpus("bad_tma_inner_bytes_bk_even.cake");
  int64_t bk = inner->rule("tma.inner-bytes")[0]->data["counterexample"]["BK"].get<int64_t>();
  EXPECT_NE(bk * 4 % 16, 0);
  auto span = corpus("bad_tma_swizzle_span_bk_128.cake");
  EXPECT_EQ(span->rule("tma.swizzle-span")[0]->data["counterexample"]["BK"].get<int64_t>(), 128);
  auto tx = corpus("bad_tx_imbalance_symbolic.cake");
  const ir::Finding& t = *tx->rule("sync.tx-imbalance")[0];
  EXPECT_EQ(t.data["expected"].get<int64_t>(), 2 * t.data["boxes"].get<int64_t>()) << t.data.dump();
}

TEST(LayoutGates, TxImbalanceWithoutLoads) {
  std::string src = R"(@cake.schedule(target="sm_90a")
def lonely(lm, X: LM.tma2d):
    pool = lm.smem(16384)
    v    = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16)
    w    = lm.role(warps=[0])
    b    = lm.barrier(count=1, prod=[w], cons=[w], init_count=1)
    with w:
        lm.expect_tx(b, 8192, stage=0)
        lm.wait(b, stage=0)
)";
  auto r = runGates(src);
  auto fs = r->rule("sync.tx-imbalance");
  ASSERT_EQ(fs.size(), 1u) << r->describe();
  EXPECT_NE(fs[0]->message.find("no TMA load"), std::string::npos);
}

// One arrive.expect_tx per TMA load with init_count = 2 announces the phase's
// bytes in two parts: their sum, not each part, must equal the boxes (the
// check compared each expect_tx with all loads of the phase, a false alarm on
// this correct pattern).  A wrong sum is still reported, once, with a note
// on the other expect_tx.
TEST(LayoutGates, TxBalanceSumsTheExpectTxOfOnePhase) {
  auto src = [](int second) {
    return std::string(R"(@cake.schedule(target="sm_90a")
def split_tx(lm, A: LM.tma2d, B: LM.tma2d, K: LM.i32):
    pool = lm.smem(32768)
    va   = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=2)
    vb   = pool.view(offset=16384, shape=(32, 64), dtype=lm.bf16, stages=2)
    w    = lm.role(warps=[0])
    full = lm.barrier(count=2, prod=[w], cons=[w], init_count=2)
    with w:
        for k in lm.range(0, K):
            lm.expect_tx(full, 8192, iter=k)
            va.tma_load(A, coords=(0, k * 64), iter=k, barrier=full)
            lm.expect_tx(full, )") + std::to_string(second) + R"(, iter=k)
            vb.tma_load(B, coords=(0, k * 64), iter=k, barrier=full)
            lm.wait(full, iter=k)
)";
  };
  auto good = runGates(src(4096));
  EXPECT_TRUE(good->rule("sync.tx-imbalance").empty()) << good->describe();
  auto bad = runGates(src(2048));
  auto fs = bad->rule("sync.tx-imbalance");
  ASSERT_EQ(fs.size(), 1u) << bad->describe();
  EXPECT_NE(fs[0]->message.find("the 2 expect_tx"), std::string::npos) << fs[0]->message;
  EXPECT_NE(fs[0]->message.find("10240"), std::string::npos) << fs[0]->message;
  EXPECT_NE(fs[0]->message.find("12288"), std::string::npos) << fs[0]->message;
}

// An explicit expect_tx whose phase also receives the loads of an if/else
// inside its block (one path loads the whole B tile, the other two halves)
// cannot be paired with the loads of its own block alone: the static gate
// used to report the 24 KiB announcement against the 8 KiB A load as
// sync.tx-imbalance (a false alarm on DeepGEMM's conditional multicast,
// corpus/bugs/sync.tx-imbalance/deepgemm_kgrouped_multicast_straddle_fixed.cake);
// the model checker, which counts what lands, decides such phases. A
// mismatch with every load in the block is still reported.
TEST(LayoutGates, TxBalanceLeavesBranchLoadsToTheModelChecker) {
  auto src = [](const std::string& bytes, bool branches) {
    std::string loads = branches ? R"(            if k % 2 == 0:
                vb.tma_load(B, coords=(0, k * 64), iter=k, barrier=full)
            else:
                vh[2 * (k % 2)].tma_load(B, coords=(0, k * 64), iter=k, barrier=full)
                vh[2 * (k % 2) + 1].tma_load(B, coords=(64, k * 64), iter=k, barrier=full)
)"
                                 : "            vb.tma_load(B, coords=(0, k * 64), iter=k, barrier=full)\n";
    return std::string(R"(@cake.schedule(target="sm_90a")
def branch_tx(lm, A: LM.tma2d, B: LM.tma2d, K: LM.i32):
    pool = lm.smem(49152)
    va   = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=2)
    vb   = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2)
    vh   = pool.view(offset=16384, shape=(64, 64),  dtype=lm.bf16, stages=4)
    w    = lm.role(warps=[0])
    full = lm.barrier(count=2, prod=[w], cons=[w], init_count=1)
    with w:
        for k in lm.range(0, K):
            lm.expect_tx(full, )") + bytes + R"(, iter=k)
            va.tma_load(A, coords=(0, k * 64), iter=k, barrier=full)
)" + loads + "            lm.wait(full, iter=k)\n";
  };
  auto branches = runGates(src("24576", true));
  EXPECT_TRUE(branches->rule("sync.tx-imbalance").empty()) << branches->describe();
  auto straight = runGates(src("24576", false));
  EXPECT_TRUE(straight->rule("sync.tx-imbalance").empty()) << straight->describe();
  auto wrong = runGates(src("16384", false));
  EXPECT_EQ(wrong->rule("sync.tx-imbalance").size(), 1u) << wrong->describe();
}

// An expect_tx whose bytes include a load of another block (a prologue
// that arms the slot and loads the weights before griddepcontrol.wait, the
// activations loaded in the loop after it) was compared with the loads of
// its own block only: a false sync.tx-imbalance. A load on the barrier in a
// block with no expect_tx of its own leaves the pairing to the model checker.
TEST(LayoutGates, TxBalanceLeavesLoadsOfOtherBlocksToTheModelChecker) {
  auto src = [](const std::string& bytes, bool split) {
    std::string prologue_loads = split ? "" : "                va.tma_load(A, coords=(0, s * 64), iter=s, barrier=full)\n";
    std::string loop_loads = split ? "            va.tma_load(A, coords=(0, k * 64), iter=k, barrier=full)\n" : "";
    return std::string(R"(@cake.schedule(target="sm_90a")
def split_tx(lm, A: LM.tma2d, B: LM.tma2d, K: LM.i32):
    lm.assume(K > 0)
    pool = lm.smem(49152)
    va   = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=2)
    vb   = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2)
    w    = lm.role(warps=[0])
    full = lm.barrier(count=2, prod=[w], cons=[w], init_count=1)
    with w:
        for s in lm.range(0, 2):
            if s < K:
                lm.expect_tx(full, )") + bytes + R"(, iter=s)
                vb.tma_load(B, coords=(0, s * 64), iter=s, barrier=full)
)" + prologue_loads + R"(        for k in lm.range(0, K):
)" + loop_loads + "            lm.wait(full, iter=k)\n";
  };
  auto split = runGates(src("24576", true));
  EXPECT_TRUE(split->rule("sync.tx-imbalance").empty()) << split->describe();
  auto together = runGates(src("24576", false));
  EXPECT_TRUE(together->rule("sync.tx-imbalance").empty()) << together->describe();
  auto wrong = runGates(src("16384", false));
  EXPECT_EQ(wrong->rule("sync.tx-imbalance").size(), 1u) << wrong->describe();
}

// ------------------------------------------------------------- MMA

TEST(LayoutGates, MmaRulesBothWays) {
  struct Pair {
    const char *good, *bad, *rule;
  } pairs[] = {
      {"good_mma_shape_instances_in_range.cake", "bad_mma_shape_third_instance.cake", "mma.shape-mismatch"},
      {"good_mma_no_instruction_bn_multiple_of_8.cake", "bad_mma_no_instruction_bn_multiple_of_4.cake",
       "mma.no-instruction"},
      {"good_mma_dtype_bf16_into_f32.cake", "bad_mma_dtype_bf16_into_f16.cake", "mma.dtype"},
      {"good_mma_operand_a_in_smem.cake", "bad_mma_operand_a_in_registers.cake", "mma.operand-location"},
      {"good_mma_swizzle_64b_rows.cake", "bad_mma_swizzle_128b_on_64_byte_rows.cake", "mma.swizzle"},
      {"good_mma_warpgroup_aligned.cake", "bad_mma_warpgroup_unaligned.cake", "mma.warpgroup"},
  };
  for (const auto& p : pairs) {
    SCOPED_TRACE(p.rule);
    auto g = corpus(p.good);
    EXPECT_EQ(g->errors(), 0u) << g->describe();
    EXPECT_EQ(verdictOf(*g, p.rule).kind, checks::VerdictKind::Proved) << g->describe();
    auto b = corpus(p.bad);
    EXPECT_FALSE(b->rule(p.rule).empty()) << b->describe();
    EXPECT_EQ(verdictOf(*b, p.rule).kind, checks::VerdictKind::Counterexample);
  }
  auto third = corpus("bad_mma_shape_third_instance.cake");
  const ir::Finding& f = *third->rule("mma.shape-mismatch")[0];
  EXPECT_EQ(f.data["counterexample"]["lm.instance()"].get<int64_t>(), 2) << f.data.dump();
  EXPECT_NE(f.message.find("takes rows [128, 192) of 'smem_a'"), std::string::npos) << f.message;
  auto bn = corpus("bad_mma_no_instruction_bn_multiple_of_4.cake");
  EXPECT_NE(bn->rule("mma.no-instruction")[0]->data["counterexample"]["BN"].get<int64_t>() % 8, 0);
  // The good BN file is a proof over BN, not a constant check.
  auto good_bn = corpus("good_mma_no_instruction_bn_multiple_of_8.cake");
  EXPECT_NE(verdictOf(*good_bn, "mma.no-instruction").detail.find("1 symbolic"), std::string::npos)
      << verdictOf(*good_bn, "mma.no-instruction").detail;
}

TEST(LayoutGates, MmaInstructionShapesPerTarget) {
  // The same 64x128x64 bf16 tile is an instruction shape on all three targets
  // except tcgen05 (M = 64 needs N % 8: fine; K % 16: fine) - and M = 32 is on none.
  auto sm80 = runGates(readFile(sourceDir() / "corpus/gemm/sm80_cp_async_multistage.cake"));
  EXPECT_FALSE(sm80->has("mma.no-instruction")) << sm80->describe();
  auto sm100 = runGates(readFile(sourceDir() / "corpus/gemm/sm100_tcgen05_ws.cake"));
  EXPECT_FALSE(sm100->has("mma.no-instruction")) << sm100->describe();
  EXPECT_EQ(sm100->errors(), 0u) << sm100->describe();
}

TEST(LayoutGates, TransposedWgmmaTilesDecodeShapes) {
  // sm_90a: M not a multiple of 64 is tiled by the transposed wgmma (b on the
  // 64-row side, a as its B) when N % 64 == 0 and a is in shared memory
  // (docs/ir-extensions.md "Transposed wgmma"); neither form: a finding
  auto gates = [](const std::string& rel) {
    return runGates(readFile(sourceDir() / "corpus/gates/mma.no-instruction" / rel));
  };
  auto good = gates("good_wgmma_transposed_m8.cake");
  EXPECT_EQ(good->errors(), 0u) << good->describe();
  EXPECT_EQ(verdictOf(*good, "mma.no-instruction").kind, checks::VerdictKind::Proved) << good->describe();
  auto regs = gates("bad_wgmma_transposed_a_regs.cake");
  ASSERT_EQ(regs->rule("mma.no-instruction").size(), 1u) << regs->describe();
  EXPECT_NE(regs->rule("mma.no-instruction")[0]->message.find("a in registers: no transposed form"), std::string::npos)
      << regs->rule("mma.no-instruction")[0]->message;
  auto m32 = gates("bad_wgmma_m32.cake");
  ASSERT_EQ(m32->rule("mma.no-instruction").size(), 1u) << m32->describe();
  EXPECT_NE(m32->rule("mma.no-instruction")[0]->message.find("M = 32, N = 96"), std::string::npos)
      << m32->rule("mma.no-instruction")[0]->message;
  // symbolic rows: every BM in 8..128 that is a multiple of 8 is tiled (the
  // plain form at 64 and 128, the transposed one otherwise); a multiple of 4 is not
  auto tile = [](const std::string& assume) {
    return std::string(R"(@cake.schedule(target="sm_90a")
def decode_rows(lm, A: LM.tma2d, B: LM.tma2d, C: LM.gmem, BM: LM.i32):
    lm.assume(BM >= 8)
    lm.assume(BM <= 128)
    lm.assume()") + assume + R"()
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(BM, 64), dtype=lm.bf16, swizzle="128B")
    smem_b = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    acc    = lm.regs(shape=(BM, 128), dtype=lm.f32)
    load = lm.role(warps=[4])
    math = lm.role(warps=[0, 1, 2, 3])
    full = lm.barrier(count=1, prod=[load], cons=[math], init_count=1)
    with load:
        smem_a.tma_load(A, coords=(lm.block_idx(0) * BM, 0), stage=0, barrier=full)
        smem_b.tma_load(B, coords=(lm.block_idx(1) * 128, 0), stage=0, barrier=full)
    with math:
        lm.wait(full, stage=0)
        lm.mma(acc, smem_a[0], smem_b[0], init=True)
        lm.mma_commit()
        lm.mma_wait(pending=0)
        lm.copy(C, acc, coords=(lm.block_idx(0) * BM, lm.block_idx(1) * 128))
)";
  };
  auto eight = runGates(tile("BM % 8 == 0"));
  EXPECT_FALSE(eight->has("mma.no-instruction")) << eight->describe();
  EXPECT_EQ(verdictOf(*eight, "mma.no-instruction").kind, checks::VerdictKind::Proved) << eight->describe();
  auto four = runGates(tile("BM % 4 == 0"));
  ASSERT_EQ(four->rule("mma.no-instruction").size(), 1u) << four->describe();
  EXPECT_NE(four->rule("mma.no-instruction")[0]->data["counterexample"]["BM"].get<int64_t>() % 8, 0);
}

TEST(LayoutGates, MmaDtypeFp8OnAmpere) {
  auto r = runGates(readFile(sourceDir() / "corpus/gates/mma.dtype/bad_sm80_fp8_operands.cake"));
  auto fs = r->rule("mma.dtype");
  ASSERT_EQ(fs.size(), 1u) << r->describe();
  EXPECT_NE(fs[0]->message.find("sm_90a and sm_100a"), std::string::npos) << fs[0]->message;
  EXPECT_EQ(fs[0]->notes.size(), 3u);
}

// ------------------------------------------------------------ TMEM

TEST(LayoutGates, TmemRulesBothWays) {
  struct Pair {
    const char *good, *bad, *rule;
  } pairs[] = {
      {"good_tmem_columns_c0_bounded.cake", "bad_tmem_columns_c0_unbounded.cake", "tmem.out-of-range"},
      {"good_tmem_overlap_second_region_after.cake", "bad_tmem_overlap_second_region_w64.cake", "tmem.overlap"},
      {"good_tmem_width_128.cake", "bad_tmem_width_192.cake", "tmem.width"},
      {"good_tmem_reader_warpgroup.cake", "bad_tmem_reader_three_warps.cake", "tmem.reader"},
  };
  for (const auto& p : pairs) {
    SCOPED_TRACE(p.rule);
    auto g = corpus(p.good);
    EXPECT_EQ(g->errors(), 0u) << g->describe();
    EXPECT_EQ(verdictOf(*g, p.rule).kind, checks::VerdictKind::Proved) << g->describe();
    auto b = corpus(p.bad);
    ASSERT_EQ(b->rule(p.rule).size(), 1u) << b->describe();
    EXPECT_EQ(b->errors(), 1u) << b->describe();
  }
  auto c0 = corpus("bad_tmem_columns_c0_unbounded.cake");
  EXPECT_GE(c0->rule("tmem.out-of-range")[0]->data["counterexample"]["C0"].get<int64_t>(), 512 - 127);
  auto w = corpus("bad_tmem_overlap_second_region_w64.cake");
  const ir::Finding& f = *w->rule("tmem.overlap")[0];
  EXPECT_EQ(f.data["counterexample"]["W"].get<int64_t>(), 64);
  EXPECT_NE(f.message.find("[64, 128)"), std::string::npos) << f.message;
  auto rd = corpus("bad_tmem_reader_three_warps.cake");
  EXPECT_NE(rd->rule("tmem.reader")[0]->message.find("lanes 96-127"), std::string::npos);
}

// An sm_100a GEMM whose MMA writes `tmem_acc` with `INIT` and whose
// epilogue reads it back; PRE is put at the top of the epilogue body.
std::string tmemInitGemm(const std::string& init, const std::string& pre = "") {
  return R"(
@cake.schedule(target="sm_100a")
def tmem_init(lm, A: LM.tma2d, B: LM.tma2d, D: LM.gmem):
    pool     = lm.smem(32768)
    smem_a   = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    smem_b   = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    tmem_acc = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    r        = lm.regs(shape=(128, 128), dtype=lm.f32)
    epi  = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])
    full     = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    acc_full = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    with load:
        smem_a.tma_load(A, coords=(0, 0), stage=0, barrier=full)
        smem_b.tma_load(B, coords=(0, 0), stage=0, barrier=full)
    with mma:
        lm.wait(full, stage=0)
        lm.mma(tmem_acc, smem_a[0], smem_b[0])" + init + R"()
        lm.mma_commit(barrier=acc_full, stage=0)
    with epi:
)" + pre + R"(        lm.wait(acc_full, stage=0)
        lm.tmem_load(r, tmem_acc)
        lm.tmem_load_wait()
        lm.copy(D, r, coords=(0, 0))
)";
}

TEST(LayoutGates, TmemReadThatNothingWritesIsUninitialized) {
  // tcgen05.alloc does not clear TMEM: an MMA that only ever accumulates
  // into a region nothing else writes adds to undefined values.
  auto bad = runGates(tmemInitGemm(""));
  auto fs = bad->rule("data.uninitialized");
  ASSERT_EQ(fs.size(), 1u) << bad->describe();
  EXPECT_NE(fs[0]->message.find("accumulates into TMEM region 'tmem_acc'"), std::string::npos) << fs[0]->message;
  EXPECT_EQ(runGates(tmemInitGemm(", init=False"))->rule("data.uninitialized").size(), 1u);
  // An init= that can be true, or any other write of the region, defines it.
  for (const std::string& init : {std::string(", init=True"), std::string(", init=(lm.block_idx(0) == 0)")}) {
    auto good = runGates(tmemInitGemm(init));
    EXPECT_FALSE(good->has("data.uninitialized")) << init << "\n" << good->describe();
  }
  const std::string zero_first = "        lm.fill(r, 0.0)\n        lm.tmem_store(tmem_acc, r)\n        lm.tmem_store_wait()\n";
  auto stored = runGates(tmemInitGemm("", zero_first));
  EXPECT_FALSE(stored->has("data.uninitialized")) << stored->describe();
}

TEST(LayoutGates, TmemGatesOnlyWhereTmemExists) {
  // On sm_90a an lm.tmem is a target.feature error and the TMEM gates stay quiet.
  auto r = runGates(readFile(sourceDir() / "corpus/gates/target.feature/bad_tmem_on_sm90.cake"));
  auto fs = r->rule("target.feature");
  ASSERT_EQ(fs.size(), 1u) << r->describe();
  EXPECT_NE(fs[0]->message.find("sm_100a"), std::string::npos) << fs[0]->message;
  EXPECT_FALSE(r->has("tmem.width"));
}

// ------------------------------------------------------ roles and regs

TEST(LayoutGates, RoleAndRegisterRulesBothWays) {
  struct Pair {
    const char *good, *bad, *rule;
  } pairs[] = {
      {"good_roles_disjoint.cake", "bad_roles_load_warp_in_reducer.cake", "roles.warp-overlap"},
      {"good_roles_warps_within_32.cake", "bad_roles_warps_beyond_32.cake", "roles.too-many-warps"},
      {"good_regs_setmaxnreg_40.cake", "bad_regs_setmaxnreg_20.cake", "regs.setmaxnreg"},
      {"good_regs_budget_40_232.cake", "bad_regs_budget_56_240.cake", "regs.budget"},
      {"good_regs_fragment_acc_fits.cake", "bad_regs_fragment_budgets_swapped.cake", "regs.fragment"},
  };
  for (const auto& p : pairs) {
    SCOPED_TRACE(p.rule);
    auto g = corpus(p.good);
    EXPECT_EQ(g->errors(), 0u) << g->describe();
    EXPECT_EQ(verdictOf(*g, p.rule).kind, checks::VerdictKind::Proved) << g->describe();
    auto b = corpus(p.bad);
    ASSERT_EQ(b->rule(p.rule).size(), 1u) << b->describe();
    EXPECT_EQ(b->errors(), 1u) << b->describe();
  }
  auto budget = corpus("bad_regs_budget_56_240.cake");
  const ir::Finding& f = *budget->rule("regs.budget")[0];
  EXPECT_EQ(f.data["registers"].get<int64_t>(), 128 * 56 + 256 * 240);
  EXPECT_EQ(f.data["capacity"].get<int64_t>(), 168 * 384);
  EXPECT_EQ(f.notes.size(), 1u);  // the producer role
}

TEST(LayoutGates, RoleGroupOnASchedulePastTheFrontEnd) {
  // The front end rejects group=3 on 4 warps; a schedule built another way
  // (a generator, a mutator) still meets the gate.
  auto good = corpus("good_roles_group_divides.cake");
  ASSERT_TRUE(good->module);
  EXPECT_EQ(verdictOf(*good, "roles.group").kind, checks::VerdictKind::Proved);
  ir::Schedule s = good->schedule();
  for (ir::Role& r : s.roles)
    if (r.name == "red") r.group = 3;
  ir::DiagnosticSink sink;
  nlohmann::json res;
  std::vector<checks::PropertyVerdict> verdicts;
  checks::runLayoutGates(s, {}, sink, res, verdicts);
  int n = 0;
  for (const auto& f : sink.findings())
    if (f.rule == "roles.group") {
      ++n;
      EXPECT_NE(f.message.find("which group=3 does not divide"), std::string::npos) << f.message;
    }
  EXPECT_EQ(n, 1);
}

TEST(LayoutGates, SetmaxnregIsPerWarpgroup) {
  auto r = runGates(readFile(sourceDir() / "corpus/gates/regs.setmaxnreg/bad_budget_on_one_warp_of_a_warpgroup.cake"));
  auto fs = r->rule("regs.setmaxnreg");
  ASSERT_EQ(fs.size(), 1u) << r->describe();
  EXPECT_NE(fs[0]->message.find("warpgroup 0"), std::string::npos) << fs[0]->message;
  EXPECT_NE(fs[0]->notes.at(0).message.find("in no role"), std::string::npos) << fs[0]->notes.at(0).message;
}

TEST(LayoutGates, TargetFeatureNamesTheTargetThatHasIt) {
  std::string text = corpusText("bad_target_wgmma_wait_on_sm100.cake");
  auto r = runGates(text);
  auto fs = r->rule("target.feature");
  ASSERT_EQ(fs.size(), 2u) << r->describe();
  for (const ir::Finding* f : fs) {
    EXPECT_NE(f->message.find("a feature of sm_90a; the target is sm_100a"), std::string::npos) << f->message;
    ASSERT_FALSE(f->notes.empty());
    EXPECT_EQ(f->data["available_on"], nlohmann::json::array({"sm_90a"}));
  }
  auto tma = runGates(readFile(sourceDir() / "corpus/gates/target.feature/bad_tma_on_sm80.cake"));
  ASSERT_FALSE(tma->rule("target.feature").empty());
  EXPECT_NE(tma->rule("target.feature")[0]->message.find("sm_90a and sm_100a"), std::string::npos);
  EXPECT_FALSE(tma->has("tma.box-extent"));  // no TMA gates where TMA does not exist
}

// ------------------------------------------------------------ notes

TEST(LayoutGates, IntendedAliasingIsANoteNotAnError) {
  std::string text = corpusText("good_overlap_epilogue_over_drained_ring.cake");
  auto r = runGates(text);
  EXPECT_EQ(r->errors(), 0u) << r->describe();
  auto fs = r->rule("layout.overlap");
  ASSERT_EQ(fs.size(), 1u) << r->describe();
  const ir::Finding& f = *fs[0];
  EXPECT_EQ(f.severity, ir::Severity::Note);
  EXPECT_EQ(f.range.line, lineOf(text, "smem_c = pool.view"));
  EXPECT_EQ(f.notes.at(0).range.line, lineOf(text, "smem_a = pool.view"));
  EXPECT_EQ(f.data["bytes"], nlohmann::json::array({0, 32768}));
  EXPECT_TRUE(f.data["always"].get<bool>());
  EXPECT_EQ(f.subject["views"], nlohmann::json::array({"smem_a", "smem_c"}));
}

TEST(LayoutGates, SymbolicOverlapIsSometimes) {
  auto r = runGates(ring(", OFF: LM.i32", "    lm.assume(OFF >= 0 and OFF <= 32768 and OFF % 1024 == 0)\n", "65536",
                         R"(pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_y = pool.view(offset=OFF, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B"))"));
  auto fs = r->rule("layout.overlap");
  ASSERT_EQ(fs.size(), 1u) << r->describe();
  EXPECT_FALSE(fs[0]->data["always"].get<bool>());
  EXPECT_NE(fs[0]->message.find("when OFF = "), std::string::npos) << fs[0]->message;
}

TEST(LayoutGates, NoTargetSkipsTargetGatesWithOneNote) {
  auto r = corpus("good_notarget_ring.cake");
  EXPECT_EQ(r->errors(), 0u) << r->describe();
  auto fs = r->rule("target.unspecified");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0]->severity, ir::Severity::Note);
  EXPECT_EQ(r->verdict("layout.smem-limit"), nullptr);
  EXPECT_NE(r->verdict("layout.view-outside-pool"), nullptr);
  EXPECT_TRUE(r->resources["blocks_per_sm"].is_null());
  // With a target from the command line the note goes away.
  auto t = corpus("good_notarget_ring.cake", ir::Target::SM90a);
  EXPECT_FALSE(t->has("target.unspecified")) << t->describe();
  EXPECT_NE(t->verdict("layout.smem-limit"), nullptr);
}

TEST(LayoutGates, ContradictoryAssumptionsAreFlagged) {
  auto r = runGates(ring(", BM: LM.i32", "    lm.assume(BM > 128)\n    lm.assume(BM <= 64)\n", "32768",
                         R"(pool.view(offset=0, shape=(BM, 64), dtype=lm.bf16, stages=2, swizzle="128B"))", "BM"));
  auto fs = r->rule("layout.assume-contradiction");
  ASSERT_EQ(fs.size(), 1u) << r->describe();
  EXPECT_EQ(fs[0]->severity, ir::Severity::Error);  // nothing is checked: never a pass (issue 9)
  const auto& v = verdictOf(*r, "layout.view-outside-pool");
  EXPECT_NE(v.detail.find("vacuously"), std::string::npos) << v.detail;
}

TEST(LayoutGates, UndecidedIsNeverAPass) {
  // Whether the offset is aligned depends on factoring a 60-bit semiprime:
  // far beyond a 1 ms budget. The verdict must be unknown, never proved.
  std::string src = ring(", P: LM.i32, Q: LM.i32", "    lm.assume(P > 1 and Q > 1)\n", "65536",
                         R"(pool.view(offset=(P * Q == 998244359987710471) * 16, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B"))");
  ir::DiagnosticSink fs;
  auto mod = ir::compileModule(ir::makeSourceFile("t.cake", src), {}, fs);
  ASSERT_TRUE(mod) << (fs.findings().empty() ? "" : fs.findings()[0].message);
  checks::CheckOptions opts;
  opts.timeout_ms = 1;
  ir::DiagnosticSink sink;
  nlohmann::json res;
  std::vector<checks::PropertyVerdict> verdicts;
  checks::runLayoutGates(mod->schedules[0], opts, sink, res, verdicts);
  bool seen = false;
  for (const auto& v : verdicts) {
    if (v.property != "layout.misaligned") continue;
    seen = true;
    EXPECT_EQ(v.kind, checks::VerdictKind::Unknown) << v.property << ": " << v.detail;
    EXPECT_NE(v.detail.find("timeout"), std::string::npos) << v.detail;
  }
  EXPECT_TRUE(seen);
}

// ------------------------------------------------------ the report

// The corpus gate turns the report off (CheckOptions::resource_report): it
// goes, and every other finding and every verdict stay as they were.
TEST(ResourceReport, OffLeavesOtherFindingsAndVerdicts) {
  for (const char* rel : {"corpus/gemm/sm90_ws_4stage.cake", "corpus/layout/good_smem_limit_bm_128.cake",
                          "corpus/layout/bad_smem_limit_bm_256.cake"}) {
    const std::string text = readFile(sourceDir() / rel);
    auto on = runGates(text, ir::Target::Unspecified, rel);
    auto off = runGates(text, ir::Target::Unspecified, rel, false, /*resource_report=*/false);
    EXPECT_EQ(on->rule("report.resources").size(), 1u) << rel;
    EXPECT_TRUE(off->rule("report.resources").empty()) << rel;
    EXPECT_TRUE(off->resources.empty()) << rel;
    auto others = [](const GateRun& r) {
      std::vector<std::string> out;
      for (const ir::Finding& f : r.sink.findings())
        if (f.rule != "report.resources") out.push_back(fmt::format("{}:{}: {}", f.rule, f.range.line, f.message));
      return out;
    };
    EXPECT_EQ(others(*on), others(*off)) << rel;
    ASSERT_EQ(on->verdicts.size(), off->verdicts.size()) << rel;
    for (size_t i = 0; i < on->verdicts.size(); ++i) {
      EXPECT_EQ(on->verdicts[i].property, off->verdicts[i].property) << rel;
      EXPECT_EQ(on->verdicts[i].kind, off->verdicts[i].kind) << rel << " " << on->verdicts[i].property;
      EXPECT_EQ(on->verdicts[i].detail, off->verdicts[i].detail) << rel << " " << on->verdicts[i].property;
    }
  }
}

TEST(ResourceReport, Sm90GemmNumbers) {
  auto r = runGates(readFile(sourceDir() / "corpus/gemm/sm90_ws_4stage.cake"));
  ASSERT_EQ(r->errors(), 0u) << r->describe();
  auto fs = r->rule("report.resources");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0]->severity, ir::Severity::Remark);
  EXPECT_EQ(fs[0]->category, ir::Category::PerformanceReport);
  const nlohmann::json& j = r->resources;
  EXPECT_EQ(fs[0]->data, j);
  EXPECT_EQ(j["target"], "sm_90a");
  EXPECT_EQ(j["smem"]["limit"].get<int64_t>(), 232448);
  EXPECT_EQ(j["smem"]["total"].get<int64_t>(), 163840 + 8 * 8);
  EXPECT_EQ(j["smem"]["pools"][0]["views"].size(), 3u);
  EXPECT_EQ(j["smem"]["pools"][0]["views"][0]["bytes"].get<int64_t>(), 65536);
  EXPECT_EQ(j["smem"]["barriers"]["slots"].get<int64_t>(), 8);
  EXPECT_EQ(j["registers"]["launch_per_thread"].get<int64_t>(), 168);
  EXPECT_EQ(j["registers"]["total"].get<int64_t>(), 64512);
  EXPECT_EQ(j["registers"]["roles"][1]["per_thread"].get<int64_t>(), 232);
  EXPECT_EQ(j["registers"]["roles"][1]["fragment_regs"].get<int64_t>(), 64);
  EXPECT_TRUE(j["tmem"].is_null());
  EXPECT_EQ(j["blocks_per_sm"]["value"].get<int64_t>(), 1);
  EXPECT_EQ(j["blocks_per_sm"]["by"]["smem"].get<int64_t>(), 1);
}

// Two blocks of 8 warps on sm_90a (233,472 B per SM): each may occupy
// 116,736 B = layout + 1,024 alignment slack (what the lowering requests)
// + 1,024 reserved by the driver, so a layout of 114,688 B fits twice and
// one of 114,704 B once - though without the slack it would fit twice.
std::unique_ptr<GateRun> occupancyRing(int64_t pool_bytes) {
  return runGates(ring("", "", std::to_string(pool_bytes),
                       R"(pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B"))"));
}

TEST(ResourceReport, AlignmentSlackDecidesTwoBlocksPerSm) {
  auto under = occupancyRing(114688 - 32);
  ASSERT_EQ(under->errors(), 0u) << under->describe();
  const nlohmann::json& u = under->resources;
  ASSERT_EQ(u["smem"]["barriers"]["bytes"].get<int64_t>(), 32);
  const nlohmann::json& b = u["blocks_per_sm"];
  EXPECT_EQ(b["smem"]["layout"].get<int64_t>(), 114688);
  EXPECT_EQ(b["smem"]["requested"].get<int64_t>(), ir::requestedSmemBytes(114688));
  EXPECT_EQ(b["smem"]["per_block"].get<int64_t>(), 116736);
  EXPECT_EQ(b["value"].get<int64_t>(), 2);
  EXPECT_EQ(b["limiter"], "smem");
  EXPECT_EQ(b["smem"]["shed_for_next"].get<int64_t>(), 116736 - 233472 / 3);
  // 256 threads: the launch cap is 248 registers, one block's worth; two
  // blocks fit at 128 or fewer. Registers are an assumption, not the value.
  EXPECT_FALSE(b["registers"]["known"].get<bool>());
  EXPECT_EQ(b["registers"]["assumed_per_thread"].get<int64_t>(), 248);
  EXPECT_EQ(b["registers"]["blocks_at_assumed"].get<int64_t>(), 1);
  EXPECT_EQ(b["registers"]["max_per_thread_for_value"].get<int64_t>(), 128);
  EXPECT_EQ(b["with_assumed_registers"].get<int64_t>(), 1);
  EXPECT_FALSE(b["by"].contains("registers"));
  auto fu = under->rule("report.resources");
  ASSERT_EQ(fu.size(), 1u);
  EXPECT_NE(fu[0]->message.find("2 block(s)/SM (limited by smem: 2 x 116,736 B"), std::string::npos)
      << fu[0]->message;
  EXPECT_NE(fu[0]->message.find("registers unknown before ptxas: at the assumed 248/thread only 1 fit, 2 fit at <= "
                                "128/thread"),
            std::string::npos)
      << fu[0]->message;

  auto over = occupancyRing(114688 - 32 + 16);  // the layout ends 16-byte aligned
  ASSERT_EQ(over->errors(), 0u) << over->describe();
  const nlohmann::json& o = over->resources["blocks_per_sm"];
  EXPECT_EQ(o["smem"]["layout"].get<int64_t>(), 114704);
  EXPECT_EQ(o["value"].get<int64_t>(), 1);
  EXPECT_EQ(o["limiter"], "smem");
  EXPECT_EQ(o["smem"]["shed_for_next"].get<int64_t>(), 16);
  auto fo = over->rule("report.resources");
  ASSERT_EQ(fo.size(), 1u);
  EXPECT_NE(fo[0]->message.find("2 need 16 B less per block"), std::string::npos) << fo[0]->message;
  EXPECT_NE(fo[0]->message.find("not limiting even at the assumed 248/thread"), std::string::npos) << fo[0]->message;
}

TEST(ResourceReport, Sm100TmemAndSymbolicMaximum) {
  auto r = corpus("good_tmem_columns_c0_bounded.cake");
  const nlohmann::json& j = r->resources;
  EXPECT_EQ(j["tmem"]["regions"][0]["cols"]["expr"], "C0");
  EXPECT_EQ(j["tmem"]["regions"][0]["cols"]["max"].get<int64_t>(), 384);
  auto s = corpus("good_smem_limit_bm_128.cake");
  EXPECT_EQ(s->resources["smem"]["pools"][0]["bytes"]["max"].get<int64_t>(), 8 * 128 * 128);
  auto t = runGates(readFile(sourceDir() / "corpus/gemm/sm100_tcgen05_ws.cake"));
  EXPECT_EQ(t->resources["tmem"]["allocated"].get<int64_t>(), 128);
  EXPECT_EQ(t->resources["blocks_per_sm"]["by"]["tmem"].get<int64_t>(), 4);
}

TEST(LayoutRules, TableCoversEveryRuleWithAPage) {
  std::set<std::string> ids;
  for (const auto& r : checks::layoutRules()) {
    EXPECT_TRUE(ids.insert(std::string(r.id)).second) << r.id;
    EXPECT_FALSE(r.summary.empty());
    EXPECT_TRUE(std::filesystem::exists(sourceDir() / "docs" / "rules" / (std::string(r.id) + ".md"))) << r.id;
  }
  EXPECT_TRUE(std::filesystem::exists(sourceDir() / "docs" / "resource-report.md"));
}

}  // namespace
}  // namespace cake
