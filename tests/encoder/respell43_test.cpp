// One meaning, any spelling (helper respell43, session 43; docs/z3.md "View
// slots and implicit arrival phases spelled another way"):
//  * `view[e % m]` (m a multiple of the view's stages) on a view whose slots
//    an op names by iteration is kept as `view[e]` by the front end, so the
//    model checker and lowering read one index: the fixed TileLang ring read
//    as `smem_a[it % 4]` is proved as `smem_a[it]` is, and the bug read as
//    `smem_a[k % 4]` / `smem_a[k % 8]` is `data.stale-read` as `smem_a[k]`
//    is. On a view only stages name, `e % m` stays a stage (a per-tile
//    counter `h % 2` is no iteration of the ring).
//  (respell43's implicit arrival phases and their test were reverted at the
//  merge: docs/z3.md, same section.)
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"

using namespace cake;
using namespace cake::testing;
using namespace cake::testing::attacks;

namespace respell43_test {

const std::string kTileLang = "corpus/bugs/data.stale-read/tilelang_ws_persistent_slot_k_vs_phase";
const std::string kNSplit = "corpus/gemm/sm100_persistent_two_mma_warps_n_split.cake";

// The slot expressions of the view operands named `view` in the schedule.
std::vector<ir::ExprPtr> slotsOf(const ir::Schedule& s, const std::string& view) {
  std::vector<ir::ExprPtr> out;
  for (const ir::RoleBody& b : s.bodies)
    ir::forEachOp(b.body, [&](const ir::Stmt& st) {
      for (const ir::BufferRef* r : {&st.op.dst, &st.op.src, &st.op.src2})
        if (r->kind == ir::BufferRef::Kind::View && r->slot && s.views[r->index].name == view) out.push_back(r->slot);
    });
  return out;
}

ir::ExprKind onlySlotKind(const std::string& text, const std::string& view) {
  auto mod = compile(text);
  if (mod.schedules.empty()) return ir::ExprKind::Const;
  const std::vector<ir::ExprPtr> slots = slotsOf(mod.schedules.at(0), view);
  EXPECT_FALSE(slots.empty()) << view;
  for (const ir::ExprPtr& e : slots) EXPECT_EQ(e->kind, slots.front()->kind) << view;
  return slots.empty() ? ir::ExprKind::Const : slots.front()->kind;
}

std::string mmaReads(const std::string& text, const std::string& from, const std::string& to) {
  return replace(text, "smem_a[" + from + "], smem_b[" + from + "]", "smem_a[" + to + "], smem_b[" + to + "]");
}

}  // namespace respell43_test

namespace r43 = respell43_test;

// The front end keeps `smem_a[it % 4]` and `smem_a[it % 8]` as `smem_a[it]`
// (`w * k_blocks + k`, an Add) where a TMA load names the view's slots by `iter=`, and
// leaves `smem_a[it % 3]` (not a multiple of the stages: another slot) and
// a stage-only view's `smem_d[h % 2]` alone. Compile only.
TEST(RespelledSlot, AModulusOfTheStagesIsDroppedOnlyOnViewsNamedByIteration) {
  const std::string fixed = corpusText(r43::kTileLang + "_fixed.cake");
  EXPECT_EQ(r43::onlySlotKind(r43::mmaReads(fixed, "it", "it % 4"), "smem_a"), ir::ExprKind::Add);
  EXPECT_EQ(r43::onlySlotKind(r43::mmaReads(fixed, "it", "it % 8"), "smem_a"), ir::ExprKind::Add);
  EXPECT_EQ(r43::onlySlotKind(r43::mmaReads(fixed, "it", "it % 3"), "smem_a"), ir::ExprKind::Mod);
  EXPECT_EQ(r43::onlySlotKind(corpusText(r43::kNSplit), "smem_d"), ir::ExprKind::Mod);
}

// The fixed ring read through `it % 4` is proved like the corpus file; the
// bug read through `k % 4` and `k % 8` is found as data.stale-read, like the
// corpus bug, and not proved.
TEST(RespelledSlot, ARingReadSpelledModuloTheStagesKeepsItsVerdict) {
  auto fixed = compile(r43::mmaReads(corpusText(r43::kTileLang + "_fixed.cake"), "it", "it % 4"));
  ASSERT_FALSE(fixed.schedules.empty());
  const CheckAnswer a = modelCheck(fixed.schedules.at(0));
  EXPECT_TRUE(a.proved) << a.detail;
  EXPECT_TRUE(a.rules.empty()) << join(a.rules);
  const std::string bug = corpusText(r43::kTileLang + ".cake");
  expectFoundNotProved(r43::mmaReads(bug, "k", "k % 4"), "data.stale-read", "the bug read through k % 4");
  expectFoundNotProved(r43::mmaReads(bug, "k", "k % 8"), "data.stale-read", "the bug read through k % 8");
}

// Inside a modulus of the stages, a constant multiple of the stages added
// to the index names no other slot (session 46): the fixed ring read as
// `smem_a[(it + 4) % 8]` (or `(4 + it) % 8`, `(it - 4) % 8`) on the 4-slot
// ring is `smem_a[it]` and is proved (it was kept as `smem_a[it + 4]`,
// iteration it + 4: "meaning lap 1 of the slot (index 4), but it holds the
// data of lap 0", a false data.stale-read). Another shift still names
// another slot: `(it + 5) % 8` is found.
TEST(RespelledSlot, AShiftByTheStagesInsideAModulusIsTheSameSlot) {
  const std::string fixed = corpusText(r43::kTileLang + "_fixed.cake");
  for (const char* spelled : {"(it + 4) % 8", "(4 + it) % 8", "(it - 4) % 8"}) {
    auto mod = compile(r43::mmaReads(fixed, "it", spelled));
    ASSERT_FALSE(mod.schedules.empty()) << spelled;
    const CheckAnswer a = modelCheck(mod.schedules.at(0));
    EXPECT_TRUE(a.proved) << spelled << ": " << a.detail;
    EXPECT_TRUE(a.rules.empty()) << spelled << ": " << join(a.rules);
  }
  auto shifted = compile(r43::mmaReads(fixed, "it", "(it + 5) % 8"));
  ASSERT_FALSE(shifted.schedules.empty());
  EXPECT_TRUE(modelCheck(shifted.schedules.at(0)).rules.count("data.stale-read"));
}
