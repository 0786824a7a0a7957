#include "costmodel/hardware.h"

namespace cake::costmodel {

namespace {

// sm_90a: the H200 SXM of this project's device: 132 SMs, 1.98 GHz under
// load (nvidia-smi after a sweep, docs/gpu.md), dense bf16 4096 FLOP/clk/SM
// (989 TFLOP/s at 1.83 GHz on the datasheet; 769-798 measured for cuBLAS
// 8192^3, .library/device/KINDS.md), HBM3e 4.8 TB/s on the datasheet and
// ~4.3 TB/s measured for a device copy. Loaded latencies (docs/costmodel.md):
// a tile from L2 ~400 ns, from DRAM ~1 us, read off the 2- and 3-stage GEMM
// rings of the first sweep (bench/gpu/results/costmodel/2025-first/).
// Speed-of-light peaks: ncu's tensor-pipe % of that sweep implies ~910
// TFLOP/s dense bf16 at 100%, i.e. 4096 FLOP/clk at 1.68 GHz; its memory %
// implies ~15.5 TB/s of L2 -> SM traffic at 100%; DRAM 4.8 TB/s (datasheet).
// Dependent issue: 4 clocks for an FP32 / integer-pipe instruction on its
// predecessor's result, ~24 for a SHFL (published microbenchmarks of Volta to
// Hopper: Jia et al. 2018/2019, Luo et al. 2024; docs/costmodel.md "Round 7").
constexpr Hardware kSm90a{ir::Target::SM90a, "H200 SXM", 132, 1.98, 4096, 128, 16, 4300, 10000, 64, 128,
                          1000, 400, 120, 2.5, 50e6, 1.68, 4800, 15500, 4, 24};
// sm_80: A100 SXM 80 GB (datasheet): 108 SMs, 1.41 GHz, 312 TFLOP/s bf16.
// Not calibrated: the speed-of-light figures are the same datasheet ones.
constexpr Hardware kSm80{ir::Target::SM80, "A100 SXM (datasheet)", 108, 1.41, 2048, 64, 16, 1800, 5000, 64, 128,
                         1000, 400, 150, 2.5, 40e6, 1.41, 2039, 5000, 4, 24};
// sm_100a: B200 (datasheet): 148 SMs, ~1.9 GHz, 2.25 PFLOP/s dense bf16, 8 TB/s.
constexpr Hardware kSm100a{ir::Target::SM100a, "B200 (datasheet)", 148, 1.9, 8192, 128, 16, 7200, 16000, 64, 128,
                           1000, 400, 120, 2.5, 126e6, 1.9, 8000, 16000, 4, 24};

}  // namespace

const Hardware& hardware(ir::Target t) {
  switch (t) {
    case ir::Target::SM80: return kSm80;
    case ir::Target::SM100a: return kSm100a;
    default: return kSm90a;
  }
}

}  // namespace cake::costmodel
