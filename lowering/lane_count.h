// lane_count: how many lane instructions the lowered code issues for one
// element of a compute op (fill, copy, unary, binary, reduce) and for one
// use of a ring slot, as this lowering writes it (emit_compute.cpp,
// emit_sync.cpp, prelude.cpp) and ptxas compiles it for sm_90a. The cost
// model's CUDA-core term counts with it instead of one op per IR element,
// so it sees what the lowering's second pass changed: exp2 as one MUFU.EX2
// (ex2.approx.ftz), float -> bf16 / f16 register copies converted in pairs
// (one F2FP for two elements), a multiply contracted into the add or
// subtract that follows it (one FFMA), the argmin scan's compare and two
// selects, and the multiply-high a ring of a non-power-of-two depth costs
// on every slot index.
//
// The counts are per element of the op's largest operand (the reduced
// source for a reduction) and per issuing lane: the lowering gives every
// element one lane. Read off the SASS of lowered kernels (docs/costmodel.md,
// "Counting lowered instructions"); the pairing rule is the emitter's own
// (convertsInPairs is what emitElementwise tests).
#pragma once

#include "ir/schedule.h"

namespace cake::lowering {

struct LaneCount {
  double alu = 0;   // FP32 / integer pipe (FFMA, FMNMX, FSEL, F2FP, IMAD, MOV ...)
  double mufu = 0;  // special-function unit (MUFU.EX2, RCP, RSQ)
};

// A register copy computed in float into a bf16 / f16 fragment converts two
// elements of a row with one cvt.rn.{bf16,f16}x2.f32 (cake_cvt2): the
// emitter's test for its paired conversions (emitElementwise, cvtPairs).
bool convertsInPairs(ir::DType to);

// Lane instructions per element of a compute op (zero for other ops).
// `s` names the operands' types (views, fragments, tensors).
LaneCount elementLanes(const ir::Schedule& s, const ir::Op& op);

// Whether `mul`'s product is contracted into `next` (one FFMA): `next` is an
// add or subtract, right after the multiply in the same role body, that
// reads the product the multiply wrote and overwrites it (the product has no
// other reader). nvcc contracts a*b + c by default (-fmad=true); the
// element loops of the two ops are unrolled over the same registers.
bool contractsInto(const ir::Op& mul, const ir::Op& next);

// Lane instructions of one ring-slot index (slot = iter % S, and the phase
// bit iter / S for a wait) in the lowered code: a mask (and a shift) when S
// is a power of two, a multiply-high, shift and multiply-subtract otherwise
// (cake_slot / cake_parity of prelude.cpp).
double slotLanes(int stages, bool parity);

}  // namespace cake::lowering
