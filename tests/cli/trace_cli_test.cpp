// `cake check` trace views end to end: the relevant steps in text, kinds in
// JSON, --trace-svg rendered by a real SVG renderer (rsvg-convert), and
// --graph-dot read back with Boost.Graph's Graphviz parser.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/graphviz.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ir/trace.h"
#include "tests/cli/run_command.h"
#include "tests/common/corpus_files.h"

namespace fs = std::filesystem;

namespace {

using cake_test::CmdResult;

using cake_test::src;
fs::path tmp(const std::string& name) { return fs::temp_directory_path() / ("cake_trace_test_" + name); }

using cake::test::readText;
using cake_test::cake;

const std::string kRace = "corpus/bugs/sync.race/sm90_release_before_mma_retired.cake";
const std::string kDeadlock = "corpus/bugs/sync.deadlock/fa3_q_empty_cycle.cake";

TEST(TraceCli, TextShowsRelevantStepsAndFullTraceEveryStep) {
  CmdResult r = cake("check " + src(kRace).string());
  ASSERT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("note: relevant steps: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(", violating]: "), std::string::npos) << r.out;
  CmdResult full = cake("check --full-trace " + src(kRace).string());
  EXPECT_EQ(full.out.find("relevant steps"), std::string::npos);
  EXPECT_NE(full.out.find("note: trace 1: "), std::string::npos);
  // the relevant view is a subset of the full one: fewer step lines
  auto count = [](const std::string& s, const std::string& needle) {
    size_t n = 0;
    for (size_t at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1)) ++n;
    return n;
  };
  EXPECT_LT(count(r.out, "note: trace "), count(full.out, "note: trace "));
}

TEST(TraceCli, JsonStepsHaveKnownKindsAndAValidSlice) {
  for (const std::string& file : {kRace, kDeadlock}) {
    CmdResult r = cake("check --format json " + src(file).string());
    nlohmann::json j = nlohmann::json::parse(r.out);
    int traced = 0;
    for (const auto& s : j["files"][0]["schedules"])
      for (const auto& f : s["findings"]) {
        if (f["trace"].empty()) continue;
        ++traced;
        for (const auto& t : f["trace"]) {
          ASSERT_TRUE(t.contains("kind")) << t;
          auto k = cake::ir::parseStepKind(t["kind"].get<std::string>());
          ASSERT_TRUE(k.has_value()) << t["kind"];
          EXPECT_NE(*k, cake::ir::StepKind::Other);
        }
        ASSERT_TRUE(f.contains("relevant")) << f;
        for (int i : f["relevant"]) EXPECT_LT(static_cast<size_t>(i), f["trace"].size());
        for (int i : f["violating"])
          EXPECT_NE(std::find(f["relevant"].begin(), f["relevant"].end(), i), f["relevant"].end());
        if (file == kDeadlock) EXPECT_EQ(f["blocked"].size(), 3u) << f["blocked"];
      }
    EXPECT_EQ(traced, 1) << file;
  }
}

// A real render: rsvg-convert (librsvg, .ci/setup installs librsvg2-bin)
// must read the picture and produce a PNG of the size the SVG declares.
TEST(TraceCli, TraceSvgRendersAndHasItsStructure) {
  if (cake_test::runCommand("command -v rsvg-convert >/dev/null 2>&1").status != 0)
    FAIL() << "rsvg-convert is needed to render the SVG (.ci/setup installs librsvg2-bin)";
  for (const std::string& file : {kRace, kDeadlock}) {
    fs::path svg = tmp("trace.svg"), png = tmp("trace.png");
    fs::remove(svg);
    fs::remove(png);
    CmdResult r = cake("check --trace-svg " + svg.string() + " " + src(file).string());
    ASSERT_EQ(r.status, 1) << r.out;
    std::string text = readText(svg);
    ASSERT_FALSE(text.empty());
    CmdResult render = cake_test::runCommand("rsvg-convert -f png -o '" + png.string() + "' '" + svg.string() + "' 2>&1");
    ASSERT_EQ(render.status, 0) << render.out;
    EXPECT_TRUE(render.out.empty()) << render.out;  // no warnings
    std::string p = readText(png);
    ASSERT_GT(p.size(), 24u);
    ASSERT_EQ(p.substr(1, 3), "PNG");
    auto be32 = [&](size_t at) {
      return (static_cast<unsigned char>(p[at]) << 24) | (static_cast<unsigned char>(p[at + 1]) << 16) |
             (static_cast<unsigned char>(p[at + 2]) << 8) | static_cast<unsigned char>(p[at + 3]);
    };
    std::smatch m;
    ASSERT_TRUE(std::regex_search(text, m, std::regex("<svg [^>]*width=\"(\\d+)\" height=\"(\\d+)\"")));
    EXPECT_EQ(be32(16), std::stoul(m[1]));  // IHDR width
    EXPECT_EQ(be32(20), std::stoul(m[2]));  // IHDR height
    // structure, read as XML
    CmdResult xml = cake_test::runCommand(
        "python3 -c \"import sys, xml.etree.ElementTree as E\n"
        "ns = '{http://www.w3.org/2000/svg}'\n"
        "root = E.parse(sys.argv[1]).getroot()\n"
        "gs = root.iter(ns + 'g')\n"
        "cls = [g.get('class', '') for g in gs]\n"
        "paths = [p for p in root.iter(ns + 'path') if 'handoff' in p.get('class', '')]\n"
        "print(root.tag == ns + 'svg', sum(c == 'lane' for c in cls), sum('violating' in c for c in cls), "
        "sum('blocked' in c for c in cls), len(paths))\" '" +
        svg.string() + "' 2>&1");
    ASSERT_EQ(xml.status, 0) << xml.out;
    std::istringstream in(xml.out);
    std::string is_svg;
    int lanes = 0, violating = 0, blocked = 0, arrows = 0;
    in >> is_svg >> lanes >> violating >> blocked >> arrows;
    EXPECT_EQ(is_svg, "True");
    EXPECT_GE(lanes, 2) << file;
    EXPECT_GE(violating, 1) << file;
    if (file == kDeadlock) {
      EXPECT_EQ(blocked, 3);  // producer's sync, both consumers' waits
      EXPECT_EQ(lanes, 3);
    } else {
      EXPECT_EQ(blocked, 0);
      EXPECT_GE(arrows, 2);   // the landing and the barrier handoffs of the race's chain
    }
  }
}

struct DotVertex {
  std::string label, cake_cycle;
};
struct DotEdge {
  std::string label, cake_cycle, cake_blocked;
};

TEST(TraceCli, GraphDotReadsBackWithTheDeadlockCycleMarked) {
  fs::path dot = tmp("graph.dot");
  fs::remove(dot);
  CmdResult r = cake("check --graph-dot " + dot.string() + " " + src(kDeadlock).string());
  ASSERT_EQ(r.status, 1) << r.out;
  using G = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, DotVertex, DotEdge>;
  G g;
  boost::dynamic_properties dp(boost::ignore_other_properties);
  dp.property("label", boost::get(&DotVertex::label, g));
  dp.property("cake_cycle", boost::get(&DotVertex::cake_cycle, g));
  dp.property("label", boost::get(&DotEdge::label, g));
  dp.property("cake_cycle", boost::get(&DotEdge::cake_cycle, g));
  dp.property("cake_blocked", boost::get(&DotEdge::cake_blocked, g));
  std::ifstream in(dot);
  ASSERT_TRUE(boost::read_graphviz(in, g, dp)) << readText(dot);
  std::set<std::string> cycle_edges, blocked_edges;
  for (auto e : boost::make_iterator_range(boost::edges(g))) {
    std::string name = g[boost::source(e, g)].label + "->" + g[boost::target(e, g)].label + ":" + g[e].label;
    if (g[e].cake_cycle == "true") cycle_edges.insert(name);
    if (g[e].cake_blocked == "true") blocked_edges.insert(name);
  }
  // producer -> q_full -> consumers -> q_empty -> producer (docs of the bug file)
  EXPECT_EQ(cycle_edges, (std::set<std::string>{"producer->q_full:tma", "q_full->consumers:wait",
                                                "consumers->q_empty:bar_arrive", "q_empty->producer:sync",
                                                "producer->q_empty:sync"}))
      << readText(dot);
  EXPECT_EQ(blocked_edges, (std::set<std::string>{"q_full->consumers:wait", "q_empty->producer:sync"}));

  // a correct ring has the same shape of graph and nothing marked
  fs::path good = tmp("good.dot");
  CmdResult ok = cake("check --graph-dot " + good.string() + " " + src("corpus/basics/iter_ring.cake").string());
  std::string text = readText(good);
  EXPECT_NE(text.find("digraph"), std::string::npos) << ok.out;
  EXPECT_EQ(text.find("cake_cycle"), std::string::npos);
}

TEST(TraceCli, UnwritablePictureIsAnError) {
  CmdResult r = cake("check --trace-svg /nonexistent-dir/x.svg " + src(kRace).string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("cannot write the trace picture"), std::string::npos) << r.out;
}

}  // namespace
