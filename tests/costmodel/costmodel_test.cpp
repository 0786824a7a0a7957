// The workload contracts' binding (unsupported_shape before any GPU work),
// the cost model's arithmetic and the calibration. GPU-free.
#include "tests/common/build_paths.h"
#include <gtest/gtest.h>

#include <cmath>

#include "costmodel/calibrate.h"
#include "costmodel/estimate.h"
#include "ir/frontend.h"
#include "lowering/lane_count.h"
#include "lowering/reduce_chain.h"
#include "workload/workload.h"

using namespace cake;

namespace {

ir::Schedule load(const std::string& rel) {
  std::string err;
  auto file = ir::readSourceFile(std::string(CAKE_SOURCE_DIR) + "/" + rel, err);
  EXPECT_TRUE(file) << err;
  ir::DiagnosticSink sink;
  auto m = ir::compileModule(file, {}, sink);
  EXPECT_TRUE(m && !m->schedules.empty());
  return m && !m->schedules.empty() ? m->schedules[0] : ir::Schedule{};
}

workload::Shape shape(workload::Kind k, const std::string& text) {
  std::string err;
  auto s = workload::parseShape(k, text, &err);
  EXPECT_TRUE(s) << err;
  return s ? *s : workload::Shape{};
}

workload::BindResult bindText(const std::string& file, workload::Kind k, const std::string& text) {
  return workload::bind(load(file), shape(k, text));
}

const char* kGemm = "corpus/gemm/sm90_ws_4stage.cake";
const char* kKmeans = "corpus/kmeans/sm90_assign_k256_ws.cake";
const char* kFa3 = "corpus/attention/sm90_fa3_fwd.cake";

}  // namespace

// ------------------------------------------------------------- workloads

TEST(WorkloadShape, ParsesAndDefaults) {
  auto g = shape(workload::Kind::Gemm, "4096x2048x1024");
  EXPECT_EQ(g.at("M"), 4096);
  EXPECT_EQ(g.at("K"), 1024);
  auto k = shape(workload::Kind::KmeansAssign, "N=65536,K=256,D=128");
  EXPECT_EQ(k.at("B"), 1);  // default
  auto a = shape(workload::Kind::AttentionFwd, "S=1024 D=64 H=8 causal=1");
  EXPECT_EQ(a.at("causal"), 1);
  EXPECT_EQ(a.at("B"), 1);
  EXPECT_EQ(workload::parseKind("kmeans-assign"), workload::Kind::KmeansAssign);
  EXPECT_FALSE(workload::parseKind("conv"));
}

TEST(WorkloadShape, Rejects) {
  std::string err;
  EXPECT_FALSE(workload::parseShape(workload::Kind::KmeansAssign, "N=1,K=2", &err));  // D missing
  EXPECT_NE(err.find("D"), std::string::npos);
  EXPECT_FALSE(workload::parseShape(workload::Kind::KmeansAssign, "N=1,K=2,D=3,Q=4", &err));
  EXPECT_FALSE(workload::parseShape(workload::Kind::AttentionFwd, "S=8,D=8,causal=2", &err));
  EXPECT_FALSE(workload::parseShape(workload::Kind::AttentionFwd, "8x8x8", &err));
  EXPECT_FALSE(workload::parseShape(workload::Kind::Gemm, "M=0,N=1,K=1", &err));
}

TEST(WorkloadBind, GemmGridAndDims) {
  auto r = bindText(kGemm, workload::Kind::Gemm, "M=4096,N=2048,K=512");
  ASSERT_EQ(r.result, "ok") << r.detail;
  const auto& b = *r.binding;
  EXPECT_EQ(b.grid[0], 32);  // cdiv(4096, 128): the C store moves by 128 rows per block_idx(0)
  EXPECT_EQ(b.grid[1], 16);
  EXPECT_FALSE(b.persistent);
  EXPECT_EQ(b.tensor_name[0], "A");
  EXPECT_EQ(b.tensor_dims[1], (std::vector<int64_t>{2048, 512}));
  EXPECT_DOUBLE_EQ(b.flops, 2.0 * 4096 * 2048 * 512);
  // ragged sizes are fine for a GEMM: TMA clips stores, zero-fills the K tail
  EXPECT_EQ(bindText(kGemm, workload::Kind::Gemm, "M=100,N=200,K=300").result, "ok");
}

TEST(WorkloadBind, KmeansCentroidCountMustMatch) {
  auto ok = bindText(kKmeans, workload::Kind::KmeansAssign, "N=4096,K=256,D=128,B=4");
  ASSERT_EQ(ok.result, "ok") << ok.detail;
  EXPECT_EQ(ok.binding->launches, 4);  // 2-D schedule, batched problem
  EXPECT_EQ(ok.binding->tensor_dims[2], (std::vector<int64_t>{1, 256}));  // CN
  // fewer centroids than the tile: padded centroids would win the argmin
  auto pad = bindText(kKmeans, workload::Kind::KmeansAssign, "N=4096,K=200,D=128");
  EXPECT_EQ(pad.result, "unsupported_shape");
  EXPECT_NE(pad.detail.find("past its size 200"), std::string::npos) << pad.detail;
  // more centroids than the schedule reads
  auto more = bindText(kKmeans, workload::Kind::KmeansAssign, "N=4096,K=512,D=128");
  EXPECT_EQ(more.result, "unsupported_shape");
  EXPECT_NE(more.detail.find("only [0, 256)"), std::string::npos) << more.detail;
}

TEST(WorkloadBind, KmeansBatchedInOneLaunch) {
  // rank-3 tensor maps and a gmem tensor (Lab) placed with three coordinates: the
  // schedule walks the batches itself, one launch
  const char* pp = "corpus/kmeans/sm90_assign_streamed_centroids.cake";
  auto ok = bindText(pp, workload::Kind::KmeansAssign, "N=4096,K=512,D=128,B=3");
  ASSERT_EQ(ok.result, "ok") << ok.detail;
  EXPECT_EQ(ok.binding->launches, 1);
  EXPECT_TRUE(ok.binding->persistent);
  EXPECT_EQ(ok.binding->tensor_dims[0], (std::vector<int64_t>{3, 4096, 128}));  // X
  EXPECT_EQ(ok.binding->tensor_dims[2], (std::vector<int64_t>{3, 1, 512}));     // CN
  EXPECT_EQ(ok.binding->tensor_dims[3], (std::vector<int64_t>{3, 4096, 1}));    // LAB
  EXPECT_EQ(bindText(pp, workload::Kind::KmeansAssign, "N=4096,K=200,D=128").result, "unsupported_shape");
  EXPECT_EQ(bindText(pp, workload::Kind::KmeansAssign, "N=4096,K=256,D=64").result, "unsupported_shape");
}

TEST(WorkloadBind, AttentionContract) {
  auto ok = bindText(kFa3, workload::Kind::AttentionFwd, "S=1024,D=64,B=2,H=4");
  ASSERT_EQ(ok.result, "ok") << ok.detail;
  EXPECT_EQ(ok.binding->tensor_name[2], "VT");  // named Vt: stored [.., D, S]
  EXPECT_EQ(ok.binding->tensor_dims[2], (std::vector<int64_t>{8, 64, 1024}));
  EXPECT_EQ(ok.binding->tensor_dims[0], (std::vector<int64_t>{8, 1024, 64}));  // B*H folded
  EXPECT_EQ(ok.binding->grid[1], 8);
  EXPECT_EQ(bindText(kFa3, workload::Kind::AttentionFwd, "S=1000,D=64").result, "unsupported_shape");
  EXPECT_EQ(bindText(kFa3, workload::Kind::AttentionFwd, "S=1024,D=128").result, "unsupported_shape");
  auto causal = bindText(kFa3, workload::Kind::AttentionFwd, "S=1024,D=64,causal=1");
  EXPECT_EQ(causal.result, "unsupported_shape");
  EXPECT_NE(causal.detail.find("causal"), std::string::npos);
}

TEST(WorkloadBind, WrongContractIsNoOracle) {
  auto r = bindText(kGemm, workload::Kind::KmeansAssign, "N=1024,K=128,D=64");
  EXPECT_EQ(r.result, "no_oracle");
  EXPECT_NE(r.detail.find("--set"), std::string::npos) << r.detail;
  auto rows = bindText(kKmeans, workload::Kind::RowSum, "M=1024,N=64");
  EXPECT_EQ(rows.result, "no_oracle");
}

TEST(WorkloadBind, PersistentGridIsTheSmCount) {
  auto r = workload::bind(load("corpus/gemm/sm90_persistent_ws.cake"),
                          shape(workload::Kind::Gemm, "M=4096,N=4096,K=4096"), {}, 132);
  ASSERT_EQ(r.result, "ok") << r.detail;
  EXPECT_TRUE(r.binding->persistent);
  EXPECT_EQ(r.binding->grid[0], 132);
}

// The GEMM size checks of `cake run` with and without --workload are this
// binding (lowering::gemmShapeMismatch folded into it).
TEST(WorkloadBind, FixedKMustBeCovered) {
  // sm90_small_k_resident has no parameter K: its loads cover K = 192
  const char* f = "corpus/gemm/sm90_small_k_resident.cake";
  auto at256 = bindText(f, workload::Kind::Gemm, "M=4096,N=4096,K=256");
  EXPECT_EQ(at256.result, "unsupported_shape");
  EXPECT_NE(at256.detail.find("[0, 192) of dimension 1"), std::string::npos) << at256.detail;
  EXPECT_TRUE(bindText(f, workload::Kind::Gemm, "M=4096,N=4096,K=192").binding);
  EXPECT_TRUE(bindText(f, workload::Kind::Gemm, "M=128,N=256,K=192").binding);
}

TEST(WorkloadBind, AssumptionsMustHold) {
  // sm90_ws_4stage with `lm.assume(K > 4096)` in place of `K > 0`: a size that breaks it is refused
  std::string err;
  auto f = ir::readSourceFile(std::string(CAKE_SOURCE_DIR) + "/" + kGemm, err);
  ASSERT_TRUE(f) << err;
  std::string text = f->text;
  const std::string from = "lm.assume(K > 0)";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "lm.assume(K > 4096)");
  ir::DiagnosticSink sink;
  auto m = ir::compileModule(ir::makeSourceFile("tight.cake", text), {}, sink);
  ASSERT_TRUE(m && !m->schedules.empty());
  auto r = workload::bind(m->schedules[0], shape(workload::Kind::Gemm, "M=4096,N=4096,K=4096"));
  EXPECT_EQ(r.result, "unsupported_shape");
  EXPECT_NE(r.detail.find("K > 4096"), std::string::npos) << r.detail;
  EXPECT_TRUE(workload::bind(m->schedules[0], shape(workload::Kind::Gemm, "M=4096,N=4096,K=8192")).binding);
}

// ------------------------------------------------------------ the model

TEST(CostModel, TransposedWgmmaCountsItsInstructions) {
  // an 8 x 64 tile: the transposed wgmma (docs/ir-extensions.md), one
  // m64n8k16 per k-step (N / 64 = 1 block), not an m64n64 over a padded M
  auto s = load("corpus/gates/mma.no-instruction/good_wgmma_transposed_m8.cake");
  auto b = workload::bind(s, shape(workload::Kind::Gemm, "M=8,N=64,K=4096"));
  ASSERT_TRUE(b.binding);
  auto e = costmodel::estimate(s, *b.binding, costmodel::hardware(ir::Target::SM90a), costmodel::Coefficients{});
  ASSERT_TRUE(e.ok) << e.error;
  EXPECT_DOUBLE_EQ(e.facts.mma_shapes.at("wgmma.m64n8k16"), 64 * 4);  // 64 k-blocks, 4 k-steps
  EXPECT_EQ(e.facts.mma_shapes.count("wgmma.m64n64k16"), 0u);
}

TEST(CostModel, GemmFactsAndTerms) {
  auto s = load(kGemm);
  auto b = workload::bind(s, shape(workload::Kind::Gemm, "M=4096,N=4096,K=4096"));
  ASSERT_TRUE(b.binding);
  const auto& hw = costmodel::hardware(ir::Target::SM90a);
  auto e = costmodel::estimate(s, *b.binding, hw, costmodel::Coefficients{});
  ASSERT_TRUE(e.ok) << e.error;
  const auto& f = e.facts;
  EXPECT_EQ(f.ctas, 1024);
  EXPECT_EQ(f.ctas_per_sm, 1);  // 160 KiB of smem
  EXPECT_EQ(f.occupancy_limit, "shared memory");
  EXPECT_EQ(f.rounds, 8);       // ceil(1024 / 132)
  EXPECT_DOUBLE_EQ(f.mma_flops, 2.0 * 128 * 128 * 4096);
  EXPECT_DOUBLE_EQ(f.mma_shapes.at("wgmma.m64n128k16"), 2 * 64 * 4);  // 2 instances, 64 k-blocks, 4 k-steps
  EXPECT_DOUBLE_EQ(f.load_bytes, 64 * 2 * 128 * 64 * 2.0);
  EXPECT_DOUBLE_EQ(f.epilogue_store_bytes, 128 * 128 * 2.0);
  EXPECT_EQ(f.stages, 4);
  EXPECT_EQ(f.pipeline_loads, 64);
  const double clk = hw.clock_ghz * 1e9;
  EXPECT_NEAR(e.raw.at("tensor"), 8 * f.mma_flops / (hw.tc_flops_per_clk_sm * clk) * 1e3, 1e-12);
  // every CTA is a full tile: the launch totals are CTAs x one CTA's
  EXPECT_DOUBLE_EQ(f.l2_bytes, 1024 * f.load_bytes);
  EXPECT_DOUBLE_EQ(f.total_mma_flops, 2.0 * 4096 * 4096 * 4096);
  // unique bytes: A, B and C once
  EXPECT_DOUBLE_EQ(f.dram_bytes, 3 * 4096.0 * 4096 * 2);
  EXPECT_DOUBLE_EQ(f.dram_share, f.dram_bytes / f.l2_bytes);
  EXPECT_NEAR(e.raw.at("dram"), f.dram_bytes / (hw.dram_gbps * 1e9) * 1e3, 1e-12);
  EXPECT_NEAR(e.raw.at("l2"), f.l2_bytes / (hw.l2_gbps * 1e9) * 1e3, 1e-12);
  // the ring: one CTA per SM, 4 slots through the load latency + one
  // barrier hand-off per tile, and the SM's share of L2 / DRAM bandwidth
  // and its tensor cores per tile (a 128x64 A and a 128x64 B tile)
  costmodel::RingFacts rf;
  rf.ctas = 8, rf.concurrent = 1, rf.loads = 64, rf.stages = 4, rf.waits_per_load = 1, rf.dram_share = f.dram_share;
  rf.l2_latency_ns = hw.l2_latency_ns, rf.dram_latency_ns = hw.mem_latency_ns, rf.barrier_rtt_ns = hw.barrier_rtt_ns;
  const double tile = 2 * 128 * 64 * 2.0, sm_bw = std::min(hw.sm_load_bytes_per_clk * clk, hw.l2_gbps * 1e9 / 132);
  rf.xfer_ms = tile / sm_bw * 1e3;
  rf.dram_ms = tile * f.dram_share / (hw.dram_gbps * 1e9 / 132) * 1e3;
  rf.tensor_ms = 2.0 * 128 * 128 * 64 / (hw.tc_flops_per_clk_sm * clk) * 1e3;
  rf.core_ms = e.raw.at("core") / 8 / 64;  // the CUDA-core work per tile is a station of the ring too
  EXPECT_NEAR(e.raw.at("latency"), costmodel::ringLatencyMs(rf), 1e-12);
  EXPECT_DOUBLE_EQ(f.ring_slots, 4);
  // time = launch + max(tensor + core, dram + core, l2 + core, latency) + epilogue with unit
  // coefficients: the ring's term holds the CUDA-core work already
  const double core = e.raw.at("core");
  const double main = std::max({e.raw.at("tensor") + core, e.raw.at("dram") + core, e.raw.at("l2") + core,
                                e.raw.at("latency")});
  EXPECT_NEAR(e.time_ms, e.raw.at("launch") + main + e.raw.at("epilogue"), 1e-12);
  EXPECT_GE(e.deciding.size(), 2u);
}

TEST(CostModel, CoefficientsScaleTheTerms) {
  std::map<std::string, double> raw = {{"launches", 2}, {"launch", 0.001}, {"tensor", 0.5}, {"dram", 0.2},
                                       {"l2", 0.3},     {"latency", 0.1}, {"core", 0.05},  {"epilogue", 0.02}};
  costmodel::Coefficients k;
  std::string main;
  EXPECT_NEAR(costmodel::combine(raw, k, &main), 2 * (0.001 + 0.5 + 0.05 + 0.02), 1e-12);
  EXPECT_EQ(main, "tensor");
  k.c["l2"] = 2;  // L2 traffic now outweighs the tensor cores
  EXPECT_NEAR(costmodel::combine(raw, k, &main), 2 * (0.001 + 0.6 + 0.05 + 0.02), 1e-12);
  EXPECT_EQ(main, "l2");
  k.c["dram"] = 4;
  EXPECT_NEAR(costmodel::combine(raw, k, &main), 2 * (0.001 + 0.8 + 0.05 + 0.02), 1e-12);
  EXPECT_EQ(main, "dram");
  // the ring's term holds the CUDA-core work (a station of the ring): when it wins, core is not added
  k.c["latency"] = 9;
  EXPECT_NEAR(costmodel::combine(raw, k, &main), 2 * (0.001 + 0.9 + 0.02), 1e-12);
  EXPECT_EQ(main, "latency");
}

TEST(CostModel, MeanValueAnalysis) {
  // one customer: it cycles through the delay and every station alone
  EXPECT_NEAR(costmodel::mvaThroughput(1, 3.0, {1.0, 2.0}), 1 / 6.0, 1e-12);
  // two customers, one station of demand 1, delay 1: R(1) = 1, X(1) = 1/2, Q = 1/2;
  // R(2) = 1.5, X(2) = 2 / 2.5
  EXPECT_NEAR(costmodel::mvaThroughput(2, 1.0, {1.0}), 0.8, 1e-12);
  // more customers never lower the throughput, and it tends to the busiest station's rate
  double prev = 0;
  for (int m = 1; m <= 64; ++m) {
    const double x = costmodel::mvaThroughput(m, 10.0, {1.0, 0.5});
    EXPECT_GE(x, prev);
    EXPECT_LT(x, 1.0);
    prev = x;
  }
  EXPECT_GT(prev, 0.99);
  EXPECT_EQ(costmodel::mvaThroughput(0, 1.0, {1.0}), 0);
}

TEST(CostModel, RingDepthAgainstLatency) {
  costmodel::RingFacts r;
  r.ctas = 2, r.concurrent = 1, r.loads = 64, r.stages = 1, r.waits_per_load = 1;
  r.l2_latency_ns = 400, r.dram_latency_ns = 1000, r.barrier_rtt_ns = 100;
  r.xfer_ms = 1e-4, r.tensor_ms = 0.5e-4;  // per tile: 100 ns of transfer, 50 ns of compute
  // one slot: every tile waits the whole cycle (latency + hand-off + transfer + compute)
  auto one = costmodel::ring(r);
  EXPECT_NEAR(one.ms, 2 * 64 * (500 + 100 + 50) * 1e-6, 1e-12);
  EXPECT_NEAR(one.delay_ns, 500, 1e-9);
  // 6.5 slots would cover the 650 ns cycle at the transfer's 100 ns per tile
  EXPECT_NEAR(one.slots_needed, 6.5, 1e-12);
  EXPECT_NEAR(one.bound_ms, 2 * 64 * 100e-6, 1e-12);
  // deeper rings are faster, less and less, and never beat the bound
  double prev = one.ms;
  for (int s = 2; s <= 12; ++s) {
    r.stages = s;
    const auto g = costmodel::ring(r);
    EXPECT_LT(g.ms, prev) << s;
    EXPECT_GT(g.ms, g.bound_ms) << s;
    prev = g.ms;
  }
  r.stages = 3;
  const double gain23 = costmodel::ringLatencyMs({[&] { auto x = r; x.stages = 2; return x; }()}) - costmodel::ringLatencyMs(r);
  r.stages = 8;
  const double s7 = costmodel::ringLatencyMs({[&] { auto x = r; x.stages = 7; return x; }()});
  EXPECT_GT(gain23, s7 - costmodel::ringLatencyMs(r));
  // DRAM-served bytes move the latency towards the DRAM figure: a slower ring
  r.stages = 2;
  const double l2 = costmodel::ringLatencyMs(r);
  r.dram_share = 0.5;
  EXPECT_NEAR(costmodel::ring(r).delay_ns, 700 + 100, 1e-9);
  EXPECT_GT(costmodel::ringLatencyMs(r), l2);
  // a ring deeper than the loads keeps only its loads in flight
  r.dram_share = 0, r.loads = 2, r.stages = 8;
  EXPECT_DOUBLE_EQ(costmodel::ring(r).slots, 2);
  // two resident CTAs put twice the slots in flight
  r.concurrent = 2;
  EXPECT_DOUBLE_EQ(costmodel::ring(r).slots, 4);
  // a consumer busy with CUDA-core work per tile (a softmax: 2 us against the 650 ns
  // load cycle) hides the load latency: 2 slots are nearly enough, a third gains < 5%
  r.concurrent = 1, r.loads = 64, r.core_ms = 2e-3;
  r.stages = 2;
  const double two = costmodel::ringLatencyMs(r);
  r.stages = 3;
  const double three = costmodel::ringLatencyMs(r);
  EXPECT_LT(three, two);
  EXPECT_LT((two - three) / two, 0.05);
  EXPECT_NEAR(costmodel::ring(r).bound_ms, 2 * 64 * 2e-3, 1e-12);
  r.core_ms = 0;  // without it the third slot is worth far more
  EXPECT_GT((costmodel::ringLatencyMs({[&] { auto x = r; x.stages = 2; return x; }()}) - costmodel::ringLatencyMs(r)) /
                costmodel::ringLatencyMs(r),
            0.2);
}

TEST(CostModel, ArgminStepsAndEpilogueLoads) {
  // the k-means epilogue: -2*dot + |c|^2 over 64 x 256 per consumer (one
  // FFMA: the multiply is contracted into the add), the argmin over the 256
  // columns (compare and two selects per element, and per row two shuffle
  // steps of value and index with the 4-instruction step, shared by the 64
  // elements a lane holds), and a global read of |c|^2 after the loop (its
  // latency is on the path)
  auto s = load(kKmeans);
  auto e = costmodel::estimate(s, shape(workload::Kind::KmeansAssign, "N=65536,K=256,D=128,B=1"));
  ASSERT_TRUE(e.ok) << e.error;
  const auto& f = e.facts;
  const int inst = 2;
  EXPECT_DOUBLE_EQ(f.epilogue_load_bytes, inst * 256 * 4.0);
  // per consumer: |c|^2 loaded (256), the FFMA (64 x 256), the argmin
  // (3 + 2 x 6 / 64 per element), the 64 labels stored one by one
  EXPECT_DOUBLE_EQ(f.epilogue_ops, inst * (256 + 64 * 256 + (3 + 12.0 / 64) * 64 * 256 + 64));
}

TEST(CostModel, ReductionChainsAsLowered) {
  // round 7: the dependent chain of a reduction as the lowering writes it.
  // The k-means argmin over a 64 x 256 wgmma fragment: a thread holds 64
  // elements of each of its rows and scans them in index order, a compare
  // and the selects it predicates per element (2 deep), then two shuffle
  // steps across the quad, each a SHFL and cake_argmin_step (3 deep)
  auto km = load(kKmeans);
  const ir::Op* argmin = nullptr;
  for (const ir::RoleBody& rb : km.bodies)
    ir::forEachOp(rb.body, [&](const ir::Stmt& st) {
      if (st.op.kind == ir::OpKind::Reduce) argmin = &st.op;
    });
  ASSERT_TRUE(argmin);
  auto c = lowering::reduceChain(km, *argmin);
  EXPECT_DOUBLE_EQ(c.alu_steps, 2 * 64 + 2 * 3);
  EXPECT_DOUBLE_EQ(c.shuffles, 2);
  // a plain row max over 32 elements a thread holds (FA3 D = 128, 64 x 128
  // scores): kReducePartials chains of 8, combined 2 deep, then 2 shuffle
  // steps of one combine each
  auto fa = load("bench/gpu/schedules/attn_d128/fa3_d128_b128.cake");
  const ir::Op* rmax = nullptr;
  for (const ir::RoleBody& rb : fa.bodies)
    ir::forEachOp(rb.body, [&](const ir::Stmt& st) {
      if (!rmax && st.op.kind == ir::OpKind::Reduce && st.op.fn == ir::ElemFn::Max) rmax = &st.op;
    });
  ASSERT_TRUE(rmax);
  auto m = lowering::reduceChain(fa, *rmax);
  EXPECT_DOUBLE_EQ(m.alu_steps, 32 / lowering::kReducePartials + 2 + 2);
  EXPECT_DOUBLE_EQ(m.shuffles, 2);
  // not a reduction: no chain
  for (const ir::RoleBody& rb : km.bodies)
    ir::forEachOp(rb.body, [&](const ir::Stmt& st) {
      if (st.op.kind != ir::OpKind::Reduce) EXPECT_EQ(lowering::reduceChain(km, st.op).alu_steps, 0);
    });
  // the model: the busiest consumer's chain after the loop (the argmin),
  // at the dependent-issue latencies, once per round
  const auto& hw = costmodel::hardware(ir::Target::SM90a);
  auto e = costmodel::estimate(km, shape(workload::Kind::KmeansAssign, "N=65536,K=256,D=128,B=1"));
  ASSERT_TRUE(e.ok) << e.error;
  EXPECT_DOUBLE_EQ(e.facts.epilogue_chain_clk, c.alu_steps * hw.alu_latency_clk + c.shuffles * hw.shfl_latency_clk);
  EXPECT_DOUBLE_EQ(e.facts.chain_clk, 0);  // no reduction in its main loop
  EXPECT_NEAR(e.raw.at("chain"), e.facts.rounds * e.facts.epilogue_chain_clk / (hw.clock_ghz * 1e9) * 1e3, 1e-15);
  // a bigger k is a longer chain: k = 64 holds 16 elements per row
  auto k64 = costmodel::estimate(load("bench/gpu/schedules/cost_variants/kmeans_k64_p64s2.cake"),
                                 shape(workload::Kind::KmeansAssign, "N=65536,K=64,D=128,B=1"));
  ASSERT_TRUE(k64.ok) << k64.error;
  EXPECT_DOUBLE_EQ(k64.facts.epilogue_chain_clk, (2 * 16 + 2 * 3) * hw.alu_latency_clk + 2 * hw.shfl_latency_clk);
  // the model counts the ordered scans only (a plain row reduction's
  // partial chains are short): the FA3 softmax adds no chain
  auto serial = costmodel::estimate(fa, shape(workload::Kind::AttentionFwd, "S=1024,D=128,B=1,H=1"));
  ASSERT_TRUE(serial.ok);
  EXPECT_EQ(serial.facts.chain_clk + serial.facts.epilogue_chain_clk, 0);
  EXPECT_EQ(serial.raw.at("chain"), 0);
  // the streamed-centroid k-means scans each 128-centroid tile in its main
  // loop (after mma_wait(0): nothing in flight hides it), 4 consumer rows of
  // 32 elements a thread, kt = K / 128 tiles
  auto st = costmodel::estimate(load("corpus/kmeans/sm90_assign_streamed_centroids.cake"),
                                shape(workload::Kind::KmeansAssign, "N=8192,K=512,D=128,B=1"));
  ASSERT_TRUE(st.ok) << st.error;
  const double st_scan = (2 * 32 + 2 * 3) * hw.alu_latency_clk + 2 * hw.shfl_latency_clk;
  EXPECT_GT(st.facts.chain_clk, 0);
  EXPECT_DOUBLE_EQ(std::fmod(st.facts.chain_clk, st_scan), 0);
}

TEST(CostModel, LaunchFillAndDrain) {
  // round 7: per launch, the first tile of the ring cold from DRAM through
  // every station once, and one round's epilogue (the drain)
  auto s = load(kGemm);
  const auto& hw = costmodel::hardware(ir::Target::SM90a);
  auto b = workload::bind(s, shape(workload::Kind::Gemm, "M=4096,N=4096,K=4096"));
  ASSERT_TRUE(b.binding);
  auto e = costmodel::estimate(s, *b.binding, hw, costmodel::Coefficients{});
  ASSERT_TRUE(e.ok) << e.error;
  const auto& f = e.facts;
  const double clk = hw.clock_ghz * 1e9;
  const double tile = 2 * 128 * 64 * 2.0, sm_bw = std::min(hw.sm_load_bytes_per_clk * clk, hw.l2_gbps * 1e9 / 132);
  const double first = hw.mem_latency_ns * 1e-6 + hw.barrier_rtt_ns * 1e-6 + tile / sm_bw * 1e3 +
                       tile * f.dram_share / (hw.dram_gbps * 1e9 / 132) * 1e3 +
                       2.0 * 128 * 128 * 64 / (hw.tc_flops_per_clk_sm * clk) * 1e3 +
                       e.raw.at("core") / 8 / 64;
  EXPECT_NEAR(e.raw.at("fill"), first + e.raw.at("epilogue") / 8, 1e-12);
  EXPECT_DOUBLE_EQ(f.fill_ms, e.raw.at("fill"));
  // fill and chain default to 0 (a file fitted before round 7 predicts as before)
  EXPECT_EQ(costmodel::Coefficients{}.get("fill"), 0);
  EXPECT_EQ(costmodel::Coefficients{}.get("chain"), 0);
  // with coefficients they add per launch: B launches pay B fills
  std::map<std::string, double> raw = {{"launches", 3}, {"launch", 0.001}, {"tensor", 0.5}, {"fill", 0.002},
                                       {"chain", 0.004}};
  costmodel::Coefficients k;
  k.c["fill"] = 2, k.c["chain"] = 0.5;
  EXPECT_NEAR(costmodel::combine(raw, k), 3 * (0.001 + 0.5 + 2 * 0.002 + 0.5 * 0.004), 1e-12);
}

TEST(LaneCount, WhatTheLoweringEmitsPerElement) {
  auto s = load("bench/gpu/schedules/attn_d128/fa3_d128_fold.cake");
  std::vector<const ir::Op*> ops;
  for (const ir::RoleBody& rb : s.bodies)
    ir::forEachOp(rb.body, [&](const ir::Stmt& st) { ops.push_back(&st.op); });
  auto find = [&](ir::OpKind k, ir::ElemFn fn, size_t from = 0) -> size_t {
    for (size_t i = from; i < ops.size(); ++i)
      if (ops[i]->kind == k && (fn == ir::ElemFn::None || ops[i]->fn == fn)) return i;
    ADD_FAILURE() << "op not found";
    return 0;
  };
  // exp2: one MUFU.EX2 (ex2.approx.ftz), nothing on the FP32 pipe
  auto ex = lowering::elementLanes(s, *ops[find(ir::OpKind::Unary, ir::ElemFn::Exp2)]);
  EXPECT_EQ(ex.alu, 0);
  EXPECT_EQ(ex.mufu, 1);
  // P = bf16(S): one F2FP per pair
  EXPECT_EQ(lowering::elementLanes(s, *ops[find(ir::OpKind::Copy, ir::ElemFn::None)]).alu, 0.5);
  EXPECT_TRUE(lowering::convertsInPairs(ir::DType::BF16));
  EXPECT_FALSE(lowering::convertsInPairs(ir::DType::F32));
  // c*s - m: the scale's multiply is contracted into the subtract after it
  const size_t mul = find(ir::OpKind::Binary, ir::ElemFn::Mul, find(ir::OpKind::Binary, ir::ElemFn::Mul) + 1);
  ASSERT_LT(mul + 1, ops.size());
  EXPECT_TRUE(lowering::contractsInto(*ops[mul], *ops[mul + 1]));
  EXPECT_FALSE(lowering::contractsInto(*ops[mul + 1], *ops[mul]));
  // the row max of a 64 x 128 wgmma tile: one FMNMX per element, two
  // shuffle steps per row shared by the 32 elements a lane holds
  EXPECT_DOUBLE_EQ(lowering::elementLanes(s, *ops[find(ir::OpKind::Reduce, ir::ElemFn::Max)]).alu, 1 + 2 * 2 / 32.0);
  // ring slots: a mask for a power of two, a multiply-high, shift and
  // multiply-subtract otherwise; the wait's phase bit one more
  EXPECT_EQ(lowering::slotLanes(1, false), 0);
  EXPECT_EQ(lowering::slotLanes(2, false), 1);
  EXPECT_EQ(lowering::slotLanes(4, true), 2);
  EXPECT_EQ(lowering::slotLanes(3, false), 3);
  EXPECT_EQ(lowering::slotLanes(3, true), 4);
}

TEST(LaneCount, FoldedScaleIsOneInstructionPerScoreFewer) {
  // fa3_d128_fold is fa3_d128_overlap with the scale moved after the row
  // max: per key block and consumer, the 64 x 128 multiply becomes part of
  // the FFMA and a 64 x 1 multiply of the row max is added
  const auto sh = shape(workload::Kind::AttentionFwd, "S=1024,D=128,B=1,H=1");
  auto fold = costmodel::estimate(load("bench/gpu/schedules/attn_d128/fa3_d128_fold.cake"), sh);
  auto overlap = costmodel::estimate(load("bench/gpu/schedules/attn_d128/fa3_d128_overlap.cake"), sh);
  ASSERT_TRUE(fold.ok && overlap.ok) << fold.error << overlap.error;
  const double blocks = 1024 / 128, consumers = 2;
  EXPECT_DOUBLE_EQ(overlap.facts.fp32_ops - fold.facts.fp32_ops, consumers * blocks * (64 * 128 - 64));
  EXPECT_LT(fold.raw.at("core"), overlap.raw.at("core"));
}

TEST(LaneCount, ThreeSlotRingPaysItsSlotArithmetic) {
  // fa3_s3 is sm90_fa3_fwd with 3-slot K and V rings: every ring use (the
  // consumers' two waits, two arrives and two MMA operand slots, the
  // producer's two waits and two TMA slots per key block) costs two lane
  // instructions more in every thread of the instance
  const auto sh = shape(workload::Kind::AttentionFwd, "S=1024,D=64,B=1,H=1");
  auto s2 = costmodel::estimate(load(kFa3), sh);
  auto s3 = costmodel::estimate(load("bench/gpu/schedules/cost_variants/fa3_s3.cake"), sh);
  ASSERT_TRUE(s2.ok && s3.ok) << s2.error << s3.error;
  const double blocks = 1024 / 64;
  EXPECT_DOUBLE_EQ(s3.facts.fp32_ops - s2.facts.fp32_ops, blocks * 2 * (6 * 256 + 4 * 128));
  EXPECT_GT(s3.raw.at("core"), s2.raw.at("core"));
}

TEST(CostModel, CoreSecondsOfOneCta) {
  // lane instructions at 128 / clk, MUFU at 16 / clk, generic smem at 128 B / clk, in sequence
  const auto& hw = costmodel::hardware(ir::Target::SM90a);
  const double clk = hw.clock_ghz * 1e9;
  EXPECT_NEAR(costmodel::coreSeconds(1280, 0, 0, hw), 10 / clk, 1e-18);
  EXPECT_NEAR(costmodel::coreSeconds(384, 64, 0, hw), (3 + 4) / clk, 1e-18);
  EXPECT_NEAR(costmodel::coreSeconds(1280, 16, 1280, hw), (10 + 1 + 10) / clk, 1e-18);
  EXPECT_EQ(costmodel::coreSeconds(0, 0, 0, hw), 0);
}

TEST(CostModel, BusiestPipeForTheClass) {
  // the class's CUDA-core figure is the busiest pipe (ncu's sm__throughput),
  // the time's the pipes in sequence
  const auto& hw = costmodel::hardware(ir::Target::SM90a);
  const double clk = hw.clock_ghz * 1e9;
  EXPECT_NEAR(costmodel::busiestPipeSeconds(1280, 0, 0, hw), 10 / clk, 1e-18);
  EXPECT_NEAR(costmodel::busiestPipeSeconds(384, 64, 0, hw), 4 / clk, 1e-18);
  EXPECT_NEAR(costmodel::busiestPipeSeconds(1280, 16, 2560, hw), 20 / clk, 1e-18);
  EXPECT_EQ(costmodel::busiestPipeSeconds(0, 0, 0, hw), 0);
  // the D = 64 FA3: FP32 and MUFU both busy; the core utilization is the
  // MUFU pipe's share of the predicted time, not the sum's
  auto e = costmodel::estimate(load(kFa3), shape(workload::Kind::AttentionFwd, "S=2048,D=64,B=2,H=8"));
  ASSERT_TRUE(e.ok) << e.error;
  const double lanes = e.facts.fp32_ops - e.facts.epilogue_ops, mufu = e.facts.sfu_ops;
  ASSERT_GT(mufu, 0);
  const double busiest = costmodel::busiestPipeSeconds(lanes, mufu, e.facts.smem_generic_bytes, hw);
  const double sum = costmodel::coreSeconds(lanes, mufu, e.facts.smem_generic_bytes, hw);
  ASSERT_LT(busiest, sum);
  EXPECT_NEAR(e.utilization.at("core") / (e.raw.at("core") * 1e-3 * hw.clock_ghz / hw.sol_clock_ghz /
                                          (e.time_ms * 1e-3) * e.facts.ctas /
                                          (static_cast<double>(e.facts.ctas_busiest_sm) * hw.sms)),
              busiest / sum, 1e-9);
}

TEST(CostModel, OverlapHidesCoreWorkUpToItsShare) {
  std::map<std::string, double> raw = {{"tensor", 0.5}, {"core", 0.3}, {"overlap", 0.2}};
  costmodel::Coefficients k;  // overlap 0 by default: core adds in full
  EXPECT_EQ(k.get("overlap"), 0);
  EXPECT_NEAR(costmodel::combine(raw, k), 0.5 + 0.3, 1e-12);
  k.c["overlap"] = 0.5;  // half of the overlappable 0.2 hidden
  EXPECT_NEAR(costmodel::exposedCore(raw, k), 0.3 - 0.1, 1e-12);
  EXPECT_NEAR(costmodel::combine(raw, k), 0.5 + 0.2, 1e-12);
  k.c["core"] = 2, k.c["overlap"] = 5;  // never more hidden than the overlappable work: 2 * (0.3 - 0.2)
  EXPECT_NEAR(costmodel::exposedCore(raw, k), 0.2, 1e-12);
  raw["overlap"] = 0.9;  // more overlap than core (cannot come from estimate): all of it, not below 0
  EXPECT_NEAR(costmodel::exposedCore(raw, k), 0.0, 1e-12);
  // the ring's term holds the core work itself: no overlap either
  raw = {{"tensor", 0.1}, {"latency", 1.0}, {"core", 0.3}, {"overlap", 0.1}};
  EXPECT_NEAR(costmodel::combine(raw, k), 1.0, 1e-12);
  // a file fitted before the term existed reads as overlap 0
  auto old = costmodel::Coefficients::fromJson(nlohmann::json{{"coefficients", {{"core", 1.0}}}});
  ASSERT_TRUE(old);
  EXPECT_EQ(old->get("overlap"), 0);
}

TEST(CostModel, OverlappableCoreWorkFromTheSchedule) {
  // which CUDA-core work can run beside the tensor cores, from the schedule:
  // the serial FA3 (S, mma_wait 0, softmax, P V, mma_wait 0) has none; the
  // intra-warpgroup overlap (softmax of S_{j+1} while P_j V_j is in flight,
  // mma_wait(pending=1)) has the softmax, not the rescale of O after the
  // last wait; ping-pong consumers (an order barrier) only what they issue
  // with their own wgmma in flight; the warp-specialized GEMM (mma_wait 0
  // after each MMA) none
  const auto sh = shape(workload::Kind::AttentionFwd, "S=1024,D=128,B=1,H=1");
  auto serial = costmodel::estimate(load("bench/gpu/schedules/attn_d128/fa3_d128_b128.cake"), sh);
  auto intra = costmodel::estimate(load("bench/gpu/schedules/attn_d128/fa3_d128_fold.cake"), sh);
  auto pp = costmodel::estimate(load("bench/gpu/schedules/attn_d128/fa3_d128_fold_pingpong.cake"), sh);
  auto d64 = costmodel::estimate(load(kFa3), shape(workload::Kind::AttentionFwd, "S=1024,D=64,B=1,H=1"));
  ASSERT_TRUE(serial.ok && intra.ok && pp.ok && d64.ok);
  EXPECT_EQ(serial.facts.fp32_ops_overlapped, 0);
  EXPECT_EQ(serial.raw.at("overlap"), 0);
  EXPECT_EQ(d64.facts.fp32_ops_overlapped + d64.facts.sfu_ops_overlapped, 0);
  EXPECT_FALSE(d64.facts.alternating || intra.facts.alternating);
  // fold's loop body, per consumer and key block j < n - 1: the MUFU ops of
  // the softmax (corr: 64, the scores: 64 x 128) run beside P_j V_j
  const double blocks = 1024 / 128 - 1, consumers = 2;
  EXPECT_DOUBLE_EQ(intra.facts.sfu_ops_overlapped, consumers * blocks * (64 + 64 * 128));
  EXPECT_GT(intra.facts.fp32_ops_overlapped, 0);
  // after the last mma_wait: O's rescale (64 x 128) and P's copy are not hidden
  EXPECT_LE(intra.facts.fp32_ops_overlapped + consumers * blocks * 64 * 128,
            intra.facts.fp32_ops - intra.facts.epilogue_ops);
  // ping-pong: the turns are a fact but hide nothing of their own (round 6);
  // fold_pingpong's overlappable work is what it issues with its own wgmma in flight
  EXPECT_TRUE(pp.facts.alternating);
  EXPECT_GT(pp.facts.sfu_ops_overlapped, 0);
  EXPECT_LT(pp.facts.fp32_ops_overlapped, pp.facts.fp32_ops - pp.facts.epilogue_ops);
  // the k-means ping-pong (mma_wait 0 before its argmin) has the overlappable
  // work of its unordered twin: the norms' copy issued while its MMAs run
  const auto ks = shape(workload::Kind::KmeansAssign, "N=8192,K=256,D=128,B=2");
  auto kpp = costmodel::estimate(load("bench/gpu/schedules/kmeans_assign_pingpong.cake"), ks);
  auto kst = costmodel::estimate(load("corpus/kmeans/sm90_assign_streamed_centroids.cake"), ks);
  ASSERT_TRUE(kpp.ok && kst.ok) << kpp.error << kst.error;
  EXPECT_TRUE(kpp.facts.alternating);
  EXPECT_FALSE(kst.facts.alternating);
  EXPECT_DOUBLE_EQ(kpp.facts.fp32_ops_overlapped, kst.facts.fp32_ops_overlapped);
  EXPECT_LT(kpp.facts.fp32_ops_overlapped, 0.01 * kpp.facts.fp32_ops);
  // the overlap term: min(tensor, the overlappable work's pipes), per CTA on the busiest SM
  EXPECT_GT(intra.raw.at("overlap"), 0);
  EXPECT_LE(intra.raw.at("overlap"), std::min(intra.raw.at("core"), intra.raw.at("tensor")) + 1e-15);
  auto gemm = costmodel::estimate(load(kGemm), shape(workload::Kind::Gemm, "M=1024,N=1024,K=1024"));
  ASSERT_TRUE(gemm.ok);
  EXPECT_EQ(gemm.raw.at("overlap"), 0);
}

TEST(CostModel, SpeedOfLightRule) {
  EXPECT_EQ(costmodel::solRule(59, 59), "latency");
  EXPECT_EQ(costmodel::solRule(60, 40), "compute");
  EXPECT_EQ(costmodel::solRule(40, 60), "memory");
  EXPECT_EQ(costmodel::solRule(70, 65), "compute");
  EXPECT_EQ(costmodel::solRule(65, 65), "memory");
}

TEST(CostModel, PersistentGridTotalsFromFirstAndLastCta) {
  // 64 output tiles on a 132-CTA persistent grid: CTA 0 does one tile, the
  // last none; the launch moves half of 132 tiles' bytes, not 132 tiles'
  auto s = load("corpus/gemm/sm90_persistent_ws.cake");
  auto e = costmodel::estimate(s, shape(workload::Kind::Gemm, "M=128,N=8192,K=8192"));
  ASSERT_TRUE(e.ok) << e.error;
  EXPECT_EQ(e.facts.ctas, 132);
  EXPECT_DOUBLE_EQ(e.facts.l2_bytes, 0.5 * e.facts.load_bytes * 132);
  EXPECT_DOUBLE_EQ(e.facts.total_mma_flops, 0.5 * e.facts.mma_flops * 132);
}

TEST(CostModel, Classes) {
  // row-max reads an unswizzled 128-byte-row view with one row per lane:
  // 32-way bank conflicts make its shared-memory reads the largest term
  // (its class against the nominal peaks moves with the fitted coefficients:
  // compute-bound with round 3's fit, latency-bound at 57% with the fit of
  // the ring with a CUDA-core station)
  auto rowmax = load("corpus/reduction/sm90_row_max_two_wg.cake");
  auto e = costmodel::estimate(rowmax, shape(workload::Kind::RowMax, "M=65536,N=8192"));
  ASSERT_TRUE(e.ok) << e.error;
  ASSERT_FALSE(e.deciding.empty());
  EXPECT_EQ(e.deciding.front().name, "core");
  EXPECT_NE(e.bottleneck, costmodel::Bottleneck::Memory);
  EXPECT_DOUBLE_EQ(e.facts.smem_generic_bytes, 128 * (2 * 128 * 32 * 2 * 32.0 + 128 * 4 + 128 * 4));
  // a skinny GEMM fills a quarter of the SMs
  auto g = costmodel::estimate(load(kGemm), shape(workload::Kind::Gemm, "M=128,N=4096,K=8192"));
  ASSERT_TRUE(g.ok) << g.error;
  EXPECT_EQ(g.bottleneck, costmodel::Bottleneck::Occupancy);
  // an unbindable shape is not estimated
  auto bad = costmodel::estimate(load(kKmeans), shape(workload::Kind::KmeansAssign, "N=4096,K=512,D=128"));
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("unsupported_shape"), std::string::npos);
}

TEST(CostModel, BiggerProblemsTakeLonger) {
  auto s = load(kGemm);
  auto small = costmodel::estimate(s, shape(workload::Kind::Gemm, "M=1024,N=1024,K=1024"));
  auto big = costmodel::estimate(s, shape(workload::Kind::Gemm, "M=4096,N=4096,K=4096"));
  ASSERT_TRUE(small.ok && big.ok);
  EXPECT_GT(big.time_ms, 10 * small.time_ms);
}

TEST(CostModel, CoefficientsJson) {
  costmodel::Coefficients k;
  k.c["tensor"] = 1.25;
  auto back = costmodel::Coefficients::fromJson(k.toJson());
  ASSERT_TRUE(back);
  EXPECT_DOUBLE_EQ(back->get("tensor"), 1.25);
  std::string err;
  EXPECT_FALSE(costmodel::Coefficients::fromJson({{"coefficients", {{"warp", 1}}}}, &err));
  EXPECT_FALSE(costmodel::Coefficients::fromJson({{"coefficients", {{"tensor", -1}}}}, &err));
  EXPECT_FALSE(costmodel::Coefficients::fromJson(nlohmann::json::array(), &err));
}

// ---------------------------------------------------------- calibration

TEST(Calibration, RecoversKnownCoefficients) {
  costmodel::Coefficients truth;
  truth.c = {{"launch", 1.5}, {"tensor", 1.3}, {"dram", 0.9}, {"l2", 0.8},
             {"latency", 2.0}, {"core", 0.7},  {"epilogue", 1.1}};
  std::vector<costmodel::Sample> samples;
  // a spread of kernels: each term dominates somewhere
  for (int i = 0; i < 40; ++i) {
    costmodel::Sample s;
    s.raw = {{"launches", 1 + i % 3},
             {"launch", 0.0025},
             {"tensor", 0.05 * (1 + i % 7)},
             {"l2", 0.04 * (1 + (i * 3) % 11)},
             {"dram", 0.035 * (1 + (i * 7) % 12)},
             {"latency", 0.03 * (1 + (i * 5) % 13)},
             {"core", 0.01 * (i % 5)},
             {"epilogue", 0.005 * (i % 4)}};
    s.measured_ms = costmodel::combine(s.raw, truth);
    samples.push_back(s);
  }
  costmodel::Fit fit = costmodel::calibrate(samples);
  EXPECT_LT(fit.median_abs_rel, 1e-9);
  for (const auto& [name, v] : truth.c) EXPECT_NEAR(fit.k.get(name), v, 1e-6) << name;
  EXPECT_EQ(fit.samples, 40);
}

TEST(Calibration, CoefficientsStayNonNegative) {
  // measured times that a negative epilogue coefficient would fit best
  std::vector<costmodel::Sample> samples;
  for (int i = 1; i <= 10; ++i) {
    costmodel::Sample s;
    s.raw = {{"tensor", 0.1 * i}, {"epilogue", 0.05 * (11 - i)}};
    s.measured_ms = 0.1 * i;
    samples.push_back(s);
  }
  auto fit = costmodel::calibrate(samples);
  for (const auto& [name, v] : fit.k.c) EXPECT_GE(v, 0) << name;
  EXPECT_NEAR(fit.k.get("tensor"), 1.0, 1e-6);
  EXPECT_NEAR(fit.k.get("epilogue"), 0.0, 1e-9);
}

TEST(Calibration, CoefficientsStayAtOrAboveTheirFloors) {
  // times that a tensor coefficient of 0.5 fits exactly (faster than the
  // tensor cores' peak): with the floor the fit keeps tensor at 1 and moves
  // the rest to the other term; a floor that binds nothing changes nothing
  std::vector<costmodel::Sample> samples;
  for (int i = 1; i <= 10; ++i) {
    costmodel::Sample s;
    s.raw = {{"tensor", 0.1 * i}, {"epilogue", 0.01 * (11 - i)}};
    s.measured_ms = 0.05 * i + 0.01 * (11 - i);  // tensor 0.5, epilogue 1
    samples.push_back(s);
  }
  auto free = costmodel::calibrate(samples);
  EXPECT_NEAR(free.k.get("tensor"), 0.5, 1e-6);
  auto floored = costmodel::calibrate(samples, {}, {{"tensor", 1.0}});
  EXPECT_NEAR(floored.k.get("tensor"), 1.0, 1e-9);
  EXPECT_NEAR(free.k.get("epilogue"), 1.0, 1e-6);
  EXPECT_GE(floored.k.get("epilogue"), 0.0);
  EXPECT_LT(floored.k.get("epilogue"), 1.0);  // the floor's excess time comes off the other term
  auto loose = costmodel::calibrate(samples, {}, {{"tensor", 0.2}});
  EXPECT_NEAR(loose.k.get("tensor"), 0.5, 1e-6);
  const auto f = costmodel::physicalFloors(costmodel::hardware(ir::Target::SM90a));
  EXPECT_EQ(f.at("tensor"), 1.0);
  EXPECT_NEAR(f.at("dram"), 4300.0 / 4800, 1e-12);
  EXPECT_LT(f.at("l2"), 1.0);
}

TEST(Calibration, RecoversTheOverlapShare) {
  // samples whose CUDA-core work is partly overlappable: the fit finds the
  // hidden share (exposed = c_core core - c_overlap overlap)
  costmodel::Coefficients truth;
  truth.c = {{"tensor", 1.0}, {"core", 1.2}, {"overlap", 0.6}};
  std::vector<costmodel::Sample> samples;
  for (int i = 0; i < 30; ++i) {
    costmodel::Sample s;
    s.raw = {{"tensor", 0.1 * (1 + i % 5)}, {"core", 0.02 * (1 + i % 7)}, {"overlap", 0.02 * (1 + i % 7) * (i % 3) / 3}};
    s.measured_ms = costmodel::combine(s.raw, truth);
    samples.push_back(s);
  }
  auto fit = costmodel::calibrate(samples);
  EXPECT_LT(fit.median_abs_rel, 1e-9);
  EXPECT_NEAR(fit.k.get("core"), 1.2, 1e-6);
  EXPECT_NEAR(fit.k.get("overlap"), 0.6, 1e-6);
}

TEST(Calibration, IgnoresUnusableSamples) {
  std::vector<costmodel::Sample> samples(3);
  samples[0].raw = {{"tensor", 1}};
  samples[0].measured_ms = 2;
  samples[1].measured_ms = -1;  // no measurement
  samples[2].measured_ms = NAN;
  auto fit = costmodel::calibrate(samples);
  EXPECT_EQ(fit.samples, 1);
  EXPECT_NEAR(fit.k.get("tensor"), 2.0, 1e-9);
}

TEST(Accuracy, SpearmanAndMedian) {
  EXPECT_NEAR(costmodel::spearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0, 1e-12);
  EXPECT_NEAR(costmodel::spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0, 1e-12);
  EXPECT_NEAR(costmodel::spearman({1, 1, 2}, {1, 1, 2}), 1.0, 1e-12);  // ties get average ranks
  EXPECT_NEAR(costmodel::medianAbsRelError({1.1, 0.8, 1.0}, {1, 1, 1}), 0.1, 1e-12);
  EXPECT_TRUE(std::isnan(costmodel::spearman({1}, {1})));
}

TEST(CostModel, PersistentPingPongCountsTheBusiestSmsTiles) {
  // A persistent ping-pong CTA runs its tiles' mainloops one after another,
  // so what decides its time is how many tiles the busiest SM owns (wave
  // quantization, docs/gpu.md "Ping-pong at 4096^3"). Over 132 SMs at
  // 4096^3: 128x192 tiles are 32 x 22 = 704 (6 on the busiest SM), 128x176
  // are 768 (6), 128x208 are 640 (5); at 8192^3 2752 (21), 3008 (23), 2560
  // (20). The walk of block 0 (which owns the most tiles) must count them,
  // partial last tile columns included (the wgmma computes all N columns),
  // and the estimates must rank the tiles as measured on the H200: 128x208
  // fastest at 4096^3 (0.174 ms against 0.178 and 0.188), 128x192 at 8192^3.
  const char* files[] = {"bench/gpu/schedules/sm90_pingpong_128x192_r240.cake",
                         "bench/gpu/schedules/sm90_pingpong_128x176.cake",
                         "bench/gpu/schedules/sm90_pingpong_128x208.cake"};
  const int64_t widths[] = {192, 176, 208};
  const int64_t busiest_4096[] = {6, 6, 5}, busiest_8192[] = {21, 23, 20};
  double t4[3], t8[3];
  for (int i = 0; i < 3; ++i) {
    const ir::Schedule s = load(files[i]);
    auto e4 = costmodel::estimate(s, shape(workload::Kind::Gemm, "M=4096,N=4096,K=4096"));
    auto e8 = costmodel::estimate(s, shape(workload::Kind::Gemm, "M=8192,N=8192,K=8192"));
    ASSERT_TRUE(e4.ok && e8.ok) << files[i] << ": " << e4.error << e8.error;
    EXPECT_TRUE(e4.facts.alternating) << files[i];
    EXPECT_DOUBLE_EQ(e4.facts.mma_flops, busiest_4096[i] * 2.0 * 128 * widths[i] * 4096) << files[i];
    EXPECT_DOUBLE_EQ(e8.facts.mma_flops, busiest_8192[i] * 2.0 * 128 * widths[i] * 8192) << files[i];
    t4[i] = e4.time_ms;
    t8[i] = e8.time_ms;
  }
  EXPECT_LT(t4[2], t4[1]);
  EXPECT_LT(t4[1], t4[0]);
  EXPECT_LT(t8[0], t8[1]);
  EXPECT_LT(t8[0], t8[2]);
}
