#include "search/candidates.h"

#include <algorithm>

#include <fmt/format.h>

#include "gate/corpus_gate.h"
#include "gate/mutate.h"
#include "ir/ast.h"
#include "ir/frontend.h"
#include "lowering/lower.h"

namespace cake::search {

namespace {

// Byte offset of a 1-based line:column position.
size_t offsetOf(const std::string& text, int line, int col) {
  size_t off = 0;
  for (int l = 1; l < line && off < text.size(); ++l) {
    size_t nl = text.find('\n', off);
    off = nl == std::string::npos ? text.size() : nl + 1;
  }
  return std::min(text.size(), off + static_cast<size_t>(std::max(col, 1) - 1));
}

// The `def` of the named schedule (or the only one).
const ir::ast::Stmt* findDef(const ir::ast::Module& m, const std::string& name, std::string* error) {
  const ir::ast::Stmt* found = nullptr;
  for (const auto& s : m.body) {
    if (s->kind != ir::ast::Stmt::Kind::Def || s->decorators.empty()) continue;
    if (!name.empty() && s->target != name) continue;
    if (found) {
      *error = "the file holds several schedules; name one ('schedule' / --schedule)";
      return nullptr;
    }
    found = s.get();
  }
  if (!found) *error = name.empty() ? "no @cake.schedule function in the file" : fmt::format("no schedule named '{}'", name);
  return found;
}

// The lowered text without whole-line `//` comments: even without the
// explanatory comments, the header names the source file, which differs
// between candidates whose code is the same.
std::string codeOnly(const std::string& cu) {
  std::string out;
  size_t pos = 0;
  while (pos < cu.size()) {
    size_t nl = cu.find('\n', pos);
    size_t end = nl == std::string::npos ? cu.size() : nl + 1;
    size_t first = cu.find_first_not_of(" \t", pos);
    if (!(first < end && cu.compare(first, 2, "//") == 0)) out.append(cu, pos, end - pos);
    pos = end;
  }
  return out;
}

}  // namespace

std::string assignmentId(const Assignment& a) {
  std::string s;
  for (const auto& [k, v] : a) s += fmt::format("{}{}={}", s.empty() ? "" : ",", k, v);
  return s;
}

std::optional<std::string> instantiate(const std::string& text, const std::string& file_name,
                                       const std::string& schedule, const Assignment& values, std::string* error) {
  ir::DiagnosticSink sink;
  auto m = ir::ast::parse(ir::makeSourceFile(file_name, text), sink);
  if (!m) {
    *error = sink.findings().empty() ? "does not parse" : ir::renderText(sink.findings().front());
    return std::nullopt;
  }
  const ir::ast::Stmt* def = findDef(*m, schedule, error);
  if (!def) return std::nullopt;
  if (def->body.empty() || def->body.front()->range.line <= def->range.line) {
    *error = "the schedule's body must start on its own line";
    return std::nullopt;
  }
  struct Edit {
    size_t begin, end;
    std::string text;
  };
  std::vector<Edit> edits;
  const ir::ast::Stmt& first = *def->body.front();
  const size_t body_line = offsetOf(text, first.range.line, 1);
  const std::string indent(static_cast<size_t>(std::max(first.range.col - 1, 0)), ' ');
  std::string bindings;
  for (const auto& [name, value] : values) {
    auto it = std::find_if(def->params.begin(), def->params.end(), [&](const auto& p) { return p.name == name; });
    // params[0] is the builder `lm`, never a choice
    if (it == def->params.end() || it == def->params.begin() || !it->annotation || ir::ast::printExpr(*it->annotation) != "LM.i32") {
      *error = fmt::format("'{}' is not an LM.i32 parameter of schedule '{}'", name, def->target);
      return std::nullopt;
    }
    // Delete ", NAME: LM.i32" from the end of the previous parameter.
    const auto& prev = *(it - 1);
    const ir::SourceRange& prev_end = prev.annotation ? prev.annotation->range : prev.range;
    edits.push_back({offsetOf(text, prev_end.end_line, prev_end.end_col),
                     offsetOf(text, it->annotation->range.end_line, it->annotation->range.end_col), ""});
    bindings += fmt::format("{}{} = {}  # tune choice\n", indent, name, value);
  }
  edits.push_back({body_line, body_line, bindings});
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.begin > b.begin; });
  std::string out = text;
  for (const Edit& e : edits) out.replace(e.begin, e.end - e.begin, e.text);
  return out;
}

std::optional<std::vector<Candidate>> enumerateGrid(const std::string& text, const std::string& file_name,
                                                    const std::string& schedule, const std::vector<Choice>& choices,
                                                    std::string* error) {
  for (const Choice& c : choices)
    if (c.values.empty()) {
      *error = fmt::format("'{}' has no values", c.name);
      return std::nullopt;
    }
  std::vector<Candidate> out;
  std::vector<size_t> at(choices.size(), 0);
  while (true) {
    Candidate c;
    c.origin = "grid";
    for (size_t i = 0; i < choices.size(); ++i) c.params.emplace_back(choices[i].name, choices[i].values[at[i]]);
    c.id = assignmentId(c.params);
    c.file_name = fmt::format("{}[{}]", file_name, c.id);
    auto src = instantiate(text, file_name, schedule, c.params, error);
    if (!src) return std::nullopt;
    c.source = std::move(*src);
    out.push_back(std::move(c));
    size_t i = choices.size();
    while (i > 0 && ++at[i - 1] == choices[i - 1].values.size()) at[--i] = 0;
    if (i == 0) break;
  }
  return out;
}

std::optional<std::vector<Candidate>> enumerateMutants(const std::string& path, const std::string& text,
                                                       std::string* error) {
  checks::mutate::Original o{path, text};
  if (!checks::mutate::isEligible(o)) {
    *error = fmt::format("{}: mutation mode takes an accepted schedule (one that says `# expect: pass`)", path);
    return std::nullopt;
  }
  std::vector<Candidate> out;
  for (const auto& m : checks::mutate::enumerate(o, error)) {
    Candidate c;
    c.origin = "mutant";
    c.id = "mutant:" + m.relativePath();
    c.mutation = fmt::format("{} at line {}: {}", m.op, m.line, m.change);
    c.file_name = m.virtualPath();
    c.source = m.body;
    out.push_back(std::move(c));
  }
  if (out.empty() && error && !error->empty()) return std::nullopt;
  return out;
}

Prepared prepare(const Candidate& c, const std::string& schedule_name) {
  Prepared p;
  p.source_hash = checks::gate::contentHash(c.source);
  ir::DiagnosticSink sink;
  p.module = ir::compileModule(ir::makeSourceFile(c.file_name, c.source), {}, sink);
  if (!p.module) {
    p.front_end_error = sink.findings().empty() ? "does not compile" : ir::renderText(sink.findings().front());
    return p;
  }
  for (const auto& s : p.module->schedules)
    if (schedule_name.empty() || s.name == schedule_name) p.schedule = &s;
  if (!p.schedule) {
    p.front_end_error = "no such schedule";
    p.module.reset();
    return p;
  }
  // An assumption that folds to a constant mentions only the choices: false
  // means the template rules this point out (one that mentions a runtime
  // parameter such as K stays for the checker).
  for (const ir::Assume& a : p.schedule->assumes)
    if (auto v = ir::constValue(a.cond); v && *v == 0) {
      std::string_view line = a.range.file ? a.range.file->lineText(a.range.line) : "";
      while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
      p.excluded = fmt::format("{} (line {})", line, a.range.line);
      return p;
    }
  lowering::LowerOptions lo;
  lo.comments = false;   // comments quote the source: only the code decides sameness
  lowering::LowerResult lr = lowering::lowerToCuda(*p.schedule, lo);
  p.lowered = lr.ok;
  if (lr.ok) p.code_hash = checks::gate::contentHash(codeOnly(lr.source));
  else p.lower_error = lr.findings.empty() ? "does not lower" : ir::renderText(lr.findings.front());
  return p;
}

}  // namespace cake::search
