// Lowering's validation (lowering/validate.cpp) reports what the compute-op
// emitters cannot take before any emission: PlanBuilder::build() (plan and
// validation, no Emitter) gives the finding, lowerToCuda reports exactly it,
// and an Emitter handed a plan that failed validation throws (an internal
// error, never a finding made up during emission). One schedule per check,
// for each family: element-wise ops, reductions, TMEM <-> register copies.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "ir/frontend.h"
#include "lowering/emit.h"
#include "lowering/lower.h"
#include "tests/common/corpus_files.h"

using namespace cake;

namespace {

ir::Schedule compileValid(const std::string& text) {
  ir::DiagnosticSink sink;
  auto m = ir::compileModule(ir::makeSourceFile("t.cake", text), {}, sink);
  std::string msgs;
  for (const auto& f : sink.findings()) msgs += ir::renderText(f);
  EXPECT_TRUE(m && !m->schedules.empty() && !sink.hasErrors()) << msgs;
  return m && !m->schedules.empty() ? m->schedules[0] : ir::Schedule{};
}

std::string rendered(const std::vector<ir::Finding>& fs) {
  std::string s;
  for (const auto& f : fs) s += ir::renderText(f) + "\n";
  return s;
}

// Plans and validates `text` (no emission) and expects exactly one finding,
// `rule` with `message`, at `line`; lowerToCuda must report the same, and
// emitting the rejected plan must be an internal error.
void expectValidationFinds(const std::string& text, const char* rule, const std::string& message, int line) {
  const ir::Schedule s = compileValid(text);
  const lowering::LowerOptions o;
  lowering::detail::PlanBuilder plan(s, o);
  EXPECT_FALSE(plan.build());
  ASSERT_EQ(plan.findings_.size(), 1u) << rendered(plan.findings_);
  const ir::Finding& f = plan.findings_[0];
  EXPECT_EQ(f.rule, rule);
  EXPECT_EQ(f.message, message);
  EXPECT_EQ(f.range.line, line);
  const auto r = lowering::lowerToCuda(s, o);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(rendered(r.findings), rendered(plan.findings_));
  lowering::detail::Emitter emitter(plan);
  EXPECT_THROW(emitter.kernel(), std::logic_error);
}

// A warpgroup role that loads the 64x64 fragment x, then runs `body`; its
// first line is line 9 plus one per line of `decls`.
std::string warpgroup(const std::string& decls, const std::string& body) {
  return "@cake.schedule(target=\"sm_90a\")\n"
         "def t(lm, X: LM.gmem, Y: LM.gmem):\n"
         "    pool = lm.smem(65536)\n"
         "    sv = pool.view(offset=0, shape=(1, 128), dtype=lm.f32, stages=1)\n"
         "    x = lm.regs(shape=(64, 64), dtype=lm.f32)\n" +
         decls +
         "    wg = lm.role(warps=[0, 1, 2, 3])\n"
         "    with wg:\n"
         "        lm.copy(x, X, coords=(0, 0))\n" +
         body;
}

const char* kOneDecl = "    y = lm.regs(shape=(32, 64), dtype=lm.f32)\n";

}  // namespace

// ---- element-wise

TEST(LoweringValidation, ElementwiseBroadcastIsFoundBeforeEmission) {
  expectValidationFinds(warpgroup(kOneDecl, "        lm.copy(y, X, coords=(0, 0))\n"
                                            "        lm.copy(x, y)\n"
                                            "        lm.copy(Y, x, coords=(0, 0))\n"),
                        "lower.layout", "operand shape 32x64 does not broadcast to 64x64", 11);
}

TEST(LoweringValidation, ElementwiseTwoDimensionalTileOfRankOneTensor) {
  expectValidationFinds(warpgroup("", "        lm.copy(Y, x, coords=(0,))\n"), "lower.unsupported",
                        "a 2-D tile of a rank-1 tensor", 9);
}

TEST(LoweringValidation, ElementwiseFragmentSliceOffItsLayout) {
  expectValidationFinds(
      warpgroup("    y = lm.regs(shape=(3, 64), dtype=lm.f32)\n", "        lm.copy(y, x[1:4, 0:64])\n"
                                                                  "        lm.copy(Y, y, coords=(0, 0))\n"),
      "lower.layout",
      "the slice at (1, 0) of fragment 'x' is not a whole part of its rows cycle over the instance's 128 threads", 10);
}

// ---- reductions

TEST(LoweringValidation, ReduceIntoTheWrongSizeIsFoundBeforeEmission) {
  expectValidationFinds(warpgroup("    part = lm.regs(shape=(32, 1), dtype=lm.f32)\n",
                                  "        lm.reduce(part, x, op=\"sum\", axis=1)\n"),
                        "lower.layout", "reduce of 64x64 along axis 1 gives 64x1, not the destination's 32x1", 10);
}

TEST(LoweringValidation, ReduceIntoASlicedSlot) {
  expectValidationFinds(warpgroup("", "        lm.reduce(sv[0][0:1, 0:64], x, op=\"sum\", axis=0)\n"
                                      "        lm.copy(Y, sv[0], coords=(0, 0))\n"),
                        "lower.unsupported", "a reduction into a sliced slot", 9);
}

TEST(LoweringValidation, ReduceOverALeadingAxisOfRankThree) {
  expectValidationFinds(warpgroup("    z = lm.regs(shape=(4, 16, 64), dtype=lm.f32)\n"
                                  "    part = lm.regs(shape=(16, 64), dtype=lm.f32)\n",
                                  "        lm.fill(z, 1.0)\n"
                                  "        lm.reduce(part, z, op=\"sum\", axis=0)\n"),
                        "lower.unsupported", "a reduction over a leading axis of a rank > 2 operand", 12);
}

// ---- TMEM <-> registers

namespace {
// The corpus' sm_100a GEMM whose epilogue reads the TMEM accumulator, with
// the epilogue's warps and its fragment's columns replaced.
std::string tmemEpilogue(const std::string& warps, const std::string& cols) {
  std::string s = test::readText(test::sourceDir() + "/corpus/layout/bad_tmem_reader_three_warps.cake");
  auto replace = [&](const std::string& from, const std::string& to) {
    const size_t p = s.find(from);
    EXPECT_NE(p, std::string::npos) << from;
    if (p != std::string::npos) s.replace(p, from.size(), to);
  };
  replace("lm.role(warps=[0, 1, 2])", "lm.role(warps=" + warps + ")");
  replace("acc_r    = lm.regs(shape=(128, 128)", "acc_r    = lm.regs(shape=(128, " + cols + ")");
  return s;
}
}  // namespace

TEST(LoweringValidation, TmemCopyNeedsFourWarps) {
  expectValidationFinds(tmemEpilogue("[0, 1, 2]", "128"), "lower.layout",
                        "a TMEM copy of 128 lanes needs an instance of at least 4 warps", 49);
}

TEST(LoweringValidation, TmemCopyMovesTheFragmentsColumns) {
  const std::string s = tmemEpilogue("[0, 1, 2, 3]", "64");
  const ir::Schedule sc = compileValid(s);
  lowering::detail::PlanBuilder plan(sc, {});
  EXPECT_FALSE(plan.build());
  // the copy's own finding comes first, then the store of the narrower fragment's
  ASSERT_GE(plan.findings_.size(), 1u);
  EXPECT_EQ(plan.findings_[0].rule, "lower.layout");
  EXPECT_EQ(plan.findings_[0].message,
            "a TMEM copy moves 32, 64, 96 or 128 lanes to a fragment of as many rows and the same columns (TMEM "
            "128x128, fragment 128x64)");
  EXPECT_EQ(plan.findings_[0].range.line, 49);
}

TEST(LoweringValidation, TmemCopyInstancesStartAtAWarpgroup) {
  std::string s = tmemEpilogue("[1, 2, 3, 4]", "128");
  for (auto [from, to] : {std::pair<std::string, std::string>{"lm.role(warps=[4])", "lm.role(warps=[5])"},
                          {"lm.role(warps=[5])\n\n", "lm.role(warps=[6])\n\n"}})
    s.replace(s.find(from), from.size(), to);
  expectValidationFinds(s, "lower.layout",
                        "role 'epi': warp 1 of instance 0 reaches TMEM lanes 32..63, not the lanes 0..31 its "
                        "fragment rows come from",
                        49);
}

// A schedule that validates lowers: the same plan emits without an internal error.
TEST(LoweringValidation, ValidatedPlanEmits) {
  const ir::Schedule s = compileValid(tmemEpilogue("[0, 1, 2, 3]", "128"));
  lowering::detail::PlanBuilder plan(s, {});
  ASSERT_TRUE(plan.build()) << rendered(plan.findings_);
  lowering::detail::Emitter emitter(plan);
  EXPECT_NE(emitter.kernel().find("cake_tmem_ld_x32"), std::string::npos);
}

// ---- mma.sync operand fragments (docs/ir-reference.md "mma.sync operand fragments")

namespace {
// A 4-warp sm_80 role that lands a 64x16 a and b slot, loads them into the operand fragments fa and fb
// (ldmatrix), then runs `body` from line 17.
std::string sm80Fragments(const std::string& body) {
  return "@cake.schedule(target=\"sm_80\")\n"
         "def t(lm, X: LM.gmem, Y: LM.gmem):\n"
         "    pool = lm.smem(4096)\n"
         "    sa = pool.view(offset=0, shape=(64, 16), dtype=lm.bf16, stages=1)\n"
         "    sb = pool.view(offset=2048, shape=(64, 16), dtype=lm.bf16, stages=1)\n"
         "    acc = lm.regs(shape=(64, 64), dtype=lm.f32)\n"
         "    fa = lm.regs(shape=(64, 16), dtype=lm.bf16)\n"
         "    fb = lm.regs(shape=(64, 16), dtype=lm.bf16)\n"
         "    w = lm.role(warps=[0, 1, 2, 3])\n"
         "    with w:\n"
         "        sa.cp_async(X, coords=(0, 0), stage=0)\n"
         "        sb.cp_async(Y, coords=(0, 0), stage=0)\n"
         "        lm.cp_async_commit()\n"
         "        lm.cp_async_wait(pending=0)\n"
         "        lm.copy(fa, sa[0])\n"
         "        lm.copy(fb, sb[0])\n" +
         body;
}
}  // namespace

TEST(LoweringValidation, OperandFragmentsFeedMmaSync) {
  const ir::Schedule s = compileValid(sm80Fragments("        lm.mma(acc, fa, fb, init=(0 == 0))\n"));
  lowering::detail::PlanBuilder plan(s, {});
  ASSERT_TRUE(plan.build()) << rendered(plan.findings_);
  lowering::detail::Emitter emitter(plan);
  const std::string k = emitter.kernel();
  // 64x64 over 2x2 warps: a warp's a rows are 2 m16 tiles, its b rows 2 pairs of n8 tiles; one k-step
  EXPECT_NE(k.find("uint32_t fa[2][1][4];  // fa 64x16: mma.sync a-operand layout (warp grid 2x2)"), std::string::npos);
  EXPECT_NE(k.find("uint32_t fb[2][1][4];  // fb 64x16: mma.sync b-operand layout (warp grid 2x2)"), std::string::npos);
  EXPECT_NE(k.find("cake_ldmatrix_x4(fa[t][cake_k], cake_s + "), std::string::npos);
  EXPECT_NE(k.find("(cake_wwarp / 2) * 32 + 16 * t + cake_lane % 16"), std::string::npos);  // a: the warp row's
  EXPECT_NE(k.find("(cake_wwarp % 2) * 32 + 16 * t + cake_lane % 8 + (cake_lane / 16) * 8"),
            std::string::npos);  // b: the warp column's
  // the n8 tiles in serpentine order on sm_80 (docs/gpu.md "sm_80: serpentine mma order")
  EXPECT_NE(k.find("fa[i][cake_k], fb[cake_sj / 2][cake_k][(cake_sj % 2) * 2], fb[cake_sj / 2][cake_k][(cake_sj % 2) * 2 + 1]);"),
            std::string::npos);
}

TEST(LoweringValidation, OperandFragmentOnlyFeedsAnMma) {
  expectValidationFinds(sm80Fragments("        lm.mma(acc, fa, fb, init=(0 == 0))\n"
                                      "        lm.copy(X, fa, coords=(0, 0))\n"),
                        "lower.layout",
                        "fragment 'fa' holds mma.sync operand registers (mma.sync a-operand layout (warp grid 2x2)): "
                        "only an lm.copy from a shared-memory slot fills it and only an lm.mma reads it",
                        18);
}

TEST(LoweringValidation, OperandFragmentLoadsTheWholeTile) {
  expectValidationFinds(sm80Fragments("        lm.mma(acc, fa, fb, init=(0 == 0))\n"
                                      "        lm.copy(fa, sa[0][0:32, 0:16])\n"),
                        "lower.layout",
                        "fragment 'fa' holds mma.sync operand registers (mma.sync a-operand layout (warp grid 2x2)): "
                        "the source tile is 32x16, the fragment 64x16",
                        18);
}

TEST(LoweringValidation, MmaWithRegisterBNeedsRegisterA) {
  expectValidationFinds(sm80Fragments("        lm.mma(acc, sa[0], fb, init=(0 == 0))\n"), "lower.unsupported",
                        "an mma with b from registers needs a from registers too (operand fragments)", 17);
}
