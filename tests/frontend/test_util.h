// Helpers shared by the front-end tests.
#pragma once

#include "tests/common/build_paths.h"
#include <filesystem>
#include <optional>
#include <fstream>
#include <sstream>
#include <string>

#include "ir/ast.h"
#include "ir/frontend.h"

namespace cake::ir::test {

inline SourceFilePtr src(std::string text, std::string name = "test.cake") {
  auto f = std::make_shared<SourceFile>();
  f->name = std::move(name);
  f->text = std::move(text);
  return f;
}

// Compiles `text` as test.cake (with the target overridden when t is given).
inline std::optional<Module> compile(const std::string& text, DiagnosticSink& sink, Target t = Target::Unspecified) {
  FrontendOptions o;
  o.target_override = t;
  return compileModule(src(text), o, sink);
}

inline std::string readFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::filesystem::path sourceDir() {
  return CAKE_SOURCE_DIR;
}

inline std::string describe(const DiagnosticSink& sink) {
  std::string out;
  for (const Finding& f : sink.findings())
    out += f.rule + " @ " + std::to_string(f.range.line) + ":" + std::to_string(f.range.col) + ": " + f.message + "\n";
  return out;
}

// The IR.md fragment, verbatim.
inline const char* kPaperFragment = R"(@cake.schedule()
def fmha_fwd(lm, Q: LM.tma3d, O: LM.tma2d, seqlen_q: LM.i32):
    pool     = lm.smem(98304)
    smem_q   = pool.view(offset=0, shape=(128,128), dtype=lm.bf16, stage=3)
    tmem_acc = lm.tmem(cols=0, width=128, shape=(128,128), dtype=lm.f32)
    load = lm.role(warps=[0])
    mma  = lm.role(warps=[1])
    pipe = lm.pipeline(stages=3)
    q_full = lm.barrier(count=3, prod=[load], cons=[mma],
                        init_count=1, pipeline=pipe)
    with load:
        for stage in lm.range(0, 3):
            smem_q.tma_load(Q, coords=(0,0,stage), stage=stage, barrier=q_full)
    with mma:
        for stage in lm.range(0, 3):
            lm.wait(q_full, stage=stage)
            lm.fence_proxy()
            lm.mma(tmem_acc, smem_q[stage], smem_q[stage], init=(stage == 0))
)";

}  // namespace cake::ir::test
