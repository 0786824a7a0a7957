// Stage 3, host code of a lowered file: tensor maps, extents, grid, launch,
// and the exported ABI (abi/cake_abi.h). See emit.h and docs/gpu.md.
#include "ir/target.h"
#include "lowering/emit.h"

#include "ir/pdl.h"

namespace cake::lowering::detail {

namespace {
const char* tmapType(ir::DType d) {
  switch (d) {
    case ir::DType::F16: return "CU_TENSOR_MAP_DATA_TYPE_FLOAT16";
    case ir::DType::F32: return "CU_TENSOR_MAP_DATA_TYPE_FLOAT32";
    case ir::DType::I32: return "CU_TENSOR_MAP_DATA_TYPE_INT32";
    case ir::DType::I8:
    case ir::DType::E4M3:
    case ir::DType::E5M2: return "CU_TENSOR_MAP_DATA_TYPE_UINT8";
    default: return "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16";
  }
}
const char* tmapSwizzle(ir::Swizzle s) {
  switch (s) {
    case ir::Swizzle::B128: return "CU_TENSOR_MAP_SWIZZLE_128B";
    case ir::Swizzle::B64: return "CU_TENSOR_MAP_SWIZZLE_64B";
    case ir::Swizzle::B32: return "CU_TENSOR_MAP_SWIZZLE_32B";
    default: return "CU_TENSOR_MAP_SWIZZLE_NONE";
  }
}
}  // namespace

// A persistent clustered grid must fit on the GPU at once: clusters are
// placed whole inside one GPC, so #SMs / cluster size clusters may not all be
// resident (a GPC with an odd number of free SMs leaves one idle), and a
// cluster that does not fit runs as a second wave after a whole mainloop.
// The grid is capped at the driver's count of co-resident clusters (the
// cluster shape comes from __cluster_dims__), once per process like the
// smem attribute; the schedule strides by lm.grid_dim(0), so any grid that
// is a multiple of the cluster is correct.
void Emitter::emitClusterResidency() {
  const int per_x = s_.cluster[0];
  line("static int cake_max_clusters = -1;");
  open("if (cake_max_clusters < 0)");
  line("cudaLaunchConfig_t cake_occ = {};");
  line(fmt::format("cake_occ.gridDim = dim3(cake_num_sms, {}, {});", s_.cluster[1], s_.cluster[2]));
  line(fmt::format("cake_occ.blockDim = dim3({});", plan_.threads_));
  line("cake_occ.dynamicSmemBytes = cake_smem_bytes;");
  line(fmt::format("if (cudaOccupancyMaxActiveClusters(&cake_max_clusters, {}, &cake_occ) != cudaSuccess) {{",
                   plan_.kernelName()));
  line("  (void)cudaGetLastError();  // not fatal: keep the #SMs grid");
  line("  cake_max_clusters = 0;");
  line("}");
  close();
  line(fmt::format("if (cake_max_clusters > 0) cake_num_sms = cake_min(cake_num_sms, cake_max_clusters * {});", per_x));
}

// An sm_80 persistent grid fills every resident CTA slot: #SMs times the
// CTAs per SM the driver finds for the kernel's registers and shared memory
// (sm_80 tiles are sized for 2 CTAs per SM: a grid of #SMs would leave half
// of each SM's warps unused). Once per process, after the smem attribute;
// the schedule strides by lm.grid_dim(0), so any grid is correct. sm_90a and
// sm_100a persistent schedules are written for one CTA per SM and keep #SMs.
void Emitter::emitPersistentResidency() {
  line("static int cake_ctas_per_sm = -1;");
  open("if (cake_ctas_per_sm < 0)");
  line(fmt::format("if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&cake_ctas_per_sm, {}, {}, cake_smem_bytes) != "
                   "cudaSuccess) {{",
                   plan_.kernelName(), plan_.threads_));
  line("  (void)cudaGetLastError();  // not fatal: keep the #SMs grid");
  line("  cake_ctas_per_sm = 1;");
  line("}");
  line("if (cake_ctas_per_sm < 1) cake_ctas_per_sm = 1;");
  close();
  line("cake_num_sms *= cake_ctas_per_sm;  // one CTA per resident slot");
}

void Emitter::emitHost() {
  line("");
  line("// ---- host: tensor maps, extents, grid, launch ------------------------------");
  comment("cake_t: the tensor parameters in order; cake_i32 / cake_f32v: the i32 / f32 parameters in order;");
  comment("cake_grid_in: a grid to use instead of the derived one (null or {0,..}: derived)");
  open("static int cake_launch_impl(const CakeTensorArg* cake_t, const int* cake_i32, const float* cake_f32v, "
       "const unsigned* cake_grid_in, cudaStream_t cake_stream)");
  line("(void)cake_t; (void)cake_i32; (void)cake_f32v;");
  std::vector<int> tensorIndex(s_.params.size(), -1);
  int nt = 0, ni = 0, nf = 0;
  for (size_t i = 0; i < s_.params.size(); ++i) {
    const auto& p = s_.params[i];
    const int pi = static_cast<int>(i);
    if (ir::isTensorParam(p.type)) {
      tensorIndex[i] = nt++;
    } else if (p.type == ir::ParamType::I32) {
      line(fmt::format("const int {} = cake_i32[{}];", plan_.paramName(pi), ni++));
      line(fmt::format("(void){};", plan_.paramName(pi)));
      if (auto it = plan_.spec_.find(pi); it != plan_.spec_.end())
        line(fmt::format("if ({} != {}) return cudaErrorInvalidValue;  // the kernel is specialised for {} = {}",
                         plan_.paramName(pi), it->second, sanitizeComment(p.name), it->second));
    } else {
      line(fmt::format("const float {} = cake_f32v[{}];", plan_.paramName(pi), nf++));
      line(fmt::format("(void){};", plan_.paramName(pi)));
    }
  }
  for (size_t i = 0; i < s_.params.size(); ++i) {
    if (tensorIndex[i] < 0 || plan_.tensors_[i].rank == 0) continue;
    line(fmt::format("if (cake_t[{0}].rank != {1} || cake_t[{0}].strides[{2}] != 1) return cudaErrorInvalidValue;  "
                     "// {3}: rank {1}, innermost dimension contiguous",
                     tensorIndex[i], plan_.tensors_[i].rank, plan_.tensors_[i].rank - 1, sanitizeComment(s_.params[i].name)));
  }
  for (const auto& a : s_.assumes) {
    bool hostable = !ir::exprUses(*a.cond, {ExprKind::LoopVar, ExprKind::BlockIdx, ExprKind::GridDim, ExprKind::Instance});
    if (hostable)
      line(fmt::format("if (!({})) return cudaErrorInvalidValue;  // lm.assume({})", plan_.expr(a.cond, true),
                       plan_.pyText(a.cond)));
  }
  // tensor maps: box = one slot of the view
  for (const auto& [tp, tv] : plan_.tmaps_) {
    const auto& view = s_.views[tv];
    const int rank = std::max(1, plan_.tensors_[tp].rank);
    const auto box = plan_.tmaBox(tv, rank);
    line(fmt::format("CUtensorMap {};  // {}: box {} = one slot of '{}'", plan_.tmapName(tp, tv),
                     sanitizeComment(s_.params[tp].name), fmt::join(box, "x"), sanitizeComment(view.name)));
    line(fmt::format("const int cake_box_{}_{}[{}] = {{{}}};", plan_.paramName(tp), plan_.viewName(tv), rank, fmt::join(box, ", ")));
    line(fmt::format("if (int e = cake_encode(&{}, {}, {}, cake_t[{}], cake_box_{}_{}, {})) return e;", plan_.tmapName(tp, tv),
                     tmapType(view.dtype), ir::dtypeBytes(view.dtype), tensorIndex[tp], plan_.paramName(tp), plan_.viewName(tv),
                     plan_.viewBlock_[tv] ? (plan_.viewBlock_[tv] == 128 ? "CU_TENSOR_MAP_SWIZZLE_128B" : plan_.viewBlock_[tv] == 64 ? "CU_TENSOR_MAP_SWIZZLE_64B" : "CU_TENSOR_MAP_SWIZZLE_32B") : tmapSwizzle(view.swizzle)));
  }
  // extents of the tensors addressed element-wise
  for (size_t i = 0; i < s_.params.size(); ++i) {
    if (tensorIndex[i] < 0 || !plan_.tensors_[i].ptr) continue;
    const int rank = std::max(1, plan_.tensors_[i].rank);
    const std::string pn = plan_.paramName(static_cast<int>(i));
    line(fmt::format("cake_ext<{}> cake_ext_{};", rank, pn));
    line(fmt::format("for (int d = 0; d < {}; ++d) cake_ext_{}.d[d] = cake_t[{}].dims[d], cake_ext_{}.s[d] = "
                     "cake_t[{}].strides[d];",
                     rank, pn, tensorIndex[i], pn, tensorIndex[i]));
    line(fmt::format("if (reinterpret_cast<uintptr_t>(cake_t[{}].data) % 16) return cudaErrorInvalidValue;  // "
                     "cp.async / vector accesses",
                     tensorIndex[i]));
  }
  line(fmt::format("const int cake_smem_bytes = {};", ir::requestedSmemBytes(plan_.smemUsed_)));
  line("static bool cake_attr = false;");
  open("if (!cake_attr)");
  line(fmt::format("cudaError_t e = cudaFuncSetAttribute({}, cudaFuncAttributeMaxDynamicSharedMemorySize, "
                   "cake_smem_bytes);",
                   plan_.kernelName()));
  line("if (e != cudaSuccess) return e;");
  line("cake_attr = true;");
  close();
  if (plan_.persistent_) {
    line("int cake_dev = 0, cake_num_sms = 0;");
    line("cudaGetDevice(&cake_dev);");
    line("cudaDeviceGetAttribute(&cake_num_sms, cudaDevAttrMultiProcessorCount, cake_dev);");
    comment("persistent: the schedule strides over its tiles by lm.grid_dim(0)");
    if (s_.cluster[0] > 1) line(fmt::format("cake_num_sms = cake_max(cake_num_sms / {0} * {0}, {0});", s_.cluster[0]));
    if (s_.cluster[0] * s_.cluster[1] * s_.cluster[2] > 1) emitClusterResidency();
    else if (plan_.target_ == ir::Target::SM80) emitPersistentResidency();
  }
  if (plan_.gridDerived_) {
    line(fmt::format("dim3 cake_grid({}, {}, {});", plan_.gridHost_[0], plan_.gridHost_[1], plan_.gridHost_[2]));
    line("if (cake_grid_in && cake_grid_in[0]) cake_grid = dim3(cake_grid_in[0], cake_max(1, cake_grid_in[1]), "
         "cake_max(1, cake_grid_in[2]));");
  } else {
    comment("no store to an output tensor moves with lm.block_idx: the caller gives the grid");
    line("if (!cake_grid_in || !cake_grid_in[0]) return cudaErrorInvalidConfiguration;");
    line("dim3 cake_grid(cake_grid_in[0], cake_max(1, cake_grid_in[1]), cake_max(1, cake_grid_in[2]));");
  }
  for (int d = 0; d < 3; ++d)
    if (s_.cluster[d] > 1)
      line(fmt::format("cake_grid.{0} = (cake_grid.{0} + {1} - 1) / {1} * {1};  // a multiple of cluster dim {2}",
                       "xyz"[d], s_.cluster[d], d));
  std::vector<std::string> args;
  for (size_t i = 0; i < s_.params.size(); ++i) {
    const int pi = static_cast<int>(i);
    const auto& p = s_.params[i];
    if (ir::isTensorParam(p.type)) {
      for (const auto& [tp, tv] : plan_.tmaps_)
        if (tp == pi) args.push_back(plan_.tmapName(tp, tv));
      if (plan_.tensors_[i].ptr) {
        args.push_back(fmt::format("static_cast<{}*>(cake_t[{}].data)", cType(plan_.tensors_[i].dtype), tensorIndex[i]));
        args.push_back("cake_ext_" + plan_.paramName(pi));
      }
    } else {
      args.push_back(plan_.paramName(pi));
    }
  }
  if (ir::launchesWithPdl(s_)) {
    // programmatic dependent launch: the grid may start while the preceding
    // one in the stream runs; lm.grid_dep_wait() orders what depends on it
    line("cudaLaunchConfig_t cake_cfg = {};");
    line("cake_cfg.gridDim = cake_grid;");
    line(fmt::format("cake_cfg.blockDim = dim3({});", plan_.threads_));
    line("cake_cfg.dynamicSmemBytes = cake_smem_bytes;");
    line("cake_cfg.stream = cake_stream;");
    line("cudaLaunchAttribute cake_pdl_attr[1];");
    line("cake_pdl_attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;");
    comment("CAKE_PDL=0 in the environment launches it in plain stream order (for comparisons)");
    line("static const bool cake_pdl = [] { const char* e = getenv(\"CAKE_PDL\"); return !e || e[0] != '0'; }();");
    line("cake_pdl_attr[0].val.programmaticStreamSerializationAllowed = cake_pdl ? 1 : 0;");
    line("cake_cfg.attrs = cake_pdl_attr;");
    line("cake_cfg.numAttrs = 1;");
    line(fmt::format("const cudaError_t cake_err = cudaLaunchKernelEx(&cake_cfg, {}{}", plan_.kernelName(),
                     args.empty() ? ");" : ","));
    for (size_t i = 0; i < args.size(); ++i) line("    " + args[i] + (i + 1 < args.size() ? "," : ");"));
    line("if (cake_err != cudaSuccess) return cake_err;");
  } else {
    line(fmt::format("{}<<<cake_grid, {}, cake_smem_bytes, cake_stream>>>(", plan_.kernelName(), plan_.threads_));
    for (size_t i = 0; i < args.size(); ++i) line("    " + args[i] + (i + 1 < args.size() ? "," : ");"));
    if (args.empty()) line("    );");
  }
  line("return cudaGetLastError();");
  close();
  line("");

  // ---- the exported ABI
  const bool exported = opts_.namespace_name.empty();
  const std::string ext = exported ? "extern \"C\" " : "";
  line(fmt::format("{}int cake_abi_version(void) {{ return CAKE_ABI_VERSION; }}", ext));
  line("");
  open(fmt::format("{}void cake_kernel_info(CakeKernelInfo* info)", ext));
  line(fmt::format("info->name = \"{}\";", sanitizeIdent(s_.name)));
  line(fmt::format("info->target = \"{}\";", ir::targetName(plan_.target_)));
  line("info->block_m = info->block_n = info->block_k = 0;");
  int stages = 1;
  for (const auto& v : s_.views) stages = std::max(stages, v.stages);
  line(fmt::format("info->stages = {};", stages));
  comment("16-byte row strides for TMA / cp.async and paired stores");
  line("info->m_multiple = 1;");
  line("info->n_multiple = 8;");
  line("info->k_multiple = 8;");
  close();
  line("");
  comment(fmt::format("generic launch: {} tensor(s), {} i32, {} f32 parameter(s), in the schedule's order", nt, ni, nf));
  open(fmt::format("{}int cake_launch(const CakeLaunchArgs* a, void* stream)", ext));
  line(fmt::format("if (!a || a->num_tensors != {} || a->num_i32 != {} || a->num_f32 != {}) return cudaErrorInvalidValue;",
                   nt, ni, nf));
  line("return cake_launch_impl(a->tensors, a->i32, a->f32, a->grid, static_cast<cudaStream_t>(stream));");
  close();
  if (plan_.gemm_) {
    line("");
    comment("GEMM: the tensor parameters are A [M, K], B [N, K], C [M, N]; i32 parameters M, N, K get the sizes");
    open(fmt::format("{}int cake_gemm_launch(const CakeGemmArgs* g, void* stream)", ext));
    line("CakeTensorArg t[3] = {};");
    line("t[0].data = const_cast<void*>(g->A); t[0].rank = 2; t[0].dims[0] = g->M; t[0].dims[1] = g->K;");
    line("t[0].strides[0] = g->lda; t[0].strides[1] = 1;");
    line("t[1].data = const_cast<void*>(g->B); t[1].rank = 2; t[1].dims[0] = g->N; t[1].dims[1] = g->K;");
    line("t[1].strides[0] = g->ldb; t[1].strides[1] = 1;");
    line("t[2].data = g->C; t[2].rank = 2; t[2].dims[0] = g->M; t[2].dims[1] = g->N;");
    line("t[2].strides[0] = g->ldc; t[2].strides[1] = 1;");
    std::vector<std::string> iv;
    for (const auto& p : s_.params)
      if (p.type == ir::ParamType::I32) iv.push_back(p.name == "M" ? "g->M" : p.name == "N" ? "g->N" : "g->K");
    if (iv.empty()) iv.push_back("0");
    line(fmt::format("const int i32[{}] = {{{}}};", iv.size(), fmt::join(iv, ", ")));
    line("return cake_launch_impl(t, i32, nullptr, nullptr, static_cast<cudaStream_t>(stream));");
    close();
  }
}

}  // namespace cake::lowering::detail
