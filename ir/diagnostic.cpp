#include "ir/diagnostic.h"

#include <algorithm>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "ir/sarif.h"

namespace cake::ir {

bool DiagnosticSink::hasErrors() const { return errorCount() > 0; }

size_t DiagnosticSink::errorCount() const {
  return std::count_if(findings_.begin(), findings_.end(),
                       [](const Finding& f) { return f.severity == Severity::Error; });
}

Finding makeFinding(const RuleInfo& rule, SourceRange range, std::string message) {
  Finding f;
  f.rule = std::string(rule.id);
  f.severity = rule.severity;
  f.category = rule.category;
  f.message = std::move(message);
  f.range = std::move(range);
  return f;
}

Finding makeFinding(Rule rule, SourceRange range, std::string message) {
  return makeFinding(ruleInfo(rule), std::move(range), std::move(message));
}

// Length of a valid UTF-8 sequence starting at s[i], or 0 if invalid.
static size_t utf8SequenceLength(std::string_view s, size_t i) {
  unsigned char c = s[i];
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return 0;
  return n;
}

std::string printable(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (size_t i = 0; i < bytes.size();) {
    unsigned char c = bytes[i];
    size_t n = utf8SequenceLength(bytes, i);
    if (n == 1 && (c >= 0x20 && c != 0x7f)) {
      out += static_cast<char>(c);
    } else if (n == 1 && c == '\t') {
      out += ' ';
    } else if (n > 1) {
      out.append(bytes.substr(i, n));
    } else {
      out += fmt::format("\\x{:02x}", c);
      n = 1;
    }
    i += n;
  }
  return out;
}

std::string markupEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

// The caret line under a source line: spaces up to the column, then ^~~~.
// Columns count bytes; tabs are echoed so the caret stays aligned.
static std::string caretLine(std::string_view line, const SourceRange& r) {
  std::string out;
  int col = std::max(r.col, 1);
  for (int i = 1; i < col && i - 1 < static_cast<int>(line.size()); ++i)
    out += line[i - 1] == '\t' ? '\t' : ' ';
  out += '^';
  if (r.end_line == r.line && r.end_col > r.col + 1) out.append(r.end_col - r.col - 1, '~');
  return out;
}

// SourceFile::lineText scans from the start of the file; rendering one
// finding per line of a long file that way is quadratic (200,000 findings
// took minutes). Rendering indexes the line starts of the file it renders
// from once (per thread; the cache holds the file weakly, so a file that
// is gone is never mistaken for a new one at the same address).
static std::string_view indexedLineText(const SourceFilePtr& file, int line) {
  thread_local std::weak_ptr<const SourceFile> cached;
  thread_local std::vector<size_t> starts;
  if (cached.lock() != file) {
    cached = file;
    starts.assign(1, 0);
    for (size_t i = 0; i < file->text.size(); ++i)
      if (file->text[i] == '\n') starts.push_back(i + 1);
  }
  if (line < 1 || static_cast<size_t>(line) > starts.size()) return {};
  std::string_view t = file->text;
  size_t pos = starts[line - 1];
  size_t end = static_cast<size_t>(line) < starts.size() ? starts[line] - 1 : t.size();
  std::string_view out = t.substr(pos, end - pos);
  if (!out.empty() && out.back() == '\r') out.remove_suffix(1);
  return out;
}

static void renderLocated(std::string& out, const SourceRange& range, std::string_view severity,
                          std::string_view message, std::string_view suffix, bool color) {
  const char* bold = color ? "\033[1m" : "";
  const char* reset = color ? "\033[0m" : "";
  const char* sevColor = !color ? "" : severity == "error" ? "\033[1;31m" : severity == "warning" ? "\033[1;35m" : "\033[1;36m";
  out += fmt::format("{}{}:{} {}{}:{} {}{}{}\n", bold, range.str(), reset, sevColor, severity, reset,
                     printable(message), suffix.empty() ? "" : " ", suffix);
  if (range.valid() && range.file) {
    std::string_view line = indexedLineText(range.file, range.line);
    bool clean = printable(line) == line;  // only echo lines the caret can align under
    if (!line.empty() && clean) out += fmt::format("{}\n{}\n", line, caretLine(line, range));
  }
}

std::string traceStepText(const TraceStep& t) {
  std::string msg = t.role;
  if (t.instance >= 0) msg += fmt::format("[{}]", t.instance);
  if (!t.event.empty()) msg += " " + t.event;
  if (!t.op.empty()) msg += " " + t.op;
  std::vector<std::string> attrs;
  if (t.iteration) attrs.push_back(fmt::format("iter={}", *t.iteration));
  if (!t.barrier.empty()) attrs.push_back(fmt::format("barrier={}", t.barrier));
  if (t.slot >= 0) attrs.push_back(fmt::format("slot={}", t.slot));
  if (t.phase_meant) attrs.push_back(fmt::format("phase={}", *t.phase_meant));
  if (t.completed) attrs.push_back(fmt::format("completed={}", *t.completed));
  if (!t.buffer.empty()) attrs.push_back(fmt::format("buffer={}", t.buffer));
  if (!attrs.empty()) msg += fmt::format(" ({})", fmt::join(attrs, ", "));
  return msg;
}

static std::string stepLocation(const Finding& f, const TraceStep& t) {
  return t.range.valid() ? t.range.str() : (f.range.file ? f.range.file->name : "");
}

// Every step as "trace N: ..." (the full view).
static void renderFullTrace(std::string& out, const Finding& f) {
  for (size_t i = 0; i < f.trace.size(); ++i) {
    std::string msg = fmt::format("trace {}: {}", i + 1, traceStepText(f.trace[i]));
    out += fmt::format("{}: note: {}\n", stepLocation(f, f.trace[i]), printable(msg));
  }
}

// The relevant steps: a header that says how many of how many, then
// "trace N [kind(, violating)]: ..." per step (N is the step's number in
// the full trace) and "blocked [kind]: ..." per wait that never passed.
static void renderRelevantTrace(std::string& out, const Finding& f) {
  out += fmt::format("{}: note: relevant steps: {} of {}{} (--full-trace shows every step)\n", f.range.str(),
                     f.relevant.size(), f.trace.size(),
                     f.blocked.empty() ? "" : fmt::format(", {} blocked", f.blocked.size()));
  for (int i : f.relevant) {
    const TraceStep& t = f.trace[i];
    bool violating = std::find(f.violating.begin(), f.violating.end(), i) != f.violating.end();
    std::string msg = fmt::format("trace {} [{}{}]: {}", i + 1, stepKindName(t.kind), violating ? ", violating" : "",
                                  traceStepText(t));
    out += fmt::format("{}: note: {}\n", stepLocation(f, t), printable(msg));
  }
  for (const TraceStep& t : f.blocked) {
    std::string msg = fmt::format("blocked [{}]: {}", stepKindName(t.kind), traceStepText(t));
    out += fmt::format("{}: note: {}\n", stepLocation(f, t), printable(msg));
  }
}

std::string renderText(const Finding& f, bool color, bool full_trace) {
  std::string out;
  renderLocated(out, f.range, severityName(f.severity), f.message, fmt::format("[{}]", f.rule), color);
  for (const Note& n : f.notes) renderLocated(out, n.range, "note", n.message, "", color);
  if (full_trace || (f.relevant.empty() && f.blocked.empty())) renderFullTrace(out, f);
  else renderRelevantTrace(out, f);
  if (!f.verdict.empty()) out += fmt::format("{}: note: verdict: {}\n", f.range.str(), f.verdict);
  return out;
}

nlohmann::json toJson(const SourceRange& r) {
  nlohmann::json j;
  j["file"] = r.file ? r.file->name : "";
  if (r.valid()) {
    j["line"] = r.line;
    j["col"] = r.col;
    j["end_line"] = r.end_line;
    j["end_col"] = r.end_col;
  }
  return j;
}

nlohmann::json toJson(const TraceStep& t) {
  nlohmann::json j;
  j["kind"] = stepKindName(t.kind);
  if (!t.role.empty()) j["role"] = t.role;
  if (t.instance >= 0) j["instance"] = t.instance;
  if (!t.event.empty()) j["event"] = t.event;
  if (!t.op.empty()) j["op"] = t.op;
  if (t.range.valid()) j["location"] = toJson(t.range);
  if (t.iteration) j["iteration"] = *t.iteration;
  if (!t.barrier.empty()) j["barrier"] = t.barrier;
  if (t.slot >= 0) j["slot"] = t.slot;
  if (t.phase_meant) j["phase_meant"] = *t.phase_meant;
  if (t.completed) j["completed"] = *t.completed;
  if (!t.buffer.empty()) j["buffer"] = t.buffer;
  return j;
}

nlohmann::json toJson(const Finding& f) {
  nlohmann::json j;
  j["rule"] = f.rule;
  j["severity"] = severityName(f.severity);
  j["category"] = categoryName(f.category);
  j["message"] = f.message;
  j["location"] = toJson(f.range);
  j["notes"] = nlohmann::json::array();
  for (const Note& n : f.notes) j["notes"].push_back({{"message", n.message}, {"location", toJson(n.range)}});
  j["trace"] = nlohmann::json::array();
  for (const TraceStep& t : f.trace) j["trace"].push_back(toJson(t));
  // the slice (docs/traces.md): only where a trace was sliced
  if (!f.relevant.empty() || !f.blocked.empty()) {
    j["relevant"] = f.relevant;
    j["violating"] = f.violating;
    j["blocked"] = nlohmann::json::array();
    for (const TraceStep& t : f.blocked) j["blocked"].push_back(toJson(t));
  }
  if (!f.verdict.empty()) j["verdict"] = f.verdict;
  if (!f.subject.empty()) j["subject"] = f.subject;
  if (!f.data.empty()) j["data"] = f.data;
  return j;
}

std::string dumpJson(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace cake::ir
