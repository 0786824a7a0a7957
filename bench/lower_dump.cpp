// Dumps what lowering makes of every corpus schedule, for refactoring the
// lowering without changing its output: for each corpus file and schedule,
// the schedule's own target and each target override (sm_80, sm_90a,
// sm_100a), the Auto and Gemm problems, with and without comments, it writes
// the lower.* findings and the generated source to one file under DIR.
// Compare two dumps with `diff -r` (docs/benchmarks.md).
//
//   cake_bench_lower_dump CORPUS_DIR OUT_DIR
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gate/corpus_gate.h"
#include "ir/frontend.h"
#include "lowering/lower.h"

using namespace cake;
namespace fs = std::filesystem;

namespace {

std::string readText(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string flat(std::string s) {
  for (char& c : s)
    if (c == '/' || c == ' ') c = '_';
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR OUT_DIR\n", argv[0]);
    return 2;
  }
  const fs::path root = argv[1], out = argv[2];
  fs::create_directories(out);
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path().extension() == ".cake") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  int cases = 0, ok = 0;
  for (const auto& f : files) {
    const std::string text = readText(f);
    const std::string rel = fs::relative(f, root).string();
    const ir::FrontendOptions fe = checks::gate::frontendOptionsFor(text);
    ir::DiagnosticSink sink;
    auto m = ir::compileModule(ir::makeSourceFile(rel, text), fe, sink);
    if (!m) continue;
    for (const auto& s : m->schedules) {
      const ir::Target own = s.target == ir::Target::Unspecified ? fe.target_override : ir::Target::Unspecified;
      const ir::Target targets[] = {own, ir::Target::SM80, ir::Target::SM90a, ir::Target::SM100a};
      const char* tnames[] = {"own", "sm80", "sm90a", "sm100a"};
      for (int ti = 0; ti < 4; ++ti)
        for (int variant = 0; variant < 3; ++variant) {
          if (ti > 0 && variant == 2) continue;
          lowering::LowerOptions o;
          o.target = targets[ti];
          if (variant == 1) o.problem = lowering::Problem::Gemm;
          if (variant == 2) o.comments = false;
          auto r = lowering::lowerToCuda(s, o);
          std::string dump = r.ok ? "ok\n" : "failed\n";
          dump += "kernel " + r.kernel_name + " threads " + std::to_string(r.launch.threads) + " smem " +
                  std::to_string(r.launch.smem_bytes) + " grid " + r.launch.grid + "\n";
          for (const auto& fd : r.findings) dump += ir::renderText(fd) + "\n";
          dump += r.source;
          std::ofstream(out / (flat(rel) + "." + flat(s.name) + "." + tnames[ti] + "." + std::to_string(variant))) << dump;
          ++cases;
          ok += r.ok;
        }
    }
  }
  std::printf("%d cases, %d lowered\n", cases, ok);
  return 0;
}
