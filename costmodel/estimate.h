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
//   time    = launches * (c_launch * launch + main + c_core * core + c_epi * epilogue)
// tensor  = n * FLOP(CTA) / tensor-core rate
// dram    = unique bytes / DRAM bandwidth
// l2      = max(L2 -> SM bytes / L2 bandwidth, n * bytes(CTA) / per-SM rate)
// latency = the ring's cycle: a slot is refilled only after the consumer is
//           done with it, so S slots turn over once per (load latency +
//           transfer + compute + barrier hand-off):
//           (r * (loads * L + waits * round trip) + tensor + max(dram, l2)) / min(S, loads)
//           with L the L2 hit latency, moving to the DRAM latency with the
//           share of the bytes that come from DRAM (unique / L2 bytes)
// core    = n * (FP32 element ops / FP32 rate + MUFU ops / SFU rate + generic smem bytes / smem rate)
// epilogue= r * (epilogue store bytes / per-SM rate + load latency + epilogue element ops / FP32 rate)
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
const std::vector<std::string>& additiveTerms();  // launch, core, epilogue

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
  double fp32_ops = 0, sfu_ops = 0, smem_generic_bytes = 0;
  double epilogue_ops = 0;
  int64_t pipeline_loads = 0;       // loads through the deepest-used ring
  int stages = 1;                   // that ring's depth
  int64_t waits = 0;                // barrier waits of the busiest role instance
  double dram_bytes = 0, l2_bytes = 0;  // whole launch
  // whole launch, from the first and the last CTA's walks (persistent grids
  // and clipped edge tiles make CTA 0 unrepresentative)
  double total_mma_flops = 0;
  double dram_share = 0;            // unique / L2 bytes: how much of the traffic DRAM serves
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
  std::map<std::string, double> c = {{"launch", 1}, {"tensor", 1},   {"dram", 1}, {"l2", 1},
                                     {"latency", 1}, {"core", 1}, {"epilogue", 1}};
  std::string source = "defaults";
  double get(const std::string& k) const {
    auto it = c.find(k);
    return it == c.end() ? 1.0 : it->second;
  }
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

// The pipeline ring's time for the busiest SM (the `latency` term, ms): a
// slot is refilled only after its consumer is done with it, so the ring's
// `stages` slots (at most `loads` of them in use) turn over once per load
// latency + transfer + compute + barrier hand-off. The load latency moves
// from the L2 hit latency to the DRAM latency with the share of the bytes
// DRAM serves.
struct RingFacts {
  int64_t rounds = 1, loads = 0;
  int stages = 1;
  int64_t waits = 0;
  double dram_share = 0;
  double l2_latency_ns = 0, dram_latency_ns = 0, barrier_rtt_ns = 0;
  double tensor_ms = 0, transfer_ms = 0;  // the busiest SM's compute and the memory system's transfer time
};
double ringLatencyMs(const RingFacts& r);

// Recombine raw terms with coefficients: the model's formula, shared by
// estimate() and the calibration.
double combine(const std::map<std::string, double>& raw, const Coefficients& k, std::string* main_term = nullptr);

nlohmann::json toJson(const Estimate& e);

}  // namespace cake::costmodel
