// hardware: the throughput, bandwidth and latency figures the cost model
// prices a schedule with, one row per target. Nominal figures (datasheets,
// and for sm_90a the H200 figures measured on this project's device); the
// calibration (calibrate.h) scales the model's terms, not these numbers.
//
// The limits (shared memory per SM, registers, threads and blocks per SM)
// are not repeated here: the model reads them from the one target table,
// ir/target.h (ir::targetLimits), keyed by the same ir::Target.
#pragma once

#include <string_view>

#include "ir/schedule.h"

namespace cake::costmodel {

struct Hardware {
  ir::Target target = ir::Target::Unspecified;
  std::string_view device;        // the part the row describes
  int sms = 0;
  double clock_ghz = 0;           // SM clock under load
  double tc_flops_per_clk_sm = 0; // dense bf16/f16 tensor-core FLOP per clock per SM
  double fp32_per_clk_sm = 0;     // FP32 lanes (FFMA = 1 op here) per clock per SM
  double sfu_per_clk_sm = 0;      // MUFU (exp2, rcp, rsqrt) per clock per SM
  double dram_gbps = 0;           // achievable DRAM bandwidth (GB/s)
  double l2_gbps = 0;             // L2 -> SM aggregate bandwidth (GB/s)
  double sm_load_bytes_per_clk = 0; // what one SM can take in from L2 per clock
  double smem_bytes_per_clk_sm = 0; // shared-memory bandwidth per SM per clock
  double mem_latency_ns = 0;      // a TMA / cp.async tile from DRAM, loaded GPU
  double l2_latency_ns = 0;       // the same tile when L2 holds it
  double barrier_rtt_ns = 0;      // an mbarrier arrive -> wait round trip
  double launch_us = 0;           // a launch's fixed cost inside the CUPTI duration
  double l2_bytes = 0;
  // Nominal peaks as Nsight Compute's speed of light divides by (the time
  // terms above use achievable rates): the SM clock ncu's cycles run at
  // under load, and the DRAM and L2 bandwidth at 100%.
  double sol_clock_ghz = 0;
  double sol_dram_gbps = 0;
  double sol_l2_gbps = 0;
  // Dependent-issue latencies (round 7): an FP32 / integer-pipe instruction
  // whose operand the previous one writes, and a warp shuffle (SHFL) round
  // trip, in SM clocks; the dependent chain of a reduction's scan is priced
  // with them (lowering/reduce_chain.h).
  double alu_latency_clk = 0;
  double shfl_latency_clk = 0;
};

// The row for a target (sm_90a for Unspecified).
const Hardware& hardware(ir::Target t);

}  // namespace cake::costmodel
