#include "costmodel/estimate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "ir/smem_layout.h"
#include "ir/target.h"
#include "lowering/lane_count.h"
#include "lowering/reduce_chain.h"
#include "workload/walk.h"

#ifndef CAKE_COSTMODEL_DIR
#define CAKE_COSTMODEL_DIR ""
#endif

namespace cake::costmodel {

std::string_view bottleneckName(Bottleneck b) {
  switch (b) {
    case Bottleneck::Memory: return "memory-bound";
    case Bottleneck::TensorCore: return "tensor-core-bound";
    case Bottleneck::Compute: return "compute-bound";
    case Bottleneck::Latency: return "latency-bound";
    case Bottleneck::Occupancy: return "occupancy-limited";
    case Bottleneck::Epilogue: return "epilogue-bound";
    case Bottleneck::Launch: return "launch-bound";
  }
  return "?";
}

std::string_view solBucket(Bottleneck b) {
  switch (b) {
    case Bottleneck::Memory: return "memory";
    case Bottleneck::TensorCore:
    case Bottleneck::Compute: return "compute";
    default: return "latency";
  }
}

std::string_view solRule(double sm_pct, double mem_pct) {
  if (sm_pct < 60 && mem_pct < 60) return "latency";
  return mem_pct >= sm_pct ? "memory" : "compute";
}

const std::vector<std::string>& mainTerms() {
  static const std::vector<std::string> n = {"tensor", "dram", "l2", "latency"};
  return n;
}

bool coreInMain(const std::string& main_term) { return main_term == "latency"; }

const std::vector<std::string>& additiveTerms() {
  static const std::vector<std::string> n = {"launch", "core", "epilogue", "fill", "chain"};
  return n;
}

double exposedCore(const std::map<std::string, double>& raw, const Coefficients& k) {
  auto r = [&](const char* n) {
    auto it = raw.find(n);
    return it == raw.end() ? 0.0 : it->second;
  };
  const double core = r("core"), hidden = std::min(r("overlap"), core);
  return std::max({k.get("core") * core - k.get("overlap") * hidden, k.get("core") * (core - hidden), 0.0});
}

double Coefficients::get(const std::string& k) const {
  if (auto it = c.find(k); it != c.end()) return it->second;
  static const Coefficients defaults;
  auto d = defaults.c.find(k);
  return d == defaults.c.end() ? 1.0 : d->second;
}

nlohmann::json Coefficients::toJson() const {
  nlohmann::json j;
  j["coefficients"] = c;
  j["source"] = source;
  return j;
}

std::optional<Coefficients> Coefficients::fromJson(const nlohmann::json& j, std::string* error) {
  Coefficients k;
  if (!j.is_object() || !j.contains("coefficients") || !j["coefficients"].is_object()) {
    if (error) *error = "expected an object with \"coefficients\"";
    return std::nullopt;
  }
  for (const auto& [name, v] : j["coefficients"].items()) {
    if (!v.is_number() || v.get<double>() < 0 || !k.c.count(name)) {
      if (error) *error = fmt::format("bad coefficient '{}'", name);
      return std::nullopt;
    }
    k.c[name] = v.get<double>();
  }
  k.source = j.value("source", std::string("file"));
  return k;
}

Coefficients Coefficients::load(ir::Target t) {
  std::string path;
  if (const char* e = getenv("CAKE_COST_COEFFICIENTS"); e && *e) path = e;
  else if (*CAKE_COSTMODEL_DIR)
    path = fmt::format("{}/coefficients/{}.json", CAKE_COSTMODEL_DIR,
                       t == ir::Target::Unspecified ? "sm_90a" : ir::targetName(t));
  std::ifstream in(path);
  if (!in) return {};
  try {
    auto k = fromJson(nlohmann::json::parse(in));
    if (k) {
      k->source = path;
      return *k;
    }
  } catch (...) {
  }
  return {};
}

double combine(const std::map<std::string, double>& raw, const Coefficients& k, std::string* main_term) {
  auto r = [&](const std::string& n) {
    auto it = raw.find(n);
    return it == raw.end() ? 0.0 : it->second;
  };
  std::string best = mainTerms().front();
  double main = -1;
  const double core = exposedCore(raw, k);
  for (const std::string& n : mainTerms()) {
    const double v = k.get(n) * r(n) + (coreInMain(n) ? 0.0 : core);
    if (v > main) main = v, best = n;
  }
  if (main_term) *main_term = best;
  double add = 0;
  for (const std::string& n : additiveTerms())
    if (n != "core") add += k.get(n) * r(n);
  const double launches = raw.count("launches") ? raw.at("launches") : 1.0;
  return launches * (add + main);
}

namespace {

double product(const std::vector<int64_t>& v) {
  double p = 1;
  for (int64_t x : v) p *= static_cast<double>(x);
  return p;
}

// Bytes of a box that lie inside the tensor (TMA fills the rest with zeros
// without reading memory; element-wise copies are guarded).
double clippedBytes(const workload::TensorBox& box, const std::vector<int64_t>& dims) {
  double n = ir::dtypeBytes(box.dtype);
  for (size_t d = 0; d < box.lo.size(); ++d) {
    int64_t lo = std::max<int64_t>(box.lo[d], 0);
    int64_t hi = box.lo[d] + box.ext[d];
    if (d < dims.size()) hi = std::min(hi, dims[d]);
    n *= static_cast<double>(std::max<int64_t>(hi - lo, 0));
  }
  return n;
}

// What the lowering requests: its layout (ir/smem_layout.h) at the bound
// parameter values plus the alignment slack. Its reduction scratch, chosen
// from the fragment layouts, is not counted; a layout the binding does not
// decide counts as empty.
int smemBytes(const ir::Schedule& s, const ir::EvalEnv& env) {
  const ir::SmemLayout L = ir::smemLayout(s);
  const int64_t bytes = L.total ? ir::evaluate(*L.total, env).value_or(0) : 0;
  return static_cast<int>(ir::requestedSmemBytes(std::max<int64_t>(bytes, 0)));
}

// Registers per thread: setmaxnreg budgets where given, else the fragments
// spread over a warpgroup (or the block) plus a fixed overhead.
int regsPerThread(const ir::Schedule& s, int threads) {
  int64_t with_budget = 0, warps_budget = 0;
  for (const ir::Role& r : s.roles)
    if (r.regs) with_budget += static_cast<int64_t>(*r.regs) * 32 * r.warps.size(), warps_budget += r.warps.size();
  if (warps_budget > 0 && warps_budget * 32 == threads) return static_cast<int>(with_budget / threads);
  double words = 0;
  const int spread = std::min(threads, 128);
  for (const ir::Regs& r : s.regs) {
    double elems = 1;
    for (const auto& e : r.shape) elems *= static_cast<double>(ir::constValue(e).value_or(1));
    words += elems * ir::dtypeBytes(r.dtype) / 4 / spread;
  }
  return static_cast<int>(std::min<double>({255.0, 65536.0 / threads, 40 + words}));
}

// Fragments anchored by an MMA (an accumulator or an A operand): the
// lowering gives them the MMA register layout; the others get the generic
// one (docs/gpu.md "Fragments").
std::set<int> mmaFragments(const ir::Schedule& s) {
  std::set<int> out;
  for (const ir::RoleBody& rb : s.bodies)
    ir::forEachOp(rb.body, [&](const ir::Stmt& st) {
      if (st.op.kind != ir::OpKind::Mma) return;
      for (const ir::BufferRef* r : {&st.op.dst, &st.op.src})
        if (r->kind == ir::BufferRef::Kind::Regs) out.insert(r->index);
    });
  return out;
}

// Shared-memory bank conflicts of a generic access to a view: a warp of
// the generic layout touches 32 rows at once (one per lane), of the MMA
// layouts 8; rows `row_bytes` apart fall on 32 / gcd(row_bytes / 4, 32)
// distinct banks, and a swizzle spreads the 16-byte chunks of up to 8
// (128B), 4 (64B) or 2 (32B) consecutive rows. Row vectors (one row) and
// accesses without a fragment are conflict-free.
double bankConflict(const ir::Schedule& s, const ir::View& v, const ir::Op& op, const std::set<int>& mma_frags) {
  const ir::BufferRef* frag = nullptr;
  for (const ir::BufferRef* r : {&op.dst, &op.src, &op.src2})
    if (r->kind == ir::BufferRef::Kind::Regs) frag = r;
  if (!frag || v.shape.size() < 2) return 1;
  const auto& fshape = s.regs.at(frag->index).shape;
  if (fshape.size() < 2 || ir::constValue(fshape[0]).value_or(1) <= 1) return 1;
  const int64_t row_bytes = ir::constValue(v.shape.back()).value_or(0) * ir::dtypeBytes(v.dtype);
  if (row_bytes <= 0 || row_bytes % 4) return 1;
  const double rows_per_warp = mma_frags.count(frag->index) ? 8 : 32;
  const double banks_apart = 32.0 / std::gcd<int64_t>(row_bytes / 4, 32);
  double conflict = std::max(1.0, rows_per_warp / banks_apart);
  const int swz = ir::swizzleBytes(v.swizzle);
  if (swz) conflict = std::max(1.0, conflict / (swz / 16));
  return conflict;
}

// Roles whose instances take turns at the tensor cores (ping-pong): a role
// with MMAs and two or more instances that both arrives on and waits on one
// barrier (the order barrier: one instance's turn hands over to the other).
// A fact only (round 6): the turns add no overlappable work of their own.
// Two consumer instances without an order barrier run each other's CUDA-core
// work beside their MMAs as well, and the model gives those no overlap; the
// k-means ping-pong measured 3-6% slower than its unordered twin (streamed
// centroids) at all six shapes of rounds 4 and 5, where counting its whole
// main loop as hidden put it at 0.65-0.74 of the measured time. The FA3
// ping-pongs' overlap is their own wgmma in flight, found per instance.
std::set<int> alternatingRoles(const ir::Schedule& s) {
  std::set<int> mma_roles;
  for (const ir::RoleBody& rb : s.bodies)
    ir::forEachOp(rb.body, [&](const ir::Stmt& st) {
      if (st.op.kind == ir::OpKind::Mma) mma_roles.insert(rb.role);
    });
  std::set<int> out;
  for (const ir::Barrier& b : s.barriers)
    for (int r : b.prod)
      if (mma_roles.count(r) && s.roles.at(r).instanceCount() >= 2 &&
          std::find(b.cons.begin(), b.cons.end(), r) != b.cons.end())
        out.insert(r);
  return out;
}

struct Walked {
  Facts f;
  std::map<int, int64_t> view_loads;
  std::map<std::pair<int, int>, int64_t> waits;  // (role, instance) -> waits
  // (role, instance) -> dependent-chain clocks of its reductions: main loop, after it
  std::map<std::pair<int, int>, std::pair<double, double>> chains;
};

bool walkFacts(const ir::Schedule& s, const workload::Binding& b, const Hardware& hw, const std::array<int64_t, 3>& block,
               Walked& w, std::string* why) {
  ir::EvalEnv env = b.env();
  for (int d = 0; d < 3; ++d) env.block_idx[d] = block[d];
  int64_t budget = 20'000'000;
  Facts& f = w.f;
  const std::set<int> mma_frags = mmaFragments(s);
  // lane instructions per element of each compute op, as the lowering
  // emits it (lowering/lane_count.h), once per op; the previous op of each
  // role instance (a multiply contracted into the add after it is one FFMA)
  std::map<const ir::Op*, lowering::LaneCount> lanes;
  std::map<std::pair<int, int>, const ir::Op*> prev;
  // per role instance: wgmma groups committed and not yet retired, and MMAs
  // issued since the last commit (both are on the tensor cores while the
  // instance's next instructions issue)
  std::map<std::pair<int, int>, std::pair<int64_t, bool>> in_flight;
  f.alternating = !alternatingRoles(s).empty();
  return workload::walkCta(s, env, [&](const workload::OpVisit& v) {
    const ir::Op& op = v.op;
    const ir::Op* before = std::exchange(prev[{v.role, v.instance}], &op);
    auto& [groups, uncommitted] = in_flight[{v.role, v.instance}];
    if (op.kind == ir::OpKind::Mma) uncommitted = true;
    if (op.kind == ir::OpKind::MmaCommit && std::exchange(uncommitted, false)) ++groups;
    if (op.kind == ir::OpKind::MmaWait)
      groups = std::min(groups, op.pending ? ir::evaluate(*op.pending, v.env).value_or(0) : int64_t{0});
    const bool hidden = !v.after_loop && (groups > 0 || uncommitted);
    // ring-slot arithmetic (slot = iter % S, the wait's phase iter / S) in
    // every thread of the instance
    const double threads = 32.0 * s.roles.at(v.role).warpsPerInstance();
    if (op.sel.mode == ir::SlotSel::Mode::Iter && !ir::constValue(op.sel.index)) {
      // iter= of a wait, arrive, TMA or commit: the barrier's slot (and the
      // wait's phase), else the view's
      int stages = op.barrier >= 0 ? s.barriers.at(op.barrier).count : 1;
      for (const ir::BufferRef* r : {&op.dst, &op.src})
        if (op.barrier < 0 && r->kind == ir::BufferRef::Kind::View) stages = s.views.at(r->index).stages;
      f.fp32_ops += threads * lowering::slotLanes(stages, op.kind == ir::OpKind::Wait);
    }
    for (const ir::BufferRef* r : {&op.dst, &op.src, &op.src2})
      if (r->kind == ir::BufferRef::Kind::View && r->slot && !ir::constValue(r->slot))
        f.fp32_ops += threads * lowering::slotLanes(s.views.at(r->index).stages, false);
    if (auto box = workload::tensorBox(s, op, v.env)) {
      const auto& dims = b.tensor_dims.at(box->param);
      const double bytes = clippedBytes(*box, dims);
      if (box->write) {
        f.store_bytes += bytes;
        if (v.after_loop) f.epilogue_store_bytes += bytes;
      } else {
        f.load_bytes += bytes;
        if (v.after_loop) f.epilogue_load_bytes += bytes;
      }
      if (op.kind == ir::OpKind::TmaLoad || op.kind == ir::OpKind::CpAsync) ++w.view_loads[op.dst.index];
      if (op.kind != ir::OpKind::Copy) return;
    }
    switch (op.kind) {
      case ir::OpKind::Wait: ++w.waits[{v.role, v.instance}]; break;
      case ir::OpKind::Mma: {
        auto acc = workload::operandShape(s, op.dst, v.env);
        auto a = workload::operandShape(s, op.src, v.env);
        if (acc.size() < 2 || a.empty()) break;
        const double R = product(acc) / acc.back(), N = acc.back(), K = a.back();
        ir::DType at = op.src.kind == ir::BufferRef::Kind::View ? s.views.at(op.src.index).dtype
                       : op.src.kind == ir::BufferRef::Kind::Regs ? s.regs.at(op.src.index).dtype
                                                                   : ir::DType::BF16;
        const int eb = ir::dtypeBytes(at);
        const double kstep = eb == 1 ? 32 : eb == 4 ? 8 : 16;
        // f32 (tf32) runs at half the bf16 rate, 8-bit types at twice it
        const double rate = eb == 1 ? 2.0 : eb == 4 ? 0.5 : 1.0;
        f.mma_flops += 2 * R * N * K / rate;
        std::string shape;
        double instrs = 0;
        const auto& role = s.roles.at(v.role);
        if (op.dst.kind == ir::BufferRef::Kind::Tmem) {
          shape = fmt::format("tcgen05.m{}n{}k{}", R, N, kstep);
          instrs = K / kstep;
        } else if (s.target == ir::Target::SM90a && role.warpsPerInstance() % 4 == 0 &&
                   std::fmod(R, 64) != 0 && std::fmod(N, 64) == 0 && op.src.kind == ir::BufferRef::Kind::View) {
          // the transposed wgmma (docs/ir-extensions.md): N / 64 blocks of m64nR
          shape = fmt::format("wgmma.m64n{}k{}", R, kstep);
          instrs = N / 64 * K / kstep;
        } else if (s.target == ir::Target::SM90a && role.warpsPerInstance() % 4 == 0) {
          shape = fmt::format("wgmma.m64n{}k{}", N, kstep);
          instrs = std::ceil(R / 64) * K / kstep;
        } else {
          shape = fmt::format("mma.m16n8k{}", kstep);
          instrs = std::ceil(R / 16) * std::ceil(N / 8) * K / kstep;
        }
        f.mma_instructions += instrs;
        f.mma_shapes[shape] += instrs;
        break;
      }
      case ir::OpKind::Fill:
      case ir::OpKind::Unary:
      case ir::OpKind::Binary:
      case ir::OpKind::Reduce:
      case ir::OpKind::Copy: {
        const ir::BufferRef& big = op.kind == ir::OpKind::Reduce ? op.src : op.dst;
        auto shape = workload::operandShape(s, big, v.env);
        if (shape.empty()) shape = workload::operandShape(s, op.src, v.env);
        const double elems = product(shape);
        auto it = lanes.find(&op);
        if (it == lanes.end()) it = lanes.emplace(&op, lowering::elementLanes(s, op)).first;
        // the multiply before it already counted the FFMA
        const double alu = it->second.alu - (before && lowering::contractsInto(*before, op) ? 1.0 : 0.0);
        f.fp32_ops += elems * alu;
        f.sfu_ops += elems * it->second.mufu;
        if (hidden) {
          f.fp32_ops_overlapped += elems * alu;
          f.sfu_ops_overlapped += elems * it->second.mufu;
        }
        for (const ir::BufferRef* r : {&op.dst, &op.src, &op.src2})
          if (r->kind == ir::BufferRef::Kind::View)
            f.smem_generic_bytes += elems * ir::dtypeBytes(s.views.at(r->index).dtype) *
                                    bankConflict(s, s.views.at(r->index), op, mma_frags);
        if (v.after_loop) f.epilogue_ops += elems * alu;
        // an argmin / argmax scan's dependent chain (in index order, one per
        // row a thread holds): on the instance's critical path unless an MMA
        // of the instance is in flight under it. Plain row reductions are
        // left out: the lowering splits them into kReducePartials chains
        // (nr / 4 + 2 deep), and counting them moved the fit's weight from
        // the CUDA-core term to the chain on attention (docs/costmodel.md
        // "Round 7")
        if (op.kind == ir::OpKind::Reduce && !hidden && (op.fn == ir::ElemFn::ArgMin || op.fn == ir::ElemFn::ArgMax)) {
          const lowering::ReduceChain c = lowering::reduceChain(s, op);
          const double clk = c.alu_steps * hw.alu_latency_clk + c.shuffles * hw.shfl_latency_clk;
          auto& [main_clk, epi_clk] = w.chains[{v.role, v.instance}];
          (v.after_loop ? epi_clk : main_clk) += clk;
        }
        break;
      }
      default: break;
    }
  }, budget, why);
}

std::string human(double bytes) {
  if (bytes >= 1e9) return fmt::format("{:.2f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.2f} MB", bytes / 1e6);
  return fmt::format("{:.1f} KB", bytes / 1e3);
}

// Occupancy, rounds and wave fill of one launch (Facts' occupancy fields).
void occupancy(const ir::Schedule& s, const workload::Binding& b, const Hardware& hw, Facts& f) {
  f.threads = s.warpCount() * 32;
  f.smem_bytes = smemBytes(s, b.env());
  f.regs_per_thread = regsPerThread(s, std::max(f.threads, 32));
  f.ctas = b.grid[0] * b.grid[1] * b.grid[2];
  // the tightest of shared memory, threads, registers, CTA slots
  struct Lim {
    int n;
    const char* why;
  };
  const ir::TargetLimits& lim = ir::targetLimits(hw.target);
  const int per_cta_regs = std::max(1, f.threads * f.regs_per_thread);
  const Lim lims[] = {
      {static_cast<int>(lim.blocksBySmem(f.smem_bytes)), "shared memory"},
      {lim.max_warps_per_sm * 32 / std::max(f.threads, 1), "threads"},
      {static_cast<int>(lim.register_file / per_cta_regs), "registers"},
      {lim.max_blocks_per_sm, "CTA slots"}};
  Lim tight = lims[0];
  for (const Lim& l : lims)
    if (l.n < tight.n) tight = l;
  f.ctas_per_sm = std::max(tight.n, 1);
  f.occupancy_limit = tight.why;
  f.ctas_busiest_sm = (f.ctas + hw.sms - 1) / hw.sms;
  const int64_t conc = std::min<int64_t>(f.ctas_per_sm, std::max<int64_t>(f.ctas_busiest_sm, 1));
  f.rounds = (f.ctas_busiest_sm + conc - 1) / conc;
  f.fill = static_cast<double>(f.ctas) / (static_cast<double>(f.rounds) * hw.sms * conc);
}

}  // namespace

double coreSeconds(double lanes, double mufu, double smem_bytes, const Hardware& hw) {
  return (lanes / hw.fp32_per_clk_sm + mufu / hw.sfu_per_clk_sm + smem_bytes / hw.smem_bytes_per_clk_sm) /
         (hw.clock_ghz * 1e9);
}

double busiestPipeSeconds(double lanes, double mufu, double smem_bytes, const Hardware& hw) {
  return std::max({lanes / hw.fp32_per_clk_sm, mufu / hw.sfu_per_clk_sm, smem_bytes / hw.smem_bytes_per_clk_sm}) /
         (hw.clock_ghz * 1e9);
}

double mvaThroughput(int64_t customers, double delay, const std::vector<double>& demands) {
  if (customers <= 0) return 0;
  std::vector<double> queue(demands.size(), 0.0);
  double x = 0;
  for (int64_t m = 1; m <= customers; ++m) {
    double cycle = delay;
    std::vector<double> resid(demands.size());
    for (size_t i = 0; i < demands.size(); ++i) cycle += resid[i] = demands[i] * (1 + queue[i]);
    x = cycle > 0 ? static_cast<double>(m) / cycle : 0;
    for (size_t i = 0; i < demands.size(); ++i) queue[i] = x * resid[i];
  }
  return x;
}

Ring ring(const RingFacts& r) {
  Ring out;
  const double lat = r.l2_latency_ns + std::clamp(r.dram_share, 0.0, 1.0) * (r.dram_latency_ns - r.l2_latency_ns);
  out.delay_ns = lat + r.waits_per_load * r.barrier_rtt_ns;
  const int64_t tiles = std::max<int64_t>(r.loads, 1);  // per CTA
  const int64_t resident = std::clamp<int64_t>(r.concurrent, 1, std::max<int64_t>(r.ctas, 1));
  const int64_t slots = resident * std::min<int64_t>(std::max(r.stages, 1), tiles);
  out.slots = static_cast<double>(slots);
  const std::vector<double> d = {r.xfer_ms, r.dram_ms, r.tensor_ms, r.core_ms};
  const double busiest = *std::max_element(d.begin(), d.end());
  const double total_tiles = static_cast<double>(std::max<int64_t>(r.ctas, 0) * tiles);
  const double delay_ms = out.delay_ns * 1e-6;
  const double x = mvaThroughput(slots, delay_ms, d);
  out.ms = x > 0 ? total_tiles / x : 0;
  out.bound_ms = total_tiles * busiest;
  out.slots_needed = busiest > 0 ? (delay_ms + std::accumulate(d.begin(), d.end(), 0.0)) / busiest : 1;
  return out;
}

double ringLatencyMs(const RingFacts& r) { return ring(r).ms; }

Estimate estimate(const ir::Schedule& s, const workload::Binding& b, const Hardware& hw, const Coefficients& k) {
  Estimate e;
  Walked w;
  std::string why;
  if (!walkFacts(s, b, hw, {0, 0, 0}, w, &why)) {
    e.error = "cannot walk the schedule: " + why;
    return e;
  }
  Facts& f = w.f;
  occupancy(s, b, hw, f);
  // the deepest-used ring: the view with the most loads
  for (const auto& [view, n] : w.view_loads)
    if (n > f.pipeline_loads) {
      f.pipeline_loads = n;
      f.stages = s.views.at(view).stages;
    }
  for (const auto& [ri, n] : w.waits) f.waits = std::max(f.waits, n);
  for (const auto& [ri, c] : w.chains)
    if (c.first + c.second > f.chain_clk + f.epilogue_chain_clk) f.chain_clk = c.first, f.epilogue_chain_clk = c.second;
  // launch totals: the mean of the first and the last CTA (a persistent grid
  // gives the last CTAs fewer tiles, edge tiles are clipped)
  double mean_load = f.load_bytes, mean_flops = f.mma_flops;
  if (f.ctas > 1) {
    Walked last;
    if (walkFacts(s, b, hw, {b.grid[0] - 1, b.grid[1] - 1, b.grid[2] - 1}, last, &why)) {
      mean_load = 0.5 * (f.load_bytes + last.f.load_bytes);
      mean_flops = 0.5 * (f.mma_flops + last.f.mma_flops);
    }
  }
  f.l2_bytes = mean_load * static_cast<double>(f.ctas);
  f.total_mma_flops = mean_flops * static_cast<double>(f.ctas);
  f.dram_bytes = std::max(b.min_bytes / static_cast<double>(b.launches), 0.0);
  f.dram_share = f.l2_bytes > 0 ? std::min(1.0, f.dram_bytes / f.l2_bytes) : 1.0;

  const double clk = hw.clock_ghz * 1e9;
  const double n = static_cast<double>(f.ctas_busiest_sm), r = static_cast<double>(f.rounds);
  const double per_sm_bw = hw.sm_load_bytes_per_clk * clk;
  std::map<std::string, double> raw;
  raw["launches"] = static_cast<double>(b.launches);
  raw["launch"] = hw.launch_us * 1e-3;
  raw["tensor"] = n * f.mma_flops / (hw.tc_flops_per_clk_sm * clk) * 1e3;
  const double t_l2 = f.l2_bytes / (hw.l2_gbps * 1e9) * 1e3;
  const double t_sm = n * f.load_bytes / per_sm_bw * 1e3;
  raw["dram"] = f.dram_bytes / (hw.dram_gbps * 1e9) * 1e3;
  raw["l2"] = std::max(t_l2, t_sm);
  const double main_ops = f.fp32_ops - f.epilogue_ops;
  const double core_cta = coreSeconds(main_ops, f.sfu_ops, f.smem_generic_bytes, hw);  // s, one CTA's CUDA-core work
  // the same work's busiest pipe: what ncu's SM % sees (the class, below)
  const double pipe_cta = busiestPipeSeconds(main_ops, f.sfu_ops, f.smem_generic_bytes, hw);
  // the part of it the tensor cores can hide, at most their own time
  const double tensor_cta = f.mma_flops / (hw.tc_flops_per_clk_sm * clk);
  const double hidden_cta = std::min(tensor_cta, coreSeconds(f.fp32_ops_overlapped, f.sfu_ops_overlapped, 0, hw));
  double fill_tile_ms = 0;
  {
    // the ring: per tile, the SM's share of the L2 -> SM bandwidth (its
    // intake, or the L2's bandwidth over the SMs that are busy), its share
    // of DRAM for the tile's DRAM-served bytes, its tensor cores and the
    // consumers' CUDA-core work. The ring's term includes that work, so in
    // combine() it does not add `core` again, while every other main term
    // does (the consumers of these schedules do their CUDA-core work
    // between their MMAs, mma_wait, not beside them; a load in flight
    // during a softmax is hidden by it: the FA3 kernels at D = 64 run their
    // 2-slot rings as fast as 3-slot ones, docs/costmodel.md)
    const double tiles = static_cast<double>(std::max<int64_t>(f.pipeline_loads, 1));
    const double active = static_cast<double>(std::clamp<int64_t>(f.ctas, 1, hw.sms));
    const double sm_bw = std::min(per_sm_bw, hw.l2_gbps * 1e9 / active);
    RingFacts rf;
    rf.ctas = f.ctas_busiest_sm;
    rf.concurrent = f.ctas_per_sm;
    rf.loads = f.pipeline_loads;
    rf.stages = f.stages;
    rf.waits_per_load = static_cast<double>(f.waits) / tiles;
    rf.dram_share = f.dram_share;
    rf.l2_latency_ns = hw.l2_latency_ns;
    rf.dram_latency_ns = hw.mem_latency_ns;
    rf.barrier_rtt_ns = hw.barrier_rtt_ns;
    rf.xfer_ms = (f.load_bytes - f.epilogue_load_bytes) / tiles / sm_bw * 1e3;
    rf.tensor_ms = f.mma_flops / tiles / (hw.tc_flops_per_clk_sm * clk) * 1e3;
    rf.dram_ms = (f.load_bytes - f.epilogue_load_bytes) / tiles * f.dram_share / (hw.dram_gbps * 1e9 / active) * 1e3;
    rf.core_ms = core_cta / tiles * 1e3;
    const Ring rg = ring(rf);
    // the launch's fill: the first tile of the ring, cold (the DRAM latency:
    // the launch's data is in no cache), through every station once, which
    // no earlier tile overlaps; the drain (one round's epilogue) is below
    fill_tile_ms = hw.mem_latency_ns * 1e-6 + rf.waits_per_load * hw.barrier_rtt_ns * 1e-6 + rf.xfer_ms + rf.dram_ms +
                   rf.tensor_ms + rf.core_ms;
    raw["latency"] = rg.ms;
    f.ring_slots = rg.slots;
    f.ring_slots_needed = rg.slots_needed;
  }
  raw["core"] = n * core_cta * 1e3;
  raw["overlap"] = n * hidden_cta * 1e3;
  raw["epilogue"] = r * (f.epilogue_store_bytes / per_sm_bw + f.epilogue_ops / (hw.fp32_per_clk_sm * clk) +
                         ((f.epilogue_store_bytes > 0) + (f.epilogue_load_bytes > 0)) *
                             hw.mem_latency_ns * 1e-9) * 1e3;
  // the reductions' dependent chains, round after round (a round's CTAs run side by side)
  raw["chain"] = r * (f.chain_clk + f.epilogue_chain_clk) / clk * 1e3;
  f.fill_ms = fill_tile_ms + raw["epilogue"] / std::max(r, 1.0);
  raw["fill"] = f.fill_ms;
  e.raw = raw;
  std::string main;
  e.time_ms = combine(raw, k, &main);
  e.facts = f;

  const double L = static_cast<double>(b.launches);
  auto term = [&](const std::string& name, double ms, std::string text) { e.terms.push_back({name, L * ms, text}); };
  const std::string mma_text = [&] {
    std::string t;
    for (const auto& [shape, cnt] : f.mma_shapes) t += fmt::format("{}{:.0f} x {}", t.empty() ? "" : ", ", cnt, shape);
    return t.empty() ? std::string("no MMA") : t;
  }();
  term("tensor", k.get("tensor") * raw["tensor"],
       fmt::format("{:.3g} GFLOP per CTA ({}) x {} CTAs on the busiest SM at {:.0f} FLOP/clk", f.mma_flops / 1e9,
                   mma_text, f.ctas_busiest_sm, hw.tc_flops_per_clk_sm));
  term("dram", k.get("dram") * raw["dram"],
       fmt::format("{} unique bytes from DRAM at {:.0f} GB/s", human(f.dram_bytes), hw.dram_gbps));
  term("l2", k.get("l2") * raw["l2"],
       fmt::format("{} through L2 at {:.0f} GB/s, {} per SM at {:.0f} B/clk ({})", human(f.l2_bytes), hw.l2_gbps,
                   human(n * f.load_bytes), hw.sm_load_bytes_per_clk, t_l2 >= t_sm ? "L2" : "per-SM intake"));
  term("latency", k.get("latency") * raw["latency"],
       fmt::format("{} loads per CTA through a {}-stage ring, {:.0f} slots in flight on the busiest SM ({:.1f} would "
                   "cover the {:.0f} ns load latency ({:.0f}% of the bytes from DRAM) and {:.1f} barrier hand-offs at "
                   "{:.0f} ns); x {} rounds",
                   f.pipeline_loads, f.stages, f.ring_slots, f.ring_slots_needed,
                   hw.l2_latency_ns + f.dram_share * (hw.mem_latency_ns - hw.l2_latency_ns), 100 * f.dram_share,
                   static_cast<double>(f.waits) / std::max<double>(1, static_cast<double>(f.pipeline_loads)),
                   hw.barrier_rtt_ns, f.rounds));
  term("core", exposedCore(raw, k),
       fmt::format("{:.3g} M lane instructions, {:.3g} M MUFU, {} generic smem per CTA (as lowered){}",
                   main_ops / 1e6, f.sfu_ops / 1e6, human(f.smem_generic_bytes),
                   raw["overlap"] > 0
                       ? fmt::format(", {:.0f}% of it beside the tensor cores ({}), {:.0f}% hidden",
                                     100 * raw["overlap"] / std::max(raw["core"], 1e-12),
                                     "own wgmma in flight",
                                     100 * std::min(1.0, k.get("overlap") / std::max(k.get("core"), 1e-12)))
                       : std::string()));
  term("epilogue", k.get("epilogue") * raw["epilogue"],
       fmt::format("{} stored and {:.3g} M element ops after the main loop, x {} rounds", human(f.epilogue_store_bytes),
                   f.epilogue_ops / 1e6, f.rounds));
  term("launch", k.get("launch") * raw["launch"], fmt::format("{:.1f} us per launch x {} launches", hw.launch_us, b.launches));
  term("fill", k.get("fill") * raw["fill"],
       fmt::format("per launch: the first tile's cold load, transfer and MMA ({:.2f} us) and one round's epilogue "
                   "(the drain), x {} launches",
                   fill_tile_ms * 1e3, b.launches));
  term("chain", k.get("chain") * raw["chain"],
       fmt::format("argmin / argmax scans' dependent chains: {:.0f} clk in the main loop, {:.0f} after it per CTA, x {} rounds",
                   f.chain_clk, f.epilogue_chain_clk, f.rounds));
  const std::string occ = fmt::format("{} CTAs, {} per SM ({}-limited: {} threads, {} B smem, ~{} regs/thread), {} rounds, "
                                      "{:.0f}% of the SM slots busy",
                                      f.ctas, f.ctas_per_sm, f.occupancy_limit, f.threads, f.smem_bytes,
                                      f.regs_per_thread, f.rounds, 100 * f.fill);
  std::sort(e.terms.begin(), e.terms.end(), [](const Term& a, const Term& b2) { return a.ms > b2.ms; });
  // The class, as Nsight Compute's speed of light gives it: each unit's
  // work over the predicted time at its nominal peak (the sol_* figures,
  // not the achievable rates the time terms use), then ncu's rule.
  const double t_s = std::max(e.time_ms / L, 1e-9) * 1e-3;
  const double sm_share = static_cast<double>(f.ctas) / (std::max<double>(n, 1) * hw.sms);
  e.utilization = {
      {"memory", std::max(f.dram_bytes / (hw.sol_dram_gbps * 1e9), f.l2_bytes / (hw.sol_l2_gbps * 1e9)) / t_s},
      {"tensor", f.total_mma_flops / (hw.tc_flops_per_clk_sm * hw.sms * hw.sol_clock_ghz * 1e9) / t_s},
      // the busiest CUDA-core pipe (FP32, MUFU, shared memory), not their sum:
      // ncu's sm__throughput is the busiest pipe's % of its peak; the time
      // adds the pipes (coreSeconds), the speed of light does not
      {"core", n * pipe_cta * sm_share * hw.clock_ghz / hw.sol_clock_ghz / t_s}};
  const double sm_u = std::max(e.utilization["tensor"], e.utilization["core"]);
  const std::string_view bucket = solRule(100 * sm_u, 100 * e.utilization["memory"]);
  const bool underfilled = f.ctas < hw.sms * 6 / 10 || f.fill < 0.6;
  if (bucket == "memory") {
    e.bottleneck = Bottleneck::Memory;
  } else if (bucket == "compute") {
    e.bottleneck = e.utilization["tensor"] >= e.utilization["core"] ? Bottleneck::TensorCore : Bottleneck::Compute;
  } else {
    // no unit near its peak: the largest of the remaining causes
    std::string top;
    double top_ms = -1;
    for (const Term& t : e.terms)
      if ((t.name == "latency" || t.name == "epilogue" || t.name == "launch") && t.ms > top_ms) top_ms = t.ms, top = t.name;
    if (top == "launch" && top_ms >= 0.5 * e.time_ms) e.bottleneck = Bottleneck::Launch;
    else if (underfilled) e.bottleneck = Bottleneck::Occupancy;
    else if (top == "epilogue") e.bottleneck = Bottleneck::Epilogue;
    else e.bottleneck = Bottleneck::Latency;
  }
  // deciding: the two largest terms, and occupancy when it matters
  for (const Term& t : e.terms) {
    if (e.deciding.size() >= 2) break;
    if (t.ms > 0) e.deciding.push_back(t);
  }
  e.terms.push_back({"occupancy", 0, occ});
  if (e.bottleneck == Bottleneck::Occupancy || f.fill < 0.9) e.deciding.push_back(e.terms.back());
  e.ok = true;
  return e;
}

Estimate estimate(const ir::Schedule& s, const workload::Shape& shape, const std::map<std::string, int64_t>& sets,
                  bool coverage) {
  const Hardware& hw = hardware(s.target);
  workload::BindResult br = workload::bind(s, shape, sets, hw.sms, coverage);
  if (!br.binding) {
    Estimate e;
    e.error = br.result + ": " + br.detail;
    return e;
  }
  return estimate(s, *br.binding, hw, Coefficients::load(s.target));
}

nlohmann::json toJson(const Estimate& e) {
  nlohmann::json j;
  j["ok"] = e.ok;
  if (!e.ok) {
    j["error"] = e.error;
    return j;
  }
  j["time_ms"] = e.time_ms;
  j["bottleneck"] = bottleneckName(e.bottleneck);
  j["sol_bucket"] = solBucket(e.bottleneck);
  auto terms = [](const std::vector<Term>& ts) {
    nlohmann::json a = nlohmann::json::array();
    for (const Term& t : ts) a.push_back({{"term", t.name}, {"ms", t.ms}, {"why", t.why}});
    return a;
  };
  j["deciding"] = terms(e.deciding);
  j["terms"] = terms(e.terms);
  j["raw"] = e.raw;
  j["utilization"] = e.utilization;
  const Facts& f = e.facts;
  j["facts"] = {{"ctas", f.ctas},
                {"ctas_per_sm", f.ctas_per_sm},
                {"occupancy_limit", f.occupancy_limit},
                {"rounds", f.rounds},
                {"fill", f.fill},
                {"threads", f.threads},
                {"smem_bytes", f.smem_bytes},
                {"regs_per_thread", f.regs_per_thread},
                {"load_bytes_per_cta", f.load_bytes},
                {"store_bytes_per_cta", f.store_bytes},
                {"mma_flops_per_cta", f.mma_flops},
                {"mma_shapes", f.mma_shapes},
                {"fp32_ops_per_cta", f.fp32_ops},
                {"sfu_ops_per_cta", f.sfu_ops},
                {"fp32_ops_overlapped_per_cta", f.fp32_ops_overlapped},
                {"sfu_ops_overlapped_per_cta", f.sfu_ops_overlapped},
                {"alternating", f.alternating},
                {"pipeline_loads", f.pipeline_loads},
                {"stages", f.stages},
                {"waits", f.waits},
                {"dram_bytes", f.dram_bytes},
                {"l2_bytes", f.l2_bytes},
                {"total_mma_flops", f.total_mma_flops},
                {"dram_share", f.dram_share},
                {"epilogue_ops", f.epilogue_ops},
                {"epilogue_load_bytes", f.epilogue_load_bytes},
                {"ring_slots", f.ring_slots},
                {"ring_slots_needed", f.ring_slots_needed},
                {"chain_clk", f.chain_clk},
                {"epilogue_chain_clk", f.epilogue_chain_clk},
                {"fill_ms", f.fill_ms}};
  return j;
}

}  // namespace cake::costmodel
