#include "ir/sarif.h"

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>

namespace cake::ir {

namespace {

using nlohmann::json;

std::string_view sarifLevel(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
    case Severity::Remark: return "none";
  }
  return "none";
}

// A file name as a URI reference: unreserved bytes and '/' kept, the rest
// percent-encoded (a space, '#', '%' or non-ASCII byte in a path).
std::string uriOf(std::string_view path) {
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/')
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

json physicalLocation(const SourceRange& r, const SourceRange& fallback) {
  const SourceFilePtr& file = r.file ? r.file : fallback.file;
  json p = {{"artifactLocation", {{"uri", uriOf(file ? file->name : "")}}}};
  if (r.valid()) {
    json region = {{"startLine", r.line}};
    if (r.col > 0) region["startColumn"] = r.col;
    if (r.end_line >= r.line) region["endLine"] = r.end_line;
    if (r.end_col > 0 && (r.end_line > r.line || r.end_col > r.col)) region["endColumn"] = r.end_col;
    p["region"] = std::move(region);
  }
  return p;
}

json message(std::string text) { return {{"text", printable(text)}}; }

// The trace as one codeFlow: a threadFlow per role instance (in order of
// first appearance), each step placed in its instance's flow with its
// position in the interleaving as executionOrder.
json codeFlow(const Finding& f) {
  std::vector<std::pair<std::string, int>> order;
  std::map<std::pair<std::string, int>, json> flows;
  for (size_t i = 0; i < f.trace.size(); ++i) {
    const TraceStep& t = f.trace[i];
    auto key = std::make_pair(t.role, t.instance);
    if (!flows.count(key)) {
      order.push_back(key);
      flows[key] = json::array();
    }
    json loc = {{"location",
                 {{"physicalLocation", physicalLocation(t.range, f.range)},
                  {"message", message(fmt::format("trace {}: {}", i + 1, traceStepText(t)))}}},
                {"executionOrder", static_cast<int>(i + 1)},
                {"kinds", json::array({stepKindName(t.kind)})}};
    // the slice (ir/trace.h): violating steps essential, the rest of the
    // slice important, the other steps unimportant
    if (!f.relevant.empty()) {
      const int idx = static_cast<int>(i);
      auto has = [&](const std::vector<int>& v) { return std::find(v.begin(), v.end(), idx) != v.end(); };
      loc["importance"] = has(f.violating) ? "essential" : has(f.relevant) ? "important" : "unimportant";
    }
    flows[key].push_back(std::move(loc));
  }
  json threads = json::array();
  for (const auto& key : order) {
    std::string id = key.first.empty() ? "async" : key.first;
    if (key.second >= 0) id += fmt::format("[{}]", key.second);
    threads.push_back({{"id", id}, {"message", message("role instance " + id)}, {"locations", flows[key]}});
  }
  return {{"message", message("counterexample trace (" + std::to_string(f.trace.size()) + " steps)")},
          {"threadFlows", std::move(threads)}};
}

}  // namespace

json toSarif(const std::vector<Finding>& findings, std::string_view tool_version) {
  json rules = json::array();
  std::map<std::string_view, int> index;
  for (const RuleInfo& r : allRules()) {
    index[r.id] = static_cast<int>(rules.size());
    rules.push_back({{"id", r.id},
                     {"shortDescription", {{"text", r.title}}},
                     {"fullDescription", {{"text", r.summary}}},
                     {"helpUri", fmt::format("docs/rules/{}.md", r.id)},
                     {"defaultConfiguration", {{"level", sarifLevel(r.severity)}}},
                     {"properties", {{"category", categoryName(r.category)}, {"owner", ruleOwnerName(r.owner)}}}});
  }
  json results = json::array();
  for (const Finding& f : findings) {
    json r = {{"ruleId", f.rule}, {"level", sarifLevel(f.severity)}, {"message", message(f.message)}};
    if (auto it = index.find(f.rule); it != index.end()) r["ruleIndex"] = it->second;
    r["locations"] = json::array({{{"physicalLocation", physicalLocation(f.range, f.range)}}});
    if (!f.notes.empty()) {
      json related = json::array();
      for (size_t i = 0; i < f.notes.size(); ++i)
        related.push_back({{"id", static_cast<int>(i)},
                           {"physicalLocation", physicalLocation(f.notes[i].range, f.range)},
                           {"message", message(f.notes[i].message)}});
      r["relatedLocations"] = std::move(related);
    }
    if (!f.trace.empty()) r["codeFlows"] = json::array({codeFlow(f)});
    json props = {{"category", categoryName(f.category)}};
    if (!f.verdict.empty()) props["verdict"] = f.verdict;
    if (!f.subject.empty()) props["subject"] = f.subject;
    if (!f.data.empty()) props["data"] = f.data;
    r["properties"] = std::move(props);
    results.push_back(std::move(r));
  }
  json driver = {{"name", "cake"}, {"version", tool_version}, {"rules", std::move(rules)}};
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", json::array({{{"tool", {{"driver", std::move(driver)}}},
                                 {"columnKind", "unicodeCodePoints"},
                                 {"results", std::move(results)}}})}};
}

}  // namespace cake::ir
