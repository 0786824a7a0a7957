// The rule table of the layout and hardware-contract gates.
#include "checks/layout.h"
#include "checks/layout_internal.h"

namespace cake::checks {

using ir::Category;
using ir::RuleInfo;
using ir::Severity;

static const RuleInfo kLayoutRules[] = {
    // ---- shared memory
    {"layout.view-outside-pool", Severity::Error, Category::HardwareConformance,
     "a shared-memory view does not fit inside its pool",
     "Every slot of a view must lie inside the pool it is carved from: 0 <= offset and "
     "offset + stages * slot_bytes <= pool bytes, where slot_bytes = product(shape) * "
     "sizeof(dtype). With symbolic shapes the inequality must hold for every parameter "
     "value the schedule's lm.assume facts allow; otherwise the finding gives parameter "
     "values for which the view runs past the pool (or an offset is negative)."},
    {"layout.smem-limit", Severity::Error, Category::HardwareConformance,
     "shared memory exceeds the target's per-block limit",
     "The block's shared memory is every pool (placed in declaration order, each base "
     "aligned to the strictest alignment of its views) followed by the mbarriers (8 bytes "
     "per slot, 8-byte aligned). It must not exceed the opt-in per-block limit of the "
     "target: 166912 bytes (163 KiB) on sm_80, 232448 bytes (227 KiB) on sm_90a and "
     "sm_100a. Proved for every allowed parameter value, or a counterexample."},
    {"layout.misaligned", Severity::Error, Category::HardwareConformance,
     "a shared-memory slot or sub-tile is not aligned as its users need",
     "Every slot of a view starts at offset + i * slot_bytes. It must be 16-byte aligned "
     "(vector and ldmatrix/st.shared accesses, MMA descriptors), 128-byte aligned when a "
     "TMA copy reads or writes it, and aligned to the swizzle atom of a swizzled view "
     "(1024 bytes for 128B, 512 for 64B, 256 for 32B: eight rows of the swizzle span), "
     "because the swizzle pattern is a function of the address bits. A row slice "
     "view[e][r0:r1, ...] used as an operand must start at the same alignment. Pools "
     "start at an address aligned to the strictest alignment of their views."},
    {"layout.overlap", Severity::Note, Category::ScheduleSemantics,
     "two views share bytes of a pool",
     "Two views of one pool whose byte ranges can intersect (for some allowed parameter "
     "values). This is not an error: placing an epilogue buffer over a drained mainloop "
     "ring is a deliberate reuse. The note tells the race checker (sync.race) that "
     "accesses to the two views touch the same bytes; it proves that no two uses of the "
     "shared bytes are unordered."},
    {"layout.assume-contradiction", Severity::Error, Category::ScheduleSemantics,
     "the schedule's lm.assume facts contradict each other",
     "No parameter values satisfy every lm.assume of the schedule. Every symbolic check "
     "would then hold vacuously and the model checker has no values to run, so nothing "
     "about the schedule is checked: an error. Assumptions the solver cannot settle make "
     "the verdict unknown (exit 2)."},
    // ---- TMA
    {"tma.box-extent", Severity::Error, Category::HardwareConformance,
     "a TMA box dimension is outside 1..256, or the box has more dimensions than the tensor",
     "A TMA copy moves one box, the shape of the view slot it fills or drains. Each box "
     "dimension must be between 1 and 256 elements (cuTensorMapEncodeTiled's boxDim), and "
     "the box cannot have more dimensions than the tensor (LM.tmaNd) it addresses."},
    {"tma.inner-bytes", Severity::Error, Category::HardwareConformance,
     "the innermost TMA box dimension is not a multiple of 16 bytes",
     "The innermost box dimension times the element size must be a multiple of 16 bytes "
     "(boxDim[0] * elementSize % 16 == 0)."},
    {"tma.swizzle-span", Severity::Error, Category::HardwareConformance,
     "the innermost TMA box row is wider than the swizzle span",
     "With a swizzled view the innermost box dimension in bytes must not exceed the "
     "swizzle span: 32, 64 or 128 bytes for 32B, 64B and 128B swizzle."},
    {"tma.dtype", Severity::Error, Category::HardwareConformance,
     "a TMA copy's element type is not one the tensor (or the copy engine) takes",
     "A tensor parameter has one descriptor, so every TMA copy through it must use the "
     "same element type (the element type follows from the views that use it); and the "
     "element type must be one the copy engine supports."},
    // ---- MMA
    {"mma.shape-mismatch", Severity::Error, Category::HardwareConformance,
     "MMA operand shapes do not agree",
     "lm.mma(acc, a, b) computes acc[M,N] (+)= a[M,K] * b[N,K]^T: the operands must be "
     "two-dimensional, a's rows equal acc's rows (M), b's rows equal acc's columns (N), "
     "and a and b have the same K. Slices count: a[e][r0:r1, :] has r1 - r0 rows."},
    {"mma.no-instruction", Severity::Error, Category::HardwareConformance,
     "no MMA instruction of the target tiles this shape",
     "sm_80 (mma.sync m16n8kK): M % 16 == 0, N % 8 == 0, K a multiple of 16 (bf16/f16), 8 "
     "(tf32) or 32 (int8). sm_90a (wgmma m64nNkK issued by one warpgroup): M % 64 == 0, N "
     "a multiple of 8 in 8..256, K a multiple of 16 (bf16/f16), 8 (tf32) or 32 "
     "(fp8/int8). sm_100a (tcgen05.mma, cta_group::1): M 64 or 128 (256 with a CTA pair), N "
     "a multiple of 8 (M=64) or 16 (M>=128) in 8..256, same K steps as sm_90a."},
    {"mma.dtype", Severity::Error, Category::HardwareConformance,
     "the target's tensor cores do not take this combination of element types",
     "a and b must have the same type (fp8 may mix e4m3 and e5m2); bf16 accumulates into "
     "f32; f16 into f16 or f32; f32 (tf32) into f32; int8 into i32; fp8 (sm_90a and "
     "sm_100a only) into f16 or f32."},
    {"mma.operand-location", Severity::Error, Category::HardwareConformance,
     "an MMA operand lives where the target's instruction cannot read it",
     "sm_80: a and b in shared memory (ldmatrix) or registers, acc in registers. sm_90a "
     "(wgmma): a in registers or shared memory, b in shared memory, acc in registers. "
     "sm_100a (tcgen05): a in shared memory or TMEM, b in shared memory, acc in TMEM."},
    {"mma.swizzle", Severity::Error, Category::HardwareConformance,
     "a shared-memory MMA operand's swizzle cannot be described by the descriptor",
     "On sm_90a and sm_100a a shared-memory operand is read through a matrix descriptor "
     "whose swizzled layouts (32B, 64B, 128B) are K-major atoms of eight rows of exactly "
     "the swizzle span: a swizzled operand's rows must be exactly that many bytes. "
     "(Unswizzled operands use the interleaved core-matrix layout, which lowering lays "
     "out.) On sm_80 operand rows must be a multiple of 16 bytes for ldmatrix."},
    {"mma.warpgroup", Severity::Error, Category::HardwareConformance,
     "a wgmma is issued by a role instance that is not one aligned warpgroup",
     "On sm_90a, wgmma is a warpgroup instruction: the role instance that issues lm.mma "
     "must be exactly 4 warps w, w+1, w+2, w+3 with w a multiple of 4 (use group=4 to make "
     "each warpgroup of a larger role an instance)."},
    // ---- TMEM
    {"tmem.out-of-range", Severity::Error, Category::HardwareConformance,
     "a TMEM region lies outside the 512 columns (or 128 lanes)",
     "Tensor memory has 128 lanes of 512 32-bit columns per SM. A region [cols, cols + "
     "width) must satisfy 0 <= cols and cols + width <= 512, and its shape must not have "
     "more than 128 rows (lanes)."},
    {"tmem.overlap", Severity::Error, Category::HardwareConformance,
     "two TMEM regions share columns",
     "TMEM regions are allocated and addressed by column; two regions whose column ranges "
     "intersect (for some allowed parameter values) would overwrite each other's "
     "accumulators."},
    {"tmem.width", Severity::Error, Category::HardwareConformance,
     "a TMEM region's width cannot be allocated, or is too narrow for its shape",
     "tcgen05.alloc allocates a power of 2 of at least 32 columns, so each region's width "
     "must be one (32, 64, 128, 256 or 512). The region must also hold its shape: "
     "shape[-1] * sizeof(dtype) / 4 columns."},
    {"tmem.reader", Severity::Error, Category::HardwareConformance,
     "a TMEM access is issued by warps that cannot reach its lanes",
     "tcgen05.ld/st: warp w reaches only TMEM lanes 32*(w%4) .. 32*(w%4)+31. The role "
     "instance that copies between TMEM and registers must have a warp for every lane "
     "quarter of the rows it accesses; for all 128 lanes, a warpgroup."},
    // ---- roles and registers
    {"roles.warp-overlap", Severity::Error, Category::HardwareConformance,
     "a warp belongs to two roles",
     "Each warp runs exactly one role's body: the warp lists of the roles must be "
     "disjoint, and a role must not list a warp twice."},
    {"roles.too-many-warps", Severity::Error, Category::HardwareConformance,
     "the block has more warps than the hardware (32) or the schedule declares",
     "A block has at most 1024 threads (32 warps); roles must use warps below the "
     "decorator's warps= when it is given."},
    {"roles.group", Severity::Error, Category::HardwareConformance,
     "a role's group= does not divide its warps",
     "With group=g a role's warps form consecutive groups of g warps, one instance each: g "
     "must be positive and divide the number of warps."},
    {"regs.setmaxnreg", Severity::Error, Category::HardwareConformance,
     "an invalid setmaxnreg budget",
     "regs= lowers to setmaxnreg, which takes a per-thread count that is a multiple of 8 "
     "in 24..256, and which every warp of a warpgroup must execute with the same count: "
     "warps of one aligned warpgroup must not have different budgets (or a budget and "
     "none)."},
    {"regs.budget", Severity::Error, Category::HardwareConformance,
     "the roles' register budgets exceed the register file",
     "The kernel is launched with R registers per thread, R = the largest multiple of 8 "
     "not above min(255, 65536 / threads). setmaxnreg moves registers between warpgroups "
     "of the block, so the budgets must add up to at most R * threads (<= 65536): the sum "
     "over warps of 32 * regs (R for a warp without regs=)."},
    {"regs.fragment", Severity::Error, Category::HardwareConformance,
     "a role's register fragments do not fit its per-thread budget",
     "A register fragment is private to each instance that touches it and spread over "
     "the instance's threads: ceil(elements * sizeof(dtype) / 4 / threads) registers per "
     "thread. The fragments a role touches must fit its per-thread budget (regs=, or the "
     "launch budget R, at most 255)."},
    // ---- targets
    {"target.feature", Severity::Error, Category::HardwareConformance,
     "a feature of another GPU generation",
     "The target is an exact match: TMA (tma_load/tma_store), expect_tx, fence_proxy, "
     "setmaxnreg (regs=) and clusters need sm_90a or sm_100a; wgmma's mma_wait is sm_90a "
     "only; TMEM, tcgen05 MMA commits to a barrier are sm_100a only; mma_commit has no "
     "meaning on sm_80 (mma.sync is synchronous). The finding names the target(s) that "
     "have the feature."},
    {"target.unspecified", Severity::Note, Category::Hint,
     "no target: target-specific gates were skipped",
     "Neither the decorator (target=) nor the command line (--target) names a target, so "
     "the gates that depend on one (features, shared-memory limit, MMA instruction, dtype, "
     "operand location, swizzle and warpgroup rules) were not run."},
    {"report.resources", Severity::Remark, Category::PerformanceReport,
     "resource report",
     "Shared memory by pool, view and barrier, registers per role, TMEM columns and "
     "blocks per SM (with the limiting resource), as JSON in the finding's data and in the "
     "check result's resources. Not a gate. See docs/resource-report.md."},
};

// sync.tx-imbalance is the model checker's rule; the gates report the
// static case (explicit expect_tx vs. the bytes of the boxes aimed at the
// same slot and phase) under the same id, and the driver dedupes.
static const RuleInfo kTxImbalance = {
    "sync.tx-imbalance", Severity::Error, Category::DataConsistency,
    "transaction bytes of a barrier phase never balance",
    "An explicit lm.expect_tx announces a byte count that differs from the bytes of the "
    "TMA boxes that complete on the same barrier slot and phase, so the phase never "
    "completes (too many bytes expected) or the transaction count goes negative (too "
    "few)."};

std::span<const RuleInfo> layoutRules() { return kLayoutRules; }

const RuleInfo& layoutRule(std::string_view id) {
  if (id == kTxImbalance.id) return kTxImbalance;
  const RuleInfo* r = ir::findRule(kLayoutRules, id);
  if (!r) throw std::logic_error("unknown layout rule " + std::string(id));
  return *r;
}

}  // namespace cake::checks
