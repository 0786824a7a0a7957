// estimate: predicted kernel time of a schedule for one problem, from the
// schedule's own facts (what one CTA moves per memory level, its tensor-core
// work per instruction shape, its pipeline depth against the load latency,
// its barrier round trips, occupancy and wave quantization, its epilogue),
// with the bottleneck class and the terms that decide it.
//
//   auto b = workload::bind(schedule, *workload::parseShape(Kind::Gemm, "M=4096,N=4096,K=4096"));
//   Estimate e = estimate(schedule, *b.binding, hardware(schedule.target), Coefficients::load());
//   e.time_ms, e.bottleneck, e.deciding
//
// The model: per SM, the busiest SM runs n = ceil(CTAs / SMs) CTAs, c at a
// time (occupancy), in r = ceil(n / c) rounds.
//   main    = max(c_tc * tensor, c_dram * dram, c_l2 * l2, c_lat * latency)
//   time    = launches * (c_launch * launch + c_fill * fill + main + exposed core + c_epi * epilogue
//                         + c_chain * chain)
// tensor  = n * FLOP(CTA) / tensor-core rate
// dram    = unique bytes / DRAM bandwidth
// l2      = max(L2 -> SM bytes / L2 bandwidth, n * bytes(CTA) / per-SM rate)
// latency = the ring (RingFacts): the slots of the resident CTAs as customers
//           of a closed queueing network through the load latency (L2 hit
//           latency, moving to the DRAM latency with the share of the bytes
//           DRAM serves, + barrier hand-offs) and the SM's units (its share
//           of L2 and DRAM bandwidth, its tensor cores, per tile)
// core    = n * (lane instructions / FP32 rate + MUFU ops / SFU rate + generic smem bytes / smem rate),
//           the instructions counted as the lowering emits them (lowering/lane_count.h)
// overlap = n * min(tensor per CTA, the same core formula over the work issued while the tensor
//           cores can serve the SM: the instance's own wgmma in flight (a ping-pong's turns
//           alone hide nothing, round 6));
//           exposed core = c_core * core - c_overlap * overlap (at least core - overlap, and 0)
// epilogue= r * (epilogue store bytes / per-SM rate + epilogue lane instructions / FP32 rate
//           + one memory latency for the stores and one for global reads after the loop, which the
//           element ops wait for)
// chain   = r * the dependent chains of the argmin / argmax scans (compare -> select per element in
//           index order, the shuffle tree) at the dependent-issue latencies (round 7)
// fill    = per launch, the first tile's cold load (DRAM latency), transfer, MMA and CUDA-core
//           work and one round's epilogue: the launch's pipeline fill and drain (round 7)
// The c_* are the free coefficients `cake cost calibrate` fits to measured
// runs (Coefficients; defaults 1).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "costmodel/hardware.h"
#include "ir/schedule.h"
#include "workload/workload.h"

namespace cake::costmodel {

enum class Bottleneck { Memory, TensorCore, Compute, Latency, Occupancy, Epilogue, Launch };
std::string_view bottleneckName(Bottleneck b);  // memory-bound, tensor-core-bound, compute-bound, ...
// The Nsight Compute speed-of-light bucket a class falls in: "memory",
// "compute" (tensor-core- and compute-bound) or "latency" (the rest: neither
// unit near its peak). The class follows the speed-of-light definition: a
// unit whose nominal-peak term is >= 60% of the predicted time bounds the
// kernel (memory, tensor cores, CUDA cores); otherwise launch (>= half the
// time), occupancy (CTAs < 60% of the SMs or waves < 60% full), epilogue
// or latency, whichever applies first.
std::string_view solBucket(Bottleneck b);

// Nsight Compute's speed-of-light rule on its two figures (% of peak of the
// SM's busiest pipe and of the busiest memory unit): below 60% on both the
// kernel is latency-bound, else the larger names the bound. The model
// classifies its own predicted percentages with the same rule.
std::string_view solRule(double sm_pct, double mem_pct);

// The terms of the model's max (the main loop's bound) and the additive ones.
const std::vector<std::string>& mainTerms();      // tensor, dram, l2, latency
const std::vector<std::string>& additiveTerms();  // launch, core, epilogue, fill, chain
// `overlap` is subtracted, not added: the CUDA-core work the tensor cores
// hide (min(tensor, overlappable core)); its coefficient is the share hidden.
// combine() never lets the exposed core time go below core - overlap (all of
// the overlappable work hidden) nor below 0.
// The ring's term (`latency`) already includes the consumers' CUDA-core work
// (a station of the ring): `core` adds to every main term but that one.
bool coreInMain(const std::string& main_term);

// What the walk of one CTA found (per CTA unless said otherwise).
struct Facts {
  int threads = 0, smem_bytes = 0, regs_per_thread = 0;
  int64_t ctas = 0;                 // per launch
  int ctas_per_sm = 0;              // occupancy: concurrent CTAs per SM
  std::string occupancy_limit;      // smem | threads | registers | ctas
  int64_t ctas_busiest_sm = 0;      // n: CTAs the busiest SM runs
  int64_t rounds = 0;               // r = ceil(n / concurrent)
  double fill = 0;                  // CTAs / (rounds * SMs * concurrent): wave quantization
  double load_bytes = 0, store_bytes = 0;       // global memory, clipped to the tensors
  double epilogue_store_bytes = 0;
  double mma_flops = 0, mma_instructions = 0;
  std::map<std::string, double> mma_shapes;     // "wgmma.m64n256k16" -> count
  // CUDA-core lane instructions and MUFU ops as the lowering emits them
  // (lowering/lane_count.h: per element of each compute op, a multiply
  // contracted into the add after it, ring-slot arithmetic per thread)
  double fp32_ops = 0, sfu_ops = 0, smem_generic_bytes = 0;
  double epilogue_ops = 0;          // of fp32_ops, those after the main loop
  // of fp32_ops / sfu_ops in the main loop, those that can run while the tensor
  // cores work for the same SM: issued while the instance's own wgmma group is
  // in flight (after mma_commit, before the mma_wait that retires it)
  double fp32_ops_overlapped = 0, sfu_ops_overlapped = 0;
  // some MMA role's instances take turns (an order barrier the role both
  // arrives on and waits on, >= 2 instances: ping-pong); a fact, not overlap
  bool alternating = false;
  double epilogue_load_bytes = 0;   // global reads after the main loop (their latency is on the critical path)
  int64_t pipeline_loads = 0;       // loads through the deepest-used ring
  int stages = 1;                   // that ring's depth
  int64_t waits = 0;                // barrier waits of the busiest role instance
  double dram_bytes = 0, l2_bytes = 0;  // whole launch
  // whole launch, from the first and the last CTA's walks (persistent grids
  // and clipped edge tiles make CTA 0 unrepresentative)
  double total_mma_flops = 0;
  double dram_share = 0;            // unique / L2 bytes: how much of the traffic DRAM serves
  double ring_slots = 0, ring_slots_needed = 0;  // Ring: slots in flight, slots that would cover the latency
  // the dependent chains of the argmin / argmax scans (lowering/reduce_chain.h)
  // of the busiest role instance, in SM clocks at the hardware's dependent-issue
  // latencies: in the main loop (those not issued under an MMA in flight) and
  // after it (round 7)
  double chain_clk = 0, epilogue_chain_clk = 0;
  // per launch: the fill no ring overlaps (the first tile's load from DRAM,
  // its transfer, MMA and CUDA-core work) and one round's epilogue (the
  // drain), ms (round 7)
  double fill_ms = 0;
};

struct Term {
  std::string name;   // tensor | memory | latency | core | epilogue | launch | occupancy
  double ms = 0;      // after the coefficient
  std::string why;    // the facts behind it
};

struct Estimate {
  bool ok = false;
  std::string error;
  double time_ms = 0;
  Bottleneck bottleneck = Bottleneck::Latency;
  std::vector<Term> terms;      // every term, largest first
  std::vector<Term> deciding;   // the two or three that decide the class
  Facts facts;
  // the raw (coefficient 1) values of the fitted terms, for calibration
  std::map<std::string, double> raw;
  // memory, tensor, core: the predicted fraction of each unit's nominal
  // (speed-of-light) peak, as Nsight Compute reports it: work over the
  // predicted time at the sol_* figures of the hardware table
  std::map<std::string, double> utilization;
};

// The free coefficients of the model (one value per term name).
struct Coefficients {
  std::map<std::string, double> c = {{"launch", 1},  {"tensor", 1}, {"dram", 1},     {"l2", 1},
                                     {"latency", 1}, {"core", 1},   {"epilogue", 1}, {"overlap", 0},
                                     {"fill", 0},    {"chain", 0}};
  std::string source = "defaults";
  // a term the map lacks takes its default (a file fitted before the term existed:
  // overlap, fill and chain default to 0, the model the file was fitted with)
  double get(const std::string& k) const;
  nlohmann::json toJson() const;
  static std::optional<Coefficients> fromJson(const nlohmann::json& j, std::string* error = nullptr);
  // The versioned fit for a target (costmodel/coefficients/<target>.json in
  // the source tree, or $CAKE_COST_COEFFICIENTS), else the defaults.
  static Coefficients load(ir::Target t);
};

Estimate estimate(const ir::Schedule& s, const workload::Binding& b, const Hardware& hw, const Coefficients& k);
// Binds the schedule to `shape` first; an unbound schedule gives !ok with the binding's detail.
Estimate estimate(const ir::Schedule& s, const workload::Shape& shape, const std::map<std::string, int64_t>& sets = {},
                  bool coverage = true);

// The pipeline ring of the busiest SM (the `latency` term) as a closed
// queueing network: every slot of every resident CTA's ring is a customer
// that cycles through a pure delay (the load's latency and the barrier
// hand-offs) and through the units that serve one tile at a time (the SM's
// share of the L2 -> SM bandwidth and of DRAM, its tensor cores). Exact
// mean-value analysis (mvaThroughput) gives the tiles per ms for that
// number of slots: with few slots the ring is latency-starved (throughput ~
// slots / cycle), with enough it approaches the busiest unit's rate, never
// quite reaching it (a deeper ring always helps, less and less). A CTA
// with fewer loads than slots keeps only its loads in flight.
struct RingFacts {
  int64_t ctas = 1;          // n: CTAs the busiest SM runs
  int64_t concurrent = 1;    // c: of them resident at a time
  int64_t loads = 0;         // loads through the ring per CTA (0: one load-compute step per CTA)
  int stages = 1;
  double waits_per_load = 0; // barrier round trips on a slot's cycle
  double dram_share = 0;     // of the bytes, the share DRAM serves (the latency moves to the DRAM figure)
  double l2_latency_ns = 0, dram_latency_ns = 0, barrier_rtt_ns = 0;
  // per tile (one load of the ring), at one SM's share of each unit: its
  // L2 -> SM intake, DRAM (the tile's DRAM-served bytes), tensor cores
  double xfer_ms = 0, dram_ms = 0, tensor_ms = 0;
  // per tile, the consumers' CUDA-core work (softmax, distance updates):
  // a station too, the consumer works on one tile at a time
  double core_ms = 0;
};
struct Ring {
  double ms = 0;             // the busiest SM's time through its rings
  double bound_ms = 0;       // the same with unlimited slots: the busiest unit's time
  double delay_ns = 0;       // a slot's pure delay (load latency + hand-offs)
  double slots = 0;          // customers: resident CTAs x slots in use
  double slots_needed = 0;   // slots at which a ring without variance would reach the bound
};
Ring ring(const RingFacts& r);
double ringLatencyMs(const RingFacts& r);  // ring(r).ms

// Throughput (customers / time unit) of a closed network of `customers`
// cycling through a pure delay and single-server stations with the given
// service demands (exact mean-value analysis, Reiser & Lavenberg 1980).
double mvaThroughput(int64_t customers, double delay, const std::vector<double>& demands);

// Recombine raw terms with coefficients: the model's formula, shared by
// estimate() and the calibration.
double combine(const std::map<std::string, double>& raw, const Coefficients& k, std::string* main_term = nullptr);
// The CUDA-core time combine() adds to the main terms: c_core * core less the
// hidden share of `overlap`, never below core - overlap nor below 0.
double exposedCore(const std::map<std::string, double>& raw, const Coefficients& k);
// One CTA's CUDA-core time (s): its lane instructions at the FP32 rate, its
// MUFU ops at the SFU rate and its generic shared-memory bytes, in sequence
// (a consumer warp's softmax is a dependent chain: the exp2 waits for the
// FFMA before it, the row sum for the exp2; docs/costmodel.md "Round 5" for
// the pipes-side-by-side variant and why it was not kept).
double coreSeconds(double lanes, double mufu, double smem_bytes, const Hardware& hw);
// The same work's busiest pipe alone (s): max of the three. The class uses
// it (Nsight Compute's SM % is the busiest pipe's, never a sum of pipes),
// the time uses coreSeconds.
double busiestPipeSeconds(double lanes, double mufu, double smem_bytes, const Hardware& hw);

nlohmann::json toJson(const Estimate& e);

}  // namespace cake::costmodel
