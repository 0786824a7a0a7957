// `cake fmt` over every corpus file: it parses, the output parses back to
// the same AST, formatting is idempotent, comments survive, and a file that
// type-checks still type-checks after formatting.
#include <gtest/gtest.h>

#include <algorithm>

#include "test_util.h"

using namespace cake::ir;
using namespace cake::ir::test;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> cakeFiles(const fs::path& dir) {
  std::vector<fs::path> out;
  if (fs::exists(dir))
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file() && e.path().extension() == ".cake") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

bool isMutant(const fs::path& p) {
  return p.lexically_relative(sourceDir() / "corpus").string().rfind("mutants/", 0) == 0;
}

// The hand-written corpus files (corpus/mutants/** left out when `mutants` is false) or the
// generated mutants alone (`mutants` true).
std::vector<fs::path> corpusFiles(bool mutants) {
  std::vector<fs::path> out;
  for (const fs::path& p : cakeFiles(sourceDir() / "corpus"))
    if (isMutant(p) == mutants) out.push_back(p);
  return out;
}

std::vector<fs::path> roundTripFiles() {
  std::vector<fs::path> out = corpusFiles(false);
  for (const fs::path& p : cakeFiles(sourceDir() / "fuzz/seeds")) out.push_back(p);
  return out;
}

size_t countComments(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
  return n;
}

// The two corpus walks below are the longest front-end tests under ASan +
// UBSan (-O0): FormatIsCanonical took 97 CPU s and EveryCorpusFileCompiles
// 22 of the 139 CPU s of the whole sanitized front-end suite (their Release
// forms 4 s and 1 s; `/usr/bin/time`, a loaded machine). Each runs as
// kCorpusSlices tests (file i in slice i % kCorpusSlices), so that
// GoogleTest shards (GTEST_TOTAL_SHARDS; a shard takes every other test) get
// even shares: in session 18's CI the shard that held FormatIsCanonical ran
// 91 s, the other 26 s. Since session 38 one sanitizer lane runs the suite
// whole (.ci/test; docs/ci.md), and the slices still spread the Release
// ctest's walks over both cores. A test case per file would cost a process
// start each under ctest: minutes of CI for milliseconds of work.
//
// The generated mutants (corpus/mutants/**, 1,200 of the 1,908 corpus files:
// sync-level one-line edits of the hand-written files, the same constructs)
// are walked by tests of their own, CorpusMutants.*: the Release ctest runs
// them, the sanitizer lanes leave them out (--gtest_filter in .ci/test), where
// they were about two thirds of the walks' CPU for no construct the
// hand-written files and the front-end fuzzer do not reach (docs/ci.md,
// session 33).
constexpr int kCorpusSlices = 4;

std::vector<fs::path> corpusSlice(const std::vector<fs::path>& files, int k) {
  std::vector<fs::path> out;
  for (size_t i = static_cast<size_t>(k); i < files.size(); i += kCorpusSlices) out.push_back(files[i]);
  return out;
}

void expectCanonicalFormat(const std::vector<fs::path>& files) {
  for (const fs::path& p : files) {
    SCOPED_TRACE(p.string());
    std::string text = readFile(p);
    auto file = src(text, p.string());
    DiagnosticSink sink;
    auto original = ast::parse(file, sink);
    ASSERT_TRUE(original) << describe(sink);
    auto once = formatSource(file, sink);
    ASSERT_TRUE(once) << describe(sink);
    auto onceFile = src(*once, p.string() + ".fmt");
    auto reparsed = ast::parse(onceFile, sink);
    ASSERT_TRUE(reparsed) << describe(sink) << "\n" << *once;
    EXPECT_TRUE(ast::equal(*original, *reparsed)) << *once;
    auto twice = formatSource(onceFile, sink);
    ASSERT_TRUE(twice);
    EXPECT_EQ(*once, *twice);
    // comments, including inline expectations, are kept
    EXPECT_EQ(original->comments.size(), reparsed->comments.size());
    EXPECT_EQ(countComments(text, "# expect-error:"), countComments(*once, "# expect-error:"));
    EXPECT_EQ(countComments(text, "# expect:"), countComments(*once, "# expect:"));
    // the front end's verdict does not change
    DiagnosticSink a, b;
    bool okBefore = compileModule(file, {}, a).has_value();
    bool okAfter = compileModule(onceFile, {}, b).has_value();
    EXPECT_EQ(okBefore, okAfter) << describe(a) << describe(b);
  }
}

// every corpus file is meant for the checks: the front end must accept it
void expectEveryFileCompiles(const std::vector<fs::path>& files) {
  for (const fs::path& p : files) {
    DiagnosticSink sink;
    auto m = compileModule(src(readFile(p), p.string()), {}, sink);
    bool expectsFrontEndError = false;
    std::string text = readFile(p);
    for (const char* g : {"# expect: syntax.", "# expect: type.", "expect-error: syntax.", "expect-error: type."})
      if (text.find(g) != std::string::npos) expectsFrontEndError = true;
    if (expectsFrontEndError) continue;
    EXPECT_TRUE(m.has_value()) << p << "\n" << describe(sink);
  }
}

}  // namespace

class CorpusRoundTrip : public ::testing::TestWithParam<int> {};

TEST_P(CorpusRoundTrip, FormatIsCanonical) {
  const std::vector<fs::path> all = roundTripFiles();
  ASSERT_GT(all.size(), 100u);
  const std::vector<fs::path> files = corpusSlice(all, GetParam());
  ASSERT_GT(files.size(), all.size() / kCorpusSlices - 1);
  expectCanonicalFormat(files);
}

INSTANTIATE_TEST_SUITE_P(Slices, CorpusRoundTrip, ::testing::Range(0, kCorpusSlices));

class CorpusFrontEnd : public ::testing::TestWithParam<int> {};

TEST_P(CorpusFrontEnd, EveryCorpusFileCompiles) {
  const std::vector<fs::path> all = corpusFiles(false);
  ASSERT_GT(all.size(), 100u);
  expectEveryFileCompiles(corpusSlice(all, GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Slices, CorpusFrontEnd, ::testing::Range(0, kCorpusSlices));

TEST(CorpusMutants, FormatIsCanonical) {
  const std::vector<fs::path> mutants = corpusFiles(true);
  ASSERT_GT(mutants.size(), 100u);
  expectCanonicalFormat(mutants);
}

TEST(CorpusMutants, EveryFileCompiles) {
  const std::vector<fs::path> mutants = corpusFiles(true);
  ASSERT_GT(mutants.size(), 100u);
  expectEveryFileCompiles(mutants);
}
