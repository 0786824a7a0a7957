// Every corpus schedule lowers to CUDA, and the lowered sources compile with
// nvcc (no GPU needed): one translation unit per target (sm_90a in two
// halves, each a test of its own) that concatenates every lowered schedule
// of that target, each in its own namespace
// (LowerOptions::namespace_name), compiled with `nvcc -c` so ptxas runs
// (SASS for sm_80 / sm_90a / sm_100a). The compile test skips when no nvcc
// is found ($CAKE_NVCC, /usr/local/cuda/bin/nvcc, nvcc on PATH).
//
// Files that say `# expect: pass` must lower; known-bad ones are lowered
// where possible (their count is printed). The default shards compile every
// known-good schedule and the known-bad ones that emit a line form no
// known-good schedule of their target does (lineForms); the long form
// (SlowLoweredCorpusWithMutantsCompilesWithNvcc) compiles every lowered
// schedule, the mutants too. The translation units stay in
// <build>/lowered-corpus/ (overwritten by the next run).
#include "tests/common/build_paths.h"
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include "ir/frontend.h"
#include "lowering/lower.h"
#include "tests/common/corpus_files.h"

using namespace cake;
namespace fs = std::filesystem;

namespace {

using test::readText;
using test::sourceDir;

// `# target: sm_100a` (the corpus annotation for files whose decorator has none)
std::optional<ir::Target> targetAnnotation(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto p = line.find_first_not_of(" \t");
    if (p == std::string::npos || line[p] != '#') continue;
    auto q = line.find("target:", p);
    if (q == std::string::npos) continue;
    std::string v = line.substr(q + 7);
    v.erase(0, v.find_first_not_of(" \t"));
    v.erase(v.find_last_not_of(" \t\r") + 1);
    if (auto t = ir::parseTarget(v)) return t;
  }
  return std::nullopt;
}

bool expectsPass(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto p = line.find("# expect:");
    if (p == std::string::npos || line.find_first_not_of(" \t") != p) continue;
    std::string v = line.substr(p + 9);
    v.erase(0, v.find_first_not_of(" \t"));
    v.erase(v.find_last_not_of(" \t\r") + 1);
    if (v == "pass") return true;
  }
  return false;
}

// `# lower: unsupported (why)` in a correct file's header: a construct of
// the IR (and of the hardware) that the lowering does not emit yet, kept in
// the corpus for the verifier (real kernels' fixed forms). Such a file must
// not lower (else the line is stale) and its reason is printed.
std::string unsupportedAnnotation(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("# lower: unsupported", 0) == 0) return line.substr(2);
  return "";
}

struct Lowered {
  std::string file, schedule;
  bool mutant = false;  // corpus/mutants/**: generated sync edits of the files above
  bool pass = false;    // the file expects `pass`
  std::string unsupported;  // its `# lower: unsupported (why)` line, if any
  bool ok = false;
  ir::Target target = ir::Target::Unspecified;
  std::string source, why;
};

// The parameters a failed lowering asks to specialise ("... depends on BM, BN: ..."),
// each given the smallest value in [1, 4096] that satisfies the schedule's lm.assume's
// (the other i32 parameters held at 4096).
std::map<std::string, int64_t> specialization(const ir::Schedule& s, const lowering::LowerResult& r) {
  std::set<std::string> names;
  for (const auto& f : r.findings) {
    auto p = f.message.find(" depends on ");
    auto q = f.message.find(": lowering needs constant shapes");
    if (p == std::string::npos || q == std::string::npos || q < p) continue;
    std::string list = f.message.substr(p + 12, q - p - 12);
    size_t b = 0;
    while (b < list.size()) {
      auto e = list.find(", ", b);
      names.insert(list.substr(b, e == std::string::npos ? std::string::npos : e - b));
      if (e == std::string::npos) break;
      b = e + 2;
    }
  }
  std::map<std::string, int64_t> out;
  ir::EvalEnv env;
  for (size_t i = 0; i < s.params.size(); ++i) env.params[static_cast<int>(i)] = 4096;
  for (const auto& name : names) {
    int idx = -1;
    for (size_t i = 0; i < s.params.size(); ++i)
      if (s.params[i].name == name) idx = static_cast<int>(i);
    if (idx < 0) return {};
    for (int64_t v = 1; v <= 4096; ++v) {
      env.params[idx] = v;
      bool ok = true;
      for (const auto& a : s.assumes)
        if (auto x = ir::evaluate(*a.cond, env); x && *x == 0) ok = false;
      if (ok) {
        out[name] = v;
        break;
      }
    }
    if (!out.count(name)) return {};
  }
  return out;
}

// The corpus lowered, with or without corpus/mutants/** (two thirds of the files; the
// default nvcc shards compile none of them, so they do not lower them either).
std::vector<Lowered> lowerCorpus(bool withMutants) {
  const fs::path root = fs::path(sourceDir()) / "corpus";
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path().extension() == ".cake" &&
        (withMutants || fs::relative(e.path(), root).string().rfind("mutants/", 0) != 0))
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<Lowered> out;
  int n = 0;
  for (const auto& f : files) {
    const std::string text = readText(f);
    const std::string rel = fs::relative(f, root).string();
    ir::FrontendOptions fe;
    if (auto t = targetAnnotation(text)) fe.target_override = *t;
    ir::DiagnosticSink sink;
    auto m = ir::compileModule(ir::makeSourceFile(rel, text), fe, sink);
    if (!m) continue;  // front-end-invalid corpus files (syntax.* / type.* expectations) have nothing to lower
    for (const auto& s : m->schedules) {
      Lowered l;
      l.file = rel;
      l.schedule = s.name;
      l.pass = expectsPass(text);
      l.unsupported = unsupportedAnnotation(text);
      l.mutant = rel.rfind("mutants/", 0) == 0;
      lowering::LowerOptions o;
      o.target = s.target == ir::Target::Unspecified ? fe.target_override : ir::Target::Unspecified;
      o.namespace_name = "cake_corpus_" + std::to_string(n++);
      auto r = lowering::lowerToCuda(s, o);
      if (!r.ok) {
        // shapes that depend on an i32 parameter: specialise for the smallest value the assumptions allow
        auto spec = specialization(s, r);
        if (!spec.empty()) {
          o.specialize = spec;
          r = lowering::lowerToCuda(s, o);
          l.schedule += " [";
          for (const auto& [k, v] : spec) l.schedule += k + "=" + std::to_string(v) + " ";
          l.schedule.back() = ']';
        }
      }
      l.ok = r.ok;
      l.target = r.target;
      l.source = std::move(r.source);
      for (const auto& fd : r.findings) l.why += ir::renderText(fd) + "\n";
      out.push_back(std::move(l));
    }
  }
  return out;
}

const std::vector<Lowered>& corpus(bool withMutants = true) {
  if (!withMutants) {
    static const std::vector<Lowered> handWritten = lowerCorpus(false);
    return handWritten;
  }
  static const std::vector<Lowered> c = lowerCorpus(true);
  return c;
}

std::string findNvcc() {
  if (const char* e = getenv("CAKE_NVCC"); e && *e) return e;
  if (fs::exists("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
  if (std::system("command -v nvcc > /dev/null 2>&1") == 0) return "nvcc";
  return "";
}

std::string archFlags(ir::Target t) {
  switch (t) {
    case ir::Target::SM80: return "-gencode=arch=compute_80,code=sm_80";
    case ir::Target::SM100a: return "-gencode=arch=compute_100a,code=sm_100a";
    default: return "-gencode=arch=compute_90a,code=sm_90a";
  }
}

}  // namespace

TEST(LoweringCorpus, EveryAcceptedScheduleLowers) {
  const auto& c = corpus();
  ASSERT_FALSE(c.empty());
  struct Count {
    int pass = 0, passLowered = 0, bad = 0, badLowered = 0;
  };
  std::map<std::string, Count> perTarget, perTargetMutants;
  int badLowered = 0, badTotal = 0;
  for (const auto& l : c) {
    auto& pt = (l.mutant ? perTargetMutants : perTarget)[std::string(ir::targetName(l.target))];
    if (l.pass) {
      ++pt.pass;
      pt.passLowered += l.ok ? 1 : 0;
    } else {
      ++pt.bad;
      pt.badLowered += l.ok ? 1 : 0;
    }
    if (l.pass && !l.unsupported.empty()) {
      EXPECT_FALSE(l.ok) << l.file << " (" << l.schedule << ") lowers now: drop its '" << l.unsupported << "' line";
      if (!l.ok) std::printf("[ correct, %s ] %s: %s", l.unsupported.c_str(), l.file.c_str(), l.why.c_str());
    } else if (l.pass) {
      EXPECT_TRUE(l.ok) << l.file << " (" << l.schedule << ") expects pass but does not lower:\n" << l.why;
    } else {
      ++badTotal;
      badLowered += l.ok ? 1 : 0;
      if (!l.ok && !l.mutant) std::printf("[ known-bad, not lowered ] %s: %s", l.file.c_str(), l.why.c_str());
    }
  }
  for (const auto& [t, n] : perTarget)
    std::printf("[ lowering ] %s: expect-pass schedules %d of %d lowered; known-bad %d of %d lowered\n", t.c_str(),
                n.passLowered, n.pass, n.badLowered, n.bad);
  for (const auto& [t, n] : perTargetMutants)
    std::printf("[ lowering ] mutants/ %s: expect-pass %d of %d lowered; known-bad %d of %d lowered\n", t.c_str(),
                n.passLowered, n.pass, n.badLowered, n.bad);
  std::printf("[ lowering ] known-bad schedules lowered: %d of %d\n", badLowered, badTotal);
}

// The shard type and the parametrised fixture are in a named namespace: in the unity build
// GCC warns (-Wsubobject-linkage) about a test class whose base uses the anonymous namespace.
namespace lowered_corpus_nvcc {

// One translation unit: the lowered schedules of `target` whose index among that target's
// schedules is `index` modulo `count` (count 1: all of them).
struct NvccShard {
  ir::Target target;
  int index = 0, count = 1;
  std::string name() const {
    std::string n = std::string(ir::targetName(target));
    if (count > 1) n += "_" + std::to_string(index + 1) + "_of_" + std::to_string(count);
    return n;
  }
};

void PrintTo(const NvccShard& s, std::ostream* os) { *os << s.name(); }

}  // namespace lowered_corpus_nvcc

using lowered_corpus_nvcc::NvccShard;

namespace {

// The target whose nvcc flags compile a lowered schedule (archFlags: sm_90a unless sm_80 or sm_100a).
ir::Target compileTarget(ir::Target t) {
  return t == ir::Target::SM80 || t == ir::Target::SM100a ? t : ir::Target::SM90a;
}

// Calls `word` with each identifier or number of `text`, `other` with each character between them.
void scanWords(const std::string& text, const std::function<void(const std::string&)>& word,
               const std::function<void(char)>& other) {
  auto isWord = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
  for (size_t i = 0; i < text.size();) {
    if (!isWord(text[i])) {
      other(text[i++]);
      continue;
    }
    size_t j = i;
    while (j < text.size() && isWord(text[j])) ++j;
    word(text.substr(i, j - i));
    i = j;
  }
}

// The forms of a lowered source's lines: each line without its comment, with every number
// and every name the schedule brings (its views, tensor maps, kernel, locals) collapsed, so
// that what is left is the emitted construct: keywords, operators, CUDA's __ names and the
// prelude's helpers (the cake_* names defined before the kernel).
std::set<std::string> lineForms(const std::string& source) {
  static const std::set<std::string> kKeywords = {
      "if", "else", "for", "while", "return", "const", "int", "float", "unsigned", "auto", "void", "asm",
      "volatile", "static_cast", "reinterpret_cast", "template", "struct", "typedef", "long", "char", "bool",
      "true", "false", "sizeof", "constexpr", "do", "break", "continue", "switch", "case", "default", "extern",
      "inline", "static"};
  std::set<std::string> helpers;
  scanWords(
      source.substr(0, source.find("__global__")),
      [&](const std::string& w) {
        if (w.rfind("cake_", 0) == 0 && w.rfind("cake_corpus_", 0) != 0) helpers.insert(w);
      },
      [](char) {});
  std::set<std::string> forms;
  std::istringstream in(source);
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find("//"));
    const size_t b = line.find_first_not_of(" \t\r"), e = line.find_last_not_of(" \t\r");
    if (b == std::string::npos) continue;
    std::string form;
    scanWords(
        line.substr(b, e - b + 1),
        [&](const std::string& w) {
          const bool kept = helpers.count(w) || kKeywords.count(w) || w.rfind("__", 0) == 0;
          form += std::isdigit(static_cast<unsigned char>(w[0])) ? "N" : kept ? w : "I";
        },
        [&](char ch) { form += ch; });
    forms.insert(form);
  }
  return forms;
}

// Compiles each shard's translation unit with nvcc, two at a time (CI has 2 cores; the default
// tests give one shard each, so one nvcc per ctest job). `all` (the long form, label `slow`)
// compiles every lowered schedule; the default form leaves out the mutants and the known-bad
// schedules that emit no line form (lineForms) which no known-good schedule of their target emits.
void loweredCorpusCompiles(bool all, const std::vector<NvccShard>& shards) {
  const std::string nvcc = findNvcc();
  if (nvcc.empty()) GTEST_SKIP() << "no nvcc ($CAKE_NVCC, /usr/local/cuda/bin/nvcc, PATH)";
  const auto& c = corpus(all);
  // Known-bad code reaches a user only through `cake lower --allow-unverified`, and most of it is a
  // known-good file's code with a synchronization line changed (session 33: 253 of the 293 known-bad
  // schedules of the default shards emit only line forms of known-good ones); the others are compiled.
  std::map<ir::Target, std::set<std::string>> goodForms;
  if (!all)
    for (const auto& l : c)
      if (l.ok && l.pass) goodForms[compileTarget(l.target)].merge(lineForms(l.source));
  int badCompiled = 0, badLeftOut = 0;
  std::vector<std::string> tu(shards.size());
  std::vector<int> count(shards.size(), 0);
  std::map<ir::Target, int> seen;  // per compile target: schedules so far (the shard key)
  // The mutants (corpus/mutants/**) are sync-level edits of the hand-written files: the same ops,
  // shapes and layouts, so the same emission paths. They are lowered above but compiled only by
  // the long form (label `slow`: ~1000 more schedules, minutes of nvcc).
  for (const auto& l : c) {
    if (!l.ok || (l.mutant && !all)) continue;
    if (!all && !l.pass) {
      const std::set<std::string>& good = goodForms[compileTarget(l.target)];
      const std::set<std::string> forms = lineForms(l.source);
      const bool covered = std::includes(good.begin(), good.end(), forms.begin(), forms.end());
      (covered ? badLeftOut : badCompiled) += 1;
      if (covered) continue;
    }
    const ir::Target t = compileTarget(l.target);
    const int i = seen[t]++;
    for (size_t k = 0; k < shards.size(); ++k) {
      if (shards[k].target != t || i % shards[k].count != shards[k].index) continue;
      tu[k] += "// ==== " + l.file + " : " + l.schedule + "\n" + l.source + "\n";
      ++count[k];
    }
  }
  if (!all)
    std::printf("[ nvcc ] known-bad schedules compiled: %d; left to the long form (their line forms are all "
                "a known-good schedule's): %d\n",
                badCompiled, badLeftOut);
  const fs::path dir = fs::path(CAKE_BINARY_DIR) / (all ? "lowered-corpus-mutants" : "lowered-corpus");
  fs::create_directories(dir);
  struct Job {
    std::string name, cmd, log;
    int schedules = 0;
    double seconds = 0;
    int rc = 0;
  };
  std::vector<Job> jobs;
  for (size_t k = 0; k < shards.size(); ++k) {
    if (tu[k].empty()) continue;
    const std::string name = shards[k].name();
    const fs::path cu = dir / ("corpus_" + name + ".cu"), obj = dir / ("corpus_" + name + ".o"),
                   log = dir / ("corpus_" + name + ".log");
    std::ofstream(cu, std::ios::binary) << tu[k];
    Job j;
    j.name = name;
    j.schedules = count[k];
    j.log = log.string();
    // -c runs cicc and ptxas: real SASS for the target, so ptxas checks every instruction against it.
    // -Xcicc -O1 -Xptxas -O1: optimisation is what costs (5x less CPU than the defaults), not checking.
    j.cmd = nvcc + " -std=c++17 -c -Xcicc -O1 -Xptxas -O1 " + archFlags(shards[k].target) + " -o '" +
            obj.string() + "' '" + cu.string() + "' > '" + log.string() + "' 2>&1";
    jobs.push_back(j);
  }
  ASSERT_FALSE(jobs.empty());
  rusage before{};
  getrusage(RUSAGE_CHILDREN, &before);
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < jobs.size(); i += 2) {
    std::vector<std::future<void>> run;
    for (size_t k = i; k < std::min(i + 2, jobs.size()); ++k)
      run.push_back(std::async(std::launch::async, [&j = jobs[k]] {
        const auto s = std::chrono::steady_clock::now();
        j.rc = std::system(j.cmd.c_str());
        j.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count();
      }));
    for (auto& f : run) f.get();
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const auto& j : jobs) {
    std::printf("[ nvcc ] %s: %d schedules in one translation unit, %.1f s, %s\n", j.name.c_str(), j.schedules,
                j.seconds, j.rc == 0 ? "ok" : "FAILED");
    EXPECT_EQ(j.rc, 0) << "nvcc failed for " << j.name << ":\n" << readText(j.log).substr(0, 20000);
  }
  rusage after{};
  getrusage(RUSAGE_CHILDREN, &after);
  auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  const double cpu = secs(after.ru_utime) - secs(before.ru_utime) + secs(after.ru_stime) - secs(before.ru_stime);
  std::printf("[ nvcc ] total %.1f s wall, %.1f s CPU (user + sys of the nvcc processes)\n", total, cpu);
  ::testing::Test::RecordProperty("nvcc_seconds", std::to_string(total));
}

// The default set's shards: sm_90a holds about half of the lowered schedules and of nvcc's
// CPU (session 26's CI: sm_80 99 schedules, sm_90a 273, sm_100a 133), so it is compiled in
// two halves. Each shard is its own ctest job running one nvcc, so `ctest -j2` runs two of them
// (or one beside another test) instead of one job running two nvcc processes beside a
// third test. Every lowered schedule is in exactly one shard: each target's shards cover every
// index modulo their count (EveryScheduleIsInOneShard checks the plan).
const std::vector<NvccShard>& defaultShards() {
  static const std::vector<NvccShard> s = {
      {ir::Target::SM80, 0, 1}, {ir::Target::SM90a, 0, 2}, {ir::Target::SM90a, 1, 2}, {ir::Target::SM100a, 0, 1}};
  return s;
}

}  // namespace

class LoweredCorpusNvcc : public ::testing::TestWithParam<NvccShard> {};

// The plan covers every compile target once: for each target its shards' indices are 0 .. count-1.
TEST(LoweringCorpus, EveryScheduleIsInOneShard) {
  std::map<ir::Target, std::set<int>> idx;
  std::map<ir::Target, int> counts;
  for (const auto& s : defaultShards()) {
    EXPECT_TRUE(idx[s.target].insert(s.index).second) << s.name();
    EXPECT_TRUE(!counts.count(s.target) || counts[s.target] == s.count) << s.name();
    counts[s.target] = s.count;
  }
  for (ir::Target t : {ir::Target::SM80, ir::Target::SM90a, ir::Target::SM100a}) {
    ASSERT_TRUE(counts.count(t)) << ir::targetName(t);
    EXPECT_EQ(static_cast<int>(idx[t].size()), counts[t]) << ir::targetName(t);
    if (!idx[t].empty()) EXPECT_EQ(*idx[t].rbegin(), counts[t] - 1) << ir::targetName(t);
  }
}

TEST_P(LoweredCorpusNvcc, LoweredCorpusCompilesWithNvcc) { loweredCorpusCompiles(false, {GetParam()}); }
INSTANTIATE_TEST_SUITE_P(Shards, LoweredCorpusNvcc, ::testing::ValuesIn(defaultShards()),
                         [](const ::testing::TestParamInfo<NvccShard>& i) { return i.param.name(); });

TEST(LoweringCorpus, SlowLoweredCorpusWithMutantsCompilesWithNvcc) {
  loweredCorpusCompiles(true, {{ir::Target::SM80}, {ir::Target::SM90a}, {ir::Target::SM100a}});
}

namespace {

// ptxas's report on one lowered bench schedule compiled for sm_90a at -O3 (as the device builds
// it), after `edit` has been applied to the lowered source; empty when nvcc failed
std::string ptxasReport(const std::string& nvcc, const std::string& rel, const std::string& tag,
                        const std::function<std::string(std::string)>& edit) {
  std::string err;
  auto file = ir::readSourceFile(sourceDir() + "/" + rel, err);
  EXPECT_TRUE(file) << err;
  if (!file) return "";
  ir::DiagnosticSink sink;
  auto m = ir::compileModule(file, {}, sink);
  EXPECT_TRUE(m && !m->schedules.empty());
  if (!m || m->schedules.empty()) return "";
  auto r = lowering::lowerToCuda(m->schedules[0]);
  EXPECT_TRUE(r.ok);
  const fs::path dir = fs::path(CAKE_BINARY_DIR) / "lowered-ptxas";
  fs::create_directories(dir);
  const fs::path cu = dir / (tag + ".cu"), obj = dir / (tag + ".cubin"), log = dir / (tag + ".log");
  std::ofstream(cu, std::ios::binary) << edit(r.source);
  const std::string cmd = nvcc + " -std=c++17 -O3 -cubin -I'" + sourceDir() + "/abi' " + archFlags(ir::Target::SM90a) +
                          " -o '" + obj.string() + "' '" + cu.string() + "' > '" + log.string() + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << readText(log.string()).substr(0, 4000);
  return rc == 0 ? readText(log.string()) : "";
}

}  // namespace

// A transposed wgmma accumulator stored as bf16 (the decode tiles over the whole K,
// sm90_decode_t*): converted with cvt.rn.bf16.f32, ptxas serialised every wgmma of the kernel
// (C7514: "non wgmma instructions reading accumulator registers ... between start and end of the
// pipeline stage"); the lowering converts those registers in integer arithmetic (cake_cvtr,
// docs/gpu.md "Decode, session 15"). The same source with the conversion put back (the control)
// must still draw C7514 from this nvcc, or the test shows nothing and is skipped.
TEST(LoweringCorpus, TransposedBf16EpilogueKeepsWgmmaAsync) {
  const std::string nvcc = findNvcc();
  if (nvcc.empty()) GTEST_SKIP() << "no nvcc ($CAKE_NVCC, /usr/local/cuda/bin/nvcc, PATH)";
  const std::string rel = "bench/gpu/schedules/decode/sm90_decode_t8_bn128_s12.cake";
  const std::string fixed = ptxasReport(nvcc, rel, "t8_bn128_s12", [](std::string s) {
    EXPECT_NE(s.find("cake_cvtr<__nv_bfloat16>(cake_f32(acc["), std::string::npos);
    return s;
  });
  const std::string control = ptxasReport(nvcc, rel, "t8_bn128_s12_cvt", [](std::string s) {
    const std::string from = "cake_cvtr<__nv_bfloat16>(cake_f32(acc[", to = "cake_cvt<__nv_bfloat16>(cake_f32(acc[";
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
    return s;
  });
  EXPECT_EQ(fixed.find("C7514"), std::string::npos) << fixed;
  EXPECT_EQ(fixed.find("serialized"), std::string::npos) << fixed;
  if (control.find("C7514") == std::string::npos) GTEST_SKIP() << "this nvcc does not serialise the control:\n" << control;
}
