#include <gtest/gtest.h>

#include "test_util.h"

using namespace cake::ir;
using namespace cake::ir::test;

TEST(Frontend, PaperFragmentTypeChecks) {
  DiagnosticSink sink;
  auto m = compileModule(src(kPaperFragment), {}, sink);
  ASSERT_TRUE(m) << describe(sink);
  EXPECT_TRUE(sink.findings().empty()) << describe(sink);
  ASSERT_EQ(m->schedules.size(), 1u);
  const Schedule& s = m->schedules[0];
  EXPECT_EQ(s.name, "fmha_fwd");
  EXPECT_EQ(s.target, Target::Unspecified);
  ASSERT_EQ(s.params.size(), 3u);
  EXPECT_EQ(s.params[0].name, "Q");
  EXPECT_EQ(s.params[0].type, ParamType::Tma3d);
  EXPECT_EQ(s.params[1].type, ParamType::Tma2d);
  EXPECT_EQ(s.params[2].type, ParamType::I32);
  ASSERT_EQ(s.pools.size(), 1u);
  ASSERT_EQ(s.views.size(), 1u);
  EXPECT_EQ(s.views[0].name, "smem_q");
  EXPECT_EQ(s.views[0].stages, 3);
  EXPECT_EQ(s.views[0].dtype, DType::BF16);
  ASSERT_EQ(s.views[0].shape.size(), 2u);
  EXPECT_EQ(s.views[0].shape[0]->value, 128);
  ASSERT_EQ(s.tmems.size(), 1u);
  EXPECT_EQ(s.tmems[0].dtype, DType::F32);
  ASSERT_EQ(s.roles.size(), 2u);
  EXPECT_EQ(s.roles[0].warps, std::vector<int>{0});
  EXPECT_EQ(s.roles[1].warps, std::vector<int>{1});
  ASSERT_EQ(s.pipelines.size(), 1u);
  EXPECT_EQ(s.pipelines[0].stages, 3);
  ASSERT_EQ(s.barriers.size(), 1u);
  const Barrier& b = s.barriers[0];
  EXPECT_EQ(b.count, 3);
  EXPECT_EQ(b.init_count, 1);
  EXPECT_EQ(b.pipeline, 0);
  EXPECT_EQ(b.prod, std::vector<int>{0});
  EXPECT_EQ(b.cons, std::vector<int>{1});
  ASSERT_EQ(s.bodies.size(), 2u);
  EXPECT_EQ(s.bodies[0].role, 0);
  ASSERT_EQ(s.bodies[0].body.size(), 1u);
  const Stmt& loop = s.bodies[0].body[0];
  EXPECT_EQ(loop.kind, Stmt::Kind::For);
  ASSERT_EQ(loop.body.size(), 1u);
  const Op& load = loop.body[0].op;
  EXPECT_EQ(load.kind, OpKind::TmaLoad);
  EXPECT_EQ(load.barrier, 0);
  EXPECT_EQ(load.dst.kind, BufferRef::Kind::View);
  EXPECT_EQ(load.src.kind, BufferRef::Kind::Param);
  EXPECT_EQ(load.src.index, 0);
  ASSERT_EQ(load.coords.size(), 3u);
  EXPECT_EQ(load.coords[2]->kind, ExprKind::LoopVar);
  EXPECT_EQ(load.sel.mode, SlotSel::Mode::Stage);
  EXPECT_EQ(load.range.line, 13);
  EXPECT_EQ(load.range.col, 13);
  const Stmt& loop2 = s.bodies[1].body[0];
  ASSERT_EQ(loop2.body.size(), 3u);
  EXPECT_EQ(loop2.body[0].op.kind, OpKind::Wait);
  EXPECT_EQ(loop2.body[1].op.kind, OpKind::FenceProxy);
  const Op& mma = loop2.body[2].op;
  EXPECT_EQ(mma.kind, OpKind::Mma);
  EXPECT_EQ(mma.dst.kind, BufferRef::Kind::Tmem);
  EXPECT_EQ(mma.src.kind, BufferRef::Kind::View);
  ASSERT_TRUE(mma.src.slot);
  EXPECT_EQ(mma.src.slot->kind, ExprKind::LoopVar);
  ASSERT_TRUE(mma.init);
  EXPECT_EQ(mma.init->kind, ExprKind::Eq);
}

TEST(Frontend, PaperFragmentFormatsIdempotently) {
  DiagnosticSink sink;
  auto once = formatSource(src(kPaperFragment), sink);
  ASSERT_TRUE(once) << describe(sink);
  auto twice = formatSource(src(*once), sink);
  ASSERT_TRUE(twice) << describe(sink);
  EXPECT_EQ(*once, *twice);
  auto a = ast::parse(src(kPaperFragment), sink);
  auto b = ast::parse(src(*once), sink);
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(ast::equal(*a, *b));
}
