#include "gate/corpus_gate.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <fmt/format.h>

#include "gate/mutate.h"
#include "ir/frontend.h"

namespace cake::checks::gate {

namespace fs = std::filesystem;
using nlohmann::json;

// ================================================================ helpers

namespace {

std::string_view trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return s.substr(b, e - b);
}

std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) {
      if (start < text.size()) lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

// Rule ids: `group.name` in lower case, digits and '-', '_' (e.g. sync.deadlock).
bool isRuleId(std::string_view s) {
  if (s.empty() || s.front() == '.' || s.back() == '.') return false;
  bool dot = false;
  for (char c : s) {
    if (c == '.') { dot = true; continue; }
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) return false;
  }
  return dot;
}

// Words of an annotation value: split on spaces and commas.
std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == ',' || c == '\r') {
      if (!cur.empty()) out.push_back(std::move(cur)), cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

// The comment of a line: the text after the first '#' that is not inside a
// string literal, or npos.
size_t commentStart(std::string_view line) {
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      return i;
    }
  }
  return std::string_view::npos;
}

// "key: value" after '#', or nullopt. Key is matched case-sensitively.
std::optional<std::string_view> annotation(std::string_view comment, std::string_view key) {
  // comment starts at '#'
  std::string_view s = trim(comment.substr(1));
  if (s.substr(0, key.size()) != key) return std::nullopt;
  s = trim(s.substr(key.size()));
  if (s.empty() || s.front() != ':') return std::nullopt;
  return trim(s.substr(1));
}

void addUnique(std::vector<std::string>& v, const std::string& s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

bool isFrontendRule(std::string_view rule) {
  return rule.rfind("syntax.", 0) == 0 || rule.rfind("type.", 0) == 0;
}

std::string joinLines(const std::vector<int>& lines) {
  std::string s;
  for (size_t i = 0; i < lines.size(); ++i) s += (i ? ", " : "") + std::to_string(lines[i]);
  return s;
}

std::string describe(const Reported& r) {
  std::string s = r.rule;
  if (r.line > 0) s += fmt::format(" at line {}", r.line);
  if (!r.message.empty()) s += ": " + r.message;
  return s;
}

std::string htmlEscape(std::string_view s) { return ir::markupEscape(s); }

bool readFile(const std::string& path, std::string& out) {
  std::string error;
  auto f = ir::readSourceFile(path, error);
  if (!f) return false;
  out = f->text;
  return true;
}

bool writeFile(const std::string& path, const std::string& text, std::string& error) {
  std::error_code ec;
  fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    error = fmt::format("cannot write {}", path);
    return false;
  }
  out << text;
  out.flush();
  if (!out) {
    error = fmt::format("cannot write {}", path);
    return false;
  }
  return true;
}

}  // namespace

// =========================================================== expectations

std::vector<std::string> Expectation::requiredRules() const {
  std::set<std::string> s(rules.begin(), rules.end());
  for (const auto& [rule, ls] : lines) s.insert(rule);
  return {s.begin(), s.end()};
}

std::string Expectation::label() const {
  if (pass) return "pass";
  std::string s;
  for (const auto& r : requiredRules()) s += (s.empty() ? "" : "+") + r;
  if (!any_of.empty()) {
    std::string a = any_of.size() == 1 ? any_of[0] : "any(";
    if (any_of.size() > 1) {
      for (size_t i = 0; i < any_of.size(); ++i) a += (i ? "|" : "") + any_of[i];
      a += ")";
    }
    s += (s.empty() ? "" : "+") + a;
  }
  return s.empty() ? "none" : s;
}

Expectation parseExpectations(std::string_view text) {
  Expectation e;
  auto lines = splitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    const int lineno = static_cast<int>(i) + 1;
    std::string_view line = lines[i];
    size_t hash = commentStart(line);
    if (hash == std::string_view::npos) continue;
    std::string_view comment = line.substr(hash);
    const bool trailing = !trim(line.substr(0, hash)).empty();
    // `code  # a note  # expect-error: rule`: the annotation after another
    // comment is read too (it was silently ignored: an unread expectation)
    if (trailing)
      for (std::string_view mark : {"# expect-error:", "#expect-error:"})
        if (size_t at = comment.find(mark, 1); at != std::string_view::npos) {
          comment = comment.substr(at);
          break;
        }
    if (auto v = annotation(comment, "expect")) {
      auto ws = words(*v);
      if (ws.empty()) e.problems.push_back(fmt::format("line {}: `# expect:` without a value", lineno));
      for (const auto& w : ws) {
        if (w == "pass") e.pass = true;
        else if (isRuleId(w)) addUnique(e.rules, w);
        else e.problems.push_back(fmt::format("line {}: `{}` is not a rule id", lineno, w));
      }
    } else if (auto v = annotation(comment, "expect-error")) {
      if (!trailing) {
        e.problems.push_back(fmt::format(
            "line {}: `# expect-error:` must trail the source line it refers to", lineno));
        continue;
      }
      auto ws = words(*v);
      if (ws.empty()) e.problems.push_back(fmt::format("line {}: `# expect-error:` without a rule", lineno));
      for (const auto& w : ws) {
        if (!isRuleId(w)) {
          e.problems.push_back(fmt::format("line {}: `{}` is not a rule id", lineno, w));
          continue;
        }
        auto& ls = e.lines[w];
        if (std::find(ls.begin(), ls.end(), lineno) == ls.end()) ls.push_back(lineno);
      }
    } else if (auto v = annotation(comment, "may-also")) {
      for (const auto& w : words(*v)) {
        if (isRuleId(w)) addUnique(e.may_also, w);
        else e.problems.push_back(fmt::format("line {}: `{}` is not a rule id", lineno, w));
      }
    } else if (auto v = annotation(comment, "expect-any")) {
      auto ws = words(*v);
      if (ws.empty()) e.problems.push_back(fmt::format("line {}: `# expect-any:` without rules", lineno));
      for (const auto& w : ws) {
        if (isRuleId(w)) addUnique(e.any_of, w);
        else e.problems.push_back(fmt::format("line {}: `{}` is not a rule id", lineno, w));
      }
    }
  }
  if (e.pass && (!e.rules.empty() || !e.lines.empty() || !e.any_of.empty()))
    e.problems.push_back("`# expect: pass` together with expected rules");
  return e;
}

json toJson(const Expectation& e) {
  json j = json::object();
  if (e.pass) j["pass"] = true;
  if (!e.rules.empty()) j["rules"] = e.rules;
  if (!e.any_of.empty()) j["any_of"] = e.any_of;
  if (!e.lines.empty()) {
    json l = json::object();
    for (const auto& [rule, ls] : e.lines) l[rule] = ls;
    j["lines"] = l;
  }
  if (!e.problems.empty()) j["problems"] = e.problems;
  return j;
}

Expectation expectationFromJson(const json& j) {
  Expectation e;
  e.pass = j.value("pass", false);
  if (j.contains("rules")) e.rules = j.at("rules").get<std::vector<std::string>>();
  if (j.contains("any_of")) e.any_of = j.at("any_of").get<std::vector<std::string>>();
  if (j.contains("lines"))
    for (const auto& [rule, ls] : j.at("lines").items()) e.lines[rule] = ls.get<std::vector<int>>();
  if (j.contains("problems")) e.problems = j.at("problems").get<std::vector<std::string>>();
  return e;
}

ir::FrontendOptions frontendOptionsFor(std::string_view text) {
  ir::FrontendOptions fe;
  if (auto t = parseTargetAnnotation(text))
    if (auto target = ir::parseTarget(*t)) fe.target_override = *target;
  return fe;
}

std::optional<std::string> parseTargetAnnotation(std::string_view text) {
  for (std::string_view line : splitLines(text)) {
    std::string_view t = trim(line);
    if (t.empty() || t.front() != '#') continue;
    if (auto v = annotation(t, "target")) return std::string(*v);
  }
  return std::nullopt;
}

bool wantsProof(std::string_view text) {
  for (std::string_view line : splitLines(text)) {
    std::string_view t = trim(line);
    if (t.empty() || t.front() != '#') continue;
    if (auto v = annotation(t, "check")) return trim(*v) == "proof";
  }
  return false;
}

bool runsProof(std::string_view text) { return wantsProof(text) || parseExpectations(text).pass; }

// ================================================================ proofs

std::string proofKind(std::string_view detail) {
  auto has = [&](std::string_view s) { return detail.find(s) != std::string_view::npos; };
  // The wall clock first: a proof it cut may give any other reason on the
  // way out (a query cut short reads as "not shown"), so none is trusted.
  // The texts are encoder/proof_budget.cpp's ProofBudget::exhausted(),
  // encoder/trip_proof.cpp's state cap and steady-period search, and
  // checks/model_check.cpp's prove().
  if (has("wall-clock safety limit")) return "time-limit";
  if (has("work budget of")) return "work-budget";
  if (has("state cap of")) return "state-cap";
  if (has("no steady period")) return "no-steady-period";
  if (has("which no parameter values allowed by the lm.assume facts give")) return "outside-assumptions";
  if (has("proof: unknown (")) return "refused-shape";
  return "not-run";
}

bool deterministicProofMiss(std::string_view kind) { return kind != "time-limit"; }

ProofStatus proofStatus(const std::vector<std::pair<std::string, PropertyVerdict>>& verdicts) {
  ProofStatus first, det;
  for (const auto& [schedule, v] : verdicts) {
    if (v.kind != VerdictKind::Checked) continue;
    ProofStatus miss{proofKind(v.detail), fmt::format("{}: {}: checked: {}", schedule, v.property, v.detail)};
    if (first.kind.empty()) first = miss;
    if (det.kind.empty() && deterministicProofMiss(miss.kind)) det = miss;
  }
  if (!det.kind.empty()) return det;
  if (!first.kind.empty()) return first;
  return {"proved", ""};
}

std::optional<MutantHeader> parseMutantHeader(std::string_view text) {
  MutantHeader h;
  bool any = false;
  for (std::string_view line : splitLines(text)) {
    std::string_view t = trim(line);
    if (t.empty()) continue;
    if (t.front() != '#') break;   // the header is the leading comment block
    if (auto v = annotation(t, "mutant")) h.op = std::string(*v), any = true;
    else if (auto v = annotation(t, "original")) h.original = std::string(*v);
    else if (auto v = annotation(t, "line")) h.line = std::string(*v);
    else if (auto v = annotation(t, "label")) h.label = std::string(*v);
  }
  if (!any) return std::nullopt;
  return h;
}

// ================================================================= cases

std::string contentHash(std::string_view text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

std::vector<Case> discoverCases(const std::vector<std::string>& paths, std::vector<std::string>& errors) {
  std::set<std::string> files;
  for (const auto& p : paths) {
    std::error_code ec;
    fs::file_status st = fs::status(p, ec);
    if (ec || !fs::exists(st)) {
      errors.push_back(fmt::format("{}: no such file or directory", p));
      continue;
    }
    if (fs::is_directory(st)) {
      for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file() && it->path().extension() == ".cake")
          files.insert(it->path().lexically_normal().generic_string());
      }
      if (ec) errors.push_back(fmt::format("{}: {}", p, ec.message()));
    } else {
      files.insert(fs::path(p).lexically_normal().generic_string());
    }
  }
  std::vector<Case> cases;
  for (const auto& f : files) {
    Case c;
    c.path = f;
    if (!readFile(f, c.text)) {
      errors.push_back(fmt::format("{}: cannot read", f));
      continue;
    }
    c.hash = contentHash(c.text);
    cases.push_back(std::move(c));
  }
  return cases;
}

std::optional<Shard> parseShard(std::string_view s) {
  size_t slash = s.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  auto num = [](std::string_view t) -> std::optional<int> {
    if (t.empty() || t.size() > 6) return std::nullopt;
    int v = 0;
    for (char c : t) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + (c - '0');
    }
    return v;
  };
  auto i = num(s.substr(0, slash)), n = num(s.substr(slash + 1));
  if (!i || !n || *n < 1 || *i < 1 || *i > *n) return std::nullopt;
  return Shard{*i, *n};
}

bool inShard(std::string_view hash, const Shard& shard) {
  // Re-hash the hex digits: the low bits of FNV-1a are fine, but this keeps
  // the partition independent of how contentHash is spelled.
  uint64_t h = std::stoull(std::string(contentHash(hash)), nullptr, 16);
  return static_cast<int>(h % static_cast<uint64_t>(shard.count)) == shard.index - 1;
}

// =========================================================== observation

namespace {
// A bounded check with no error but an undecided property: the proof for
// every trip count is what can decide it.
bool boundedCheckUndecided(const CheckResult& r) {
  const bool errors = std::any_of(r.findings.begin(), r.findings.end(),
                                  [](const auto& f) { return f.severity == ir::Severity::Error; });
  const bool undecided = std::any_of(r.verdicts.begin(), r.verdicts.end(), [](const auto& v) {
    return v.kind == VerdictKind::Unknown || v.kind == VerdictKind::Error;
  });
  return undecided && !errors;
}
}  // namespace

Observation observe(const Case& c, const CheckOptions& base, bool proofs) {
  Observation obs;
  try {
    auto file = ir::makeSourceFile(c.path, c.text);
    ir::DiagnosticSink sink;
    ir::FrontendOptions fe = frontendOptionsFor(c.text);   // an unknown target: judge() says invalid
    auto module = ir::compileModule(file, fe, sink);
    for (const auto& f : sink.findings()) {
      if (f.severity == ir::Severity::Error)
        obs.frontend_errors.push_back({f.rule, f.range.line, f.message});
    }
    if (!module || !obs.frontend_errors.empty()) {
      obs.frontend_ok = false;
      if (obs.frontend_errors.empty())
        obs.frontend_errors.push_back({"syntax.error", 0, "the front end failed without a finding"});
      return obs;
    }
    // `cake check`'s proof (its default work budget: deterministic) on the
    // cases that need it; the others stop at the bounded check.
    const bool proof = base.proof_timeout_ms > 0 || (proofs ? runsProof(c.text) : wantsProof(c.text));
    std::vector<std::pair<std::string, PropertyVerdict>> verdicts;
    for (const auto& s : module->schedules) {
      CheckOptions opts = base;
      opts.target = s.target != ir::Target::Unspecified ? s.target : fe.target_override;
      if (proof && opts.proof_timeout_ms == 0) opts.proof_timeout_ms = CheckOptions{}.proof_timeout_ms;
      CheckResult r = checkSchedule(s, opts);
      if (!proof && runsProof(c.text) && boundedCheckUndecided(r)) {
        // Without --proofs a known-good case stops at the bounded check;
        // where that leaves a property undecided (a guard flip past the
        // values run, ...) only the proof decides it, as `cake check`
        // does by default and as the baseline's run (--proofs) did: run it
        // here too, so the two runs measure the same verdict.
        opts.proof_timeout_ms = CheckOptions{}.proof_timeout_ms;
        r = checkSchedule(s, opts);
      }
      for (const auto& f : r.findings)
        if (f.severity == ir::Severity::Error) obs.errors.push_back({f.rule, f.range.line, f.message});
      for (const auto& v : r.verdicts) {
        if (v.kind == VerdictKind::Unknown || v.kind == VerdictKind::Error)
          obs.undecided.push_back(fmt::format("{}: {}: {}{}", s.name, v.property, verdictName(v.kind),
                                              v.detail.empty() ? "" : " (" + v.detail + ")"));
        verdicts.emplace_back(s.name, v);
      }
    }
    if (proof && obs.errors.empty() && obs.undecided.empty()) obs.proof = proofStatus(verdicts);
  } catch (const std::exception& e) {
    obs.crash = e.what();
  } catch (...) {
    obs.crash = "unknown exception";
  }
  return obs;
}

std::map<std::string, std::pair<std::string, std::string>> unprovedInBaseline(const json& baseline) {
  std::map<std::string, std::pair<std::string, std::string>> out;
  if (!baseline.is_object() || !baseline.contains("cases") || !baseline.at("cases").is_object()) return out;
  for (const auto& [path, b] : baseline.at("cases").items()) {
    if (!b.is_object() || b.value("outcome", "") != "agree") continue;
    const std::string kind = b.value("proof", "");
    if (!kind.empty() && kind != "proved") out[path] = {b.value("hash", ""), kind};
  }
  return out;
}

// =============================================================== records

std::string_view outcomeName(Outcome o) {
  switch (o) {
    case Outcome::Agree: return "agree";
    case Outcome::FalsePositive: return "false-positive";
    case Outcome::FalseNegative: return "false-negative";
    case Outcome::Unknown: return "unknown";
    case Outcome::Unsupported: return "unsupported";
    case Outcome::Invalid: return "invalid";
  }
  return "invalid";
}

std::optional<Outcome> parseOutcome(std::string_view s) {
  for (Outcome o : {Outcome::Agree, Outcome::FalsePositive, Outcome::FalseNegative, Outcome::Unknown,
                    Outcome::Unsupported, Outcome::Invalid})
    if (outcomeName(o) == s) return o;
  return std::nullopt;
}

json toJson(const CaseRecord& r, bool with_time) {
  json j;
  j["type"] = "case";
  j["path"] = r.path;
  j["hash"] = r.hash;
  j["kind"] = r.kind;
  j["expect"] = toJson(r.expect);
  j["label"] = r.expect.label();
  if (r.mutant) {
    j["mutant"] = {{"op", r.mutant->op}, {"original", r.mutant->original},
                   {"line", r.mutant->line}, {"label", r.mutant->label}};
  }
  j["outcome"] = outcomeName(r.outcome);
  j["reason"] = r.reason;
  json rep = json::array();
  for (const auto& x : r.reported) rep.push_back({{"rule", x.rule}, {"line", x.line}, {"message", x.message}});
  j["reported"] = rep;
  if (!r.undecided.empty()) j["undecided"] = r.undecided;
  if (!r.proof.kind.empty()) {
    j["proof"] = r.proof.kind;
    if (!r.proof.detail.empty()) j["proof_detail"] = r.proof.detail;
  }
  if (with_time) j["time_ms"] = std::round(r.time_ms * 1000.0) / 1000.0;
  return j;
}

CaseRecord recordFromJson(const json& j) {
  CaseRecord r;
  r.path = j.at("path").get<std::string>();
  r.hash = j.at("hash").get<std::string>();
  r.kind = j.value("kind", "corpus");
  r.expect = expectationFromJson(j.at("expect"));
  if (j.contains("mutant")) {
    const auto& m = j.at("mutant");
    r.mutant = MutantHeader{m.value("op", ""), m.value("original", ""), m.value("line", ""), m.value("label", "")};
  }
  auto o = parseOutcome(j.at("outcome").get<std::string>());
  if (!o) throw std::runtime_error("unknown outcome " + j.at("outcome").get<std::string>());
  r.outcome = *o;
  r.reason = j.value("reason", "");
  for (const auto& x : j.at("reported"))
    r.reported.push_back({x.at("rule").get<std::string>(), x.value("line", 0), x.value("message", "")});
  if (j.contains("undecided")) r.undecided = j.at("undecided").get<std::vector<std::string>>();
  r.proof = {j.value("proof", ""), j.value("proof_detail", "")};
  r.time_ms = j.value("time_ms", 0.0);
  return r;
}

namespace {

// Does `reported` satisfy the expectation? Fills `why` with the first unmet part.
bool satisfied(const Expectation& e, const std::vector<Reported>& reported, std::string& why) {
  auto has = [&](const std::string& rule) {
    auto it = e.lines.find(rule);
    for (const auto& r : reported) {
      if (r.rule != rule) continue;
      if (it == e.lines.end()) return true;
      if (std::find(it->second.begin(), it->second.end(), r.line) != it->second.end()) return true;
    }
    return false;
  };
  for (const auto& rule : e.requiredRules()) {
    if (!has(rule)) {
      auto it = e.lines.find(rule);
      why = it == e.lines.end() ? fmt::format("expected {}", rule)
                                : fmt::format("expected {} at line {}", rule, joinLines(it->second));
      return false;
    }
  }
  if (!e.any_of.empty() && std::none_of(e.any_of.begin(), e.any_of.end(), has)) {
    why = fmt::format("expected one of {}", fmt::join(e.any_of, ", "));
    return false;
  }
  return true;
}

}  // namespace

CaseRecord judge(const Case& c, const Observation& obs, double time_ms) {
  CaseRecord r;
  r.path = c.path;
  r.hash = c.hash;
  r.expect = parseExpectations(c.text);
  if (auto t = parseTargetAnnotation(c.text); t && !ir::parseTarget(*t))
    r.expect.problems.push_back(fmt::format("`# target: {}` is not a target (sm_80, sm_90a, sm_100a)", *t));
  r.mutant = parseMutantHeader(c.text);
  r.kind = r.mutant ? "mutant" : "corpus";
  r.time_ms = time_ms;
  r.undecided = obs.undecided;
  r.reported = obs.frontend_ok ? obs.errors : obs.frontend_errors;
  std::sort(r.reported.begin(), r.reported.end());
  r.reported.erase(std::unique(r.reported.begin(), r.reported.end()), r.reported.end());

  if (r.expect.empty() || !r.expect.problems.empty()) {
    r.outcome = Outcome::Invalid;
    r.reason = r.expect.empty() ? "no expectation (`# expect: pass` or `# expect: <rule>`)"
                                : fmt::format("{}", fmt::join(r.expect.problems, "; "));
    return r;
  }
  if (!obs.crash.empty()) {
    r.outcome = Outcome::Unknown;
    r.reason = "crash: " + obs.crash;
    return r;
  }
  std::string why;
  const bool ok = satisfied(r.expect, r.reported, why);
  const auto required = r.expect.requiredRules();
  const bool expects_frontend =
      std::any_of(required.begin(), required.end(), isFrontendRule) ||
      std::any_of(r.expect.any_of.begin(), r.expect.any_of.end(), isFrontendRule);

  if (!obs.frontend_ok) {
    if (!r.expect.pass && ok) {
      r.outcome = Outcome::Agree;
      r.reason = "front end: " + describe(r.reported.front());
    } else if (expects_frontend) {
      r.outcome = Outcome::FalseNegative;
      r.reason = fmt::format("wrong rule: front end reported {}; {}", describe(r.reported.front()), why);
    } else {
      r.outcome = Outcome::Unsupported;
      r.reason = "front end: " + describe(r.reported.front());
    }
    return r;
  }

  if (r.expect.pass) {
    if (!r.reported.empty()) {
      r.outcome = Outcome::FalsePositive;
      r.reason = "rejected: " + describe(r.reported.front());
    } else if (!r.undecided.empty()) {
      r.outcome = Outcome::Unknown;
      r.reason = "undecided: " + r.undecided.front();
    } else {
      r.outcome = Outcome::Agree;
      if (obs.proof) r.proof = *obs.proof;
    }
    return r;
  }

  if (ok) {
    r.outcome = Outcome::Agree;
    std::vector<std::string> rs;
    for (const auto& x : r.reported) addUnique(rs, x.rule);
    r.reason = fmt::format("reported {}", fmt::join(rs, ", "));
  } else if (!r.undecided.empty()) {
    r.outcome = Outcome::Unknown;
    r.reason = fmt::format("undecided: {}; {}", r.undecided.front(), why);
  } else if (r.reported.empty()) {
    r.outcome = Outcome::FalseNegative;
    r.reason = fmt::format("accepted: no error; {}", why);
  } else {
    r.outcome = Outcome::FalseNegative;
    r.reason = fmt::format("wrong rule: reported {}; {}", describe(r.reported.front()), why);
  }
  return r;
}

// ================================================================ report

void Tally::add(Outcome o) {
  ++cases;
  switch (o) {
    case Outcome::Agree: ++agree; break;
    case Outcome::FalsePositive: ++fp; break;
    case Outcome::FalseNegative: ++fn; break;
    case Outcome::Unknown: ++unknown; break;
    case Outcome::Unsupported: ++unsupported; break;
    case Outcome::Invalid: ++invalid; break;
  }
}

namespace {

// The confusion rows of a case: "pass", or each required rule, or (for an
// any-of expectation) the rule the checks matched, else the labeller's first.
std::vector<std::string> rowLabels(const CaseRecord& r) {
  if (r.expect.pass) return {"pass"};
  std::vector<std::string> rows = r.expect.requiredRules();
  if (!r.expect.any_of.empty()) {
    std::string row = r.expect.any_of.front();
    for (const auto& a : r.expect.any_of) {
      if (std::any_of(r.reported.begin(), r.reported.end(), [&](const Reported& x) { return x.rule == a; })) {
        row = a;
        break;
      }
    }
    addUnique(rows, row);
  }
  return rows;
}

std::string observedLabel(const CaseRecord& r, const std::string& row) {
  switch (r.outcome) {
    case Outcome::Agree: return row;
    case Outcome::Unknown: return "unknown";
    case Outcome::Unsupported: return "unsupported";
    case Outcome::Invalid: return "invalid";
    default: break;
  }
  if (r.reported.empty()) return "pass";
  for (const auto& x : r.reported)
    if (x.rule == row) return row + " (other line)";
  return r.reported.front().rule;
}

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  if (rank == 0) rank = 1;
  return sorted[std::min(rank, sorted.size()) - 1];
}

}  // namespace

Report buildReport(std::vector<CaseRecord> records) {
  Report rep;
  std::map<std::string, CaseRecord> by_path;
  for (auto& r : records) by_path[r.path] = std::move(r);
  for (auto& [path, r] : by_path) rep.cases.push_back(std::move(r));

  std::vector<double> times;
  for (const auto& r : rep.cases) {
    rep.total.add(r.outcome);
    rep.by_kind[r.kind].add(r.outcome);
    times.push_back(r.time_ms);
    rep.total_ms += r.time_ms;
    if (!r.proof.kind.empty()) {
      ++rep.proofs[r.proof.kind];
      ++rep.proofs_by_kind[r.kind][r.proof.kind];
    }
    if (r.outcome == Outcome::Invalid) continue;
    const auto rows = rowLabels(r);
    for (const auto& row : rows) {
      RuleRow& rr = rep.rules[row];
      ++rr.expected;
      const std::string obs = observedLabel(r, row);
      ++rep.confusion[row][obs];
      switch (r.outcome) {
        case Outcome::Agree: ++rr.agreed; break;
        case Outcome::Unknown: ++rr.unknown; break;
        case Outcome::Unsupported: ++rr.unsupported; break;
        case Outcome::FalsePositive: ++rr.wrong; break;   // row "pass"
        case Outcome::FalseNegative: (r.reported.empty() ? rr.accepted : rr.wrong)++; break;
        case Outcome::Invalid: break;
      }
    }
    std::set<std::string> spurious;
    for (const auto& x : r.reported)
      if (std::find(rows.begin(), rows.end(), x.rule) == rows.end() &&
          std::find(r.expect.any_of.begin(), r.expect.any_of.end(), x.rule) == r.expect.any_of.end())
        spurious.insert(x.rule);
    for (const auto& s : spurious) ++rep.rules[s].spurious;
  }
  std::sort(times.begin(), times.end());
  rep.median_ms = percentile(times, 0.5);
  rep.p95_ms = percentile(times, 0.95);
  rep.max_ms = times.empty() ? 0 : times.back();
  return rep;
}

namespace {

json tallyJson(const Tally& t) {
  return {{"cases", t.cases},           {"agree", t.agree},   {"false_positives", t.fp},
          {"false_negatives", t.fn},     {"unknown", t.unknown}, {"unsupported", t.unsupported},
          {"invalid", t.invalid}};
}

json regressionsJson(const std::vector<Regression>& v) {
  json a = json::array();
  for (const auto& x : v) {
    json e = {{"path", x.path}, {"was", x.was}, {"now", x.now}};
    if (!x.detail.empty()) e["detail"] = x.detail;
    a.push_back(std::move(e));
  }
  return a;
}

int provedOf(const ProofCounts& c) {
  auto it = c.find("proved");
  return it == c.end() ? 0 : it->second;
}

int casesOf(const ProofCounts& c) {
  int n = 0;
  for (const auto& [k, v] : c) n += v;
  return n;
}

// "2 work-budget, 1 state-cap" (the misses, most first).
std::string missesText(const ProofCounts& c) {
  std::vector<std::pair<int, std::string>> v;
  for (const auto& [k, n] : c)
    if (k != "proved") v.emplace_back(-n, k);
  std::sort(v.begin(), v.end());
  std::string out;
  for (const auto& [n, k] : v) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", -n, k);
  return out.empty() ? "none" : out;
}

}  // namespace

json reportJson(const Report& r, bool deterministic) {
  json j;
  j["tool"] = "cake corpus";
  j["format"] = 1;
  j["summary"] = tallyJson(r.total);
  j["gate"] = r.gateFailed() ? "fail" : "pass";
  json kinds = json::object();
  for (const auto& [k, t] : r.by_kind) kinds[k] = tallyJson(t);
  j["by_kind"] = kinds;
  json rules = json::object();
  for (const auto& [rule, row] : r.rules)
    rules[rule] = {{"expected", row.expected}, {"agreed", row.agreed},   {"accepted", row.accepted},
                   {"wrong", row.wrong},       {"unknown", row.unknown}, {"unsupported", row.unsupported},
                   {"spurious", row.spurious}};
  j["rules"] = rules;
  json conf = json::object();
  for (const auto& [row, cols] : r.confusion) conf[row] = cols;
  j["confusion"] = conf;
  j["proofs_run"] = r.proofs_run;
  if (!r.proofs.empty()) {
    json by = json::object();
    for (const auto& [k, c] : r.proofs_by_kind) by[k] = c;
    j["proofs"] = {{"total", r.proofs}, {"by_kind", by}};
  }
  if (r.baseline_checked) {
    j["baseline"] = {{"regressions", regressionsJson(r.regressions)},
                     {"improvements", regressionsJson(r.improvements)},
                     {"proof_regressions", regressionsJson(r.proof_regressions)},
                     {"proof_warnings", regressionsJson(r.proof_warnings)},
                     {"proof_improvements", regressionsJson(r.proof_improvements)}};
  }
  if (!r.notes.empty()) j["notes"] = r.notes;
  json cases = json::array();
  for (const auto& c : r.cases) {
    json cj = toJson(c, !deterministic);
    cj.erase("type");
    cases.push_back(std::move(cj));
  }
  j["cases"] = cases;
  if (!deterministic) {
    j["timings"] = {{"median_ms", r.median_ms}, {"p95_ms", r.p95_ms}, {"max_ms", r.max_ms},
                    {"total_ms", std::round(r.total_ms * 1000.0) / 1000.0}};
  }
  return j;
}

namespace {

std::vector<const CaseRecord*> withOutcome(const Report& r, Outcome o) {
  std::vector<const CaseRecord*> v;
  for (const auto& c : r.cases)
    if (c.outcome == o) v.push_back(&c);
  return v;
}

constexpr Outcome kListed[] = {Outcome::FalsePositive, Outcome::FalseNegative, Outcome::Invalid,
                               Outcome::Unknown, Outcome::Unsupported};

std::string sectionTitle(Outcome o) {
  switch (o) {
    case Outcome::FalsePositive: return "false positives (known-good rejected)";
    case Outcome::FalseNegative: return "false negatives (known-bad accepted or wrong rule)";
    case Outcome::Unknown: return "unknown (not decided)";
    case Outcome::Unsupported: return "unsupported (front-end error)";
    case Outcome::Invalid: return "invalid (no or malformed expectation)";
    default: return "";
  }
}

std::string fmtMs(double ms) {
  if (ms >= 10000) return fmt::format("{:.1f} s", ms / 1000.0);
  if (ms >= 100) return fmt::format("{:.0f} ms", ms);
  return fmt::format("{:.1f} ms", ms);
}

}  // namespace

std::string renderTextReport(const Report& r, bool with_timings, int max_listed) {
  std::string out;
  auto kindCount = [&](const char* k) {
    auto it = r.by_kind.find(k);
    return it == r.by_kind.end() ? 0 : it->second.cases;
  };
  out += fmt::format("cake corpus: {} cases ({} corpus, {} mutants)\n", r.total.cases, kindCount("corpus"),
                     kindCount("mutant"));
  out += fmt::format("  agree             {:6}\n", r.total.agree);
  out += fmt::format("  false positives   {:6}\n", r.total.fp);
  out += fmt::format("  false negatives   {:6}\n", r.total.fn);
  out += fmt::format("  unknown           {:6}\n", r.total.unknown);
  out += fmt::format("  unsupported       {:6}\n", r.total.unsupported);
  if (r.total.invalid) out += fmt::format("  invalid           {:6}\n", r.total.invalid);
  if (r.by_kind.size() > 1) {
    for (const auto& [k, t] : r.by_kind)
      out += fmt::format("  {:<8} {} cases: {} agree, {} FP, {} FN, {} unknown, {} unsupported\n", k + ":", t.cases,
                         t.agree, t.fp, t.fn, t.unknown, t.unsupported);
  }
  if (!r.proofs.empty()) {
    out += fmt::format("proofs: {} of {} known-good cases{} proved (not proved: {})\n", provedOf(r.proofs),
                       casesOf(r.proofs), r.proofs_run ? "" : " marked `# check: proof`", missesText(r.proofs));
    if (r.proofs_by_kind.size() > 1)
      for (const auto& [k, c] : r.proofs_by_kind)
        out += fmt::format("  {:<8} {} of {} proved\n", k + ":", provedOf(c), casesOf(c));
  }
  if (with_timings)
    out += fmt::format("check time per case: median {}, p95 {}, max {} (total {})\n", fmtMs(r.median_ms),
                       fmtMs(r.p95_ms), fmtMs(r.max_ms), fmtMs(r.total_ms));

  if (!r.rules.empty()) {
    size_t w = 4;
    for (const auto& [rule, row] : r.rules) w = std::max(w, rule.size());
    out += fmt::format("\n{:<{}}  {:>8} {:>6} {:>8} {:>5} {:>7} {:>6} {:>8}\n", "rule", w, "expected", "agreed",
                       "accepted", "wrong", "unknown", "unsup", "spurious");
    for (const auto& [rule, row] : r.rules)
      out += fmt::format("{:<{}}  {:>8} {:>6} {:>8} {:>5} {:>7} {:>6} {:>8}\n", rule, w, row.expected, row.agreed,
                         row.accepted, row.wrong, row.unknown, row.unsupported, row.spurious);
    bool header = false;
    for (const auto& [row, cols] : r.confusion) {
      std::string off;
      for (const auto& [col, n] : cols)
        if (col != row) off += fmt::format("{}{} {}", off.empty() ? "" : ", ", col, n);
      if (off.empty()) continue;
      if (!header) out += "\nconfusion (expected -> observed, disagreements only):\n", header = true;
      auto it = cols.find(row);
      out += fmt::format("  {}: {} agree; {}\n", row, it == cols.end() ? 0 : it->second, off);
    }
  }

  for (Outcome o : kListed) {
    auto v = withOutcome(r, o);
    if (v.empty()) continue;
    out += fmt::format("\n{}: {}\n", sectionTitle(o), v.size());
    int n = 0;
    for (const auto* c : v) {
      if (max_listed >= 0 && n++ >= max_listed) {
        out += fmt::format("  ... {} more (see the JSON report)\n", v.size() - static_cast<size_t>(max_listed));
        break;
      }
      out += fmt::format("  {}: {}\n", c->path, c->reason);
    }
  }
  if (r.baseline_checked) {
    out += fmt::format("\nbaseline: {} regressions, {} improvements\n", r.regressions.size(),
                       r.improvements.size());
    for (const auto& x : r.regressions) out += fmt::format("  regression {}: {} -> {}\n", x.path, x.was, x.now);
    for (const auto& x : r.improvements) out += fmt::format("  improvement {}: {} -> {}\n", x.path, x.was, x.now);
    if (!r.proofs_run) out += "proofs against the baseline: not run (--proofs runs them)\n";
    else out += fmt::format("proofs against the baseline: {} regressions, {} warnings (wall-clock limit), {} improvements\n",
                       r.proof_regressions.size(), r.proof_warnings.size(), r.proof_improvements.size());
    for (const auto& x : r.proof_regressions)
      out += fmt::format("  proof regression {}: {} -> {} ({})\n", x.path, x.was, x.now, x.detail);
    for (const auto& x : r.proof_warnings)
      out += fmt::format("  proof warning {}: {} -> {}, the wall-clock safety limit (the machine's load; not a "
                         "failure) ({})\n",
                         x.path, x.was, x.now, x.detail);
    for (const auto& x : r.proof_improvements)
      out += fmt::format("  proof improvement {}: {} -> {}\n", x.path, x.was, x.now);
  }
  for (const auto& n : r.notes) out += fmt::format("note: {}\n", n);
  std::vector<std::string> why;
  if (r.total.fp) why.push_back(fmt::format("{} false positives", r.total.fp));
  if (r.total.fn) why.push_back(fmt::format("{} false negatives", r.total.fn));
  if (r.total.invalid) why.push_back(fmt::format("{} invalid cases", r.total.invalid));
  if (!r.regressions.empty()) why.push_back(fmt::format("{} regressions", r.regressions.size()));
  if (!r.proof_regressions.empty()) why.push_back(fmt::format("{} proof regressions", r.proof_regressions.size()));
  if (r.incomplete) why.push_back("an incomplete merge");
  out += r.gateFailed() ? fmt::format("\ngate: FAIL ({})\n", fmt::join(why, ", ")) : "\ngate: pass\n";
  return out;
}

std::string renderHtmlReport(const Report& r) {
  std::string h;
  h += R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>cake corpus report</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f3f3f3}td.l,th.l{text-align:left}.fail{color:#b00;font-weight:bold}.pass{color:#070;font-weight:bold}
tr.false-positive td,tr.false-negative td,tr.invalid td{background:#fde8e8}tr.unknown td{background:#fff6d6}
tr.unsupported td{background:#eef}td.diag{background:#e6f4e6}code{font-size:12px}
</style></head><body>
<h1>cake corpus report</h1>
)";
  h += fmt::format("<p>Gate: <span class=\"{}\">{}</span></p>\n", r.gateFailed() ? "fail" : "pass",
                   r.gateFailed() ? "FAIL" : "pass");
  h += "<h2>Summary</h2>\n<table><tr><th class=l>kind</th><th>cases</th><th>agree</th><th>false positives</th>"
       "<th>false negatives</th><th>unknown</th><th>unsupported</th><th>invalid</th></tr>\n";
  auto row = [&](const std::string& k, const Tally& t) {
    h += fmt::format("<tr><td class=l>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
                     "<td>{}</td></tr>\n",
                     htmlEscape(k), t.cases, t.agree, t.fp, t.fn, t.unknown, t.unsupported, t.invalid);
  };
  for (const auto& [k, t] : r.by_kind) row(k, t);
  row("total", r.total);
  h += "</table>\n";
  h += fmt::format("<p>Check time per case: median {}, p95 {}, max {}, total {}.</p>\n", fmtMs(r.median_ms),
                   fmtMs(r.p95_ms), fmtMs(r.max_ms), fmtMs(r.total_ms));
  if (!r.proofs.empty()) {
    h += "<h2>Proofs (known-good cases that agree)</h2>\n<table><tr><th class=l>kind</th><th>cases</th>"
         "<th>proved</th><th class=l>not proved</th></tr>\n";
    for (const auto& [k, c] : r.proofs_by_kind)
      h += fmt::format("<tr><td class=l>{}</td><td>{}</td><td>{}</td><td class=l>{}</td></tr>\n", htmlEscape(k),
                       casesOf(c), provedOf(c), htmlEscape(missesText(c)));
    h += fmt::format("<tr><td class=l>total</td><td>{}</td><td>{}</td><td class=l>{}</td></tr>\n</table>\n",
                     casesOf(r.proofs), provedOf(r.proofs), htmlEscape(missesText(r.proofs)));
  }

  h += "<h2>Per rule</h2>\n<table><tr><th class=l>rule</th><th>expected</th><th>agreed</th><th>accepted</th>"
       "<th>wrong</th><th>unknown</th><th>unsupported</th><th>spurious</th></tr>\n";
  for (const auto& [rule, x] : r.rules)
    h += fmt::format("<tr><td class=l>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
                     "<td>{}</td></tr>\n",
                     htmlEscape(rule), x.expected, x.agreed, x.accepted, x.wrong, x.unknown, x.unsupported,
                     x.spurious);
  h += "</table>\n";

  std::set<std::string> cols;
  for (const auto& [rowl, cs] : r.confusion)
    for (const auto& [c, n] : cs) cols.insert(c);
  h += "<h2>Confusion (rows: expected, columns: observed)</h2>\n<table><tr><th class=l></th>";
  for (const auto& c : cols) h += "<th>" + htmlEscape(c) + "</th>";
  h += "</tr>\n";
  for (const auto& [rowl, cs] : r.confusion) {
    h += "<tr><td class=l>" + htmlEscape(rowl) + "</td>";
    for (const auto& c : cols) {
      auto it = cs.find(c);
      h += fmt::format("<td{}>{}</td>", c == rowl ? " class=diag" : "",
                       it == cs.end() ? std::string() : std::to_string(it->second));
    }
    h += "</tr>\n";
  }
  h += "</table>\n";

  if (r.baseline_checked) {
    h += fmt::format("<h2>Baseline</h2>\n<p>{} regressions, {} improvements.</p>\n", r.regressions.size(),
                     r.improvements.size());
    if (!r.regressions.empty() || !r.improvements.empty()) {
      h += "<table><tr><th class=l>case</th><th class=l>was</th><th class=l>now</th></tr>\n";
      for (const auto* v : {&r.regressions, &r.improvements})
        for (const auto& x : *v)
          h += fmt::format("<tr><td class=l>{}</td><td class=l>{}</td><td class=l>{}</td></tr>\n",
                           htmlEscape(x.path), htmlEscape(x.was), htmlEscape(x.now));
      h += "</table>\n";
    }
    h += fmt::format("<p>Proofs: {} regressions, {} warnings (wall-clock limit), {} improvements.</p>\n",
                     r.proof_regressions.size(), r.proof_warnings.size(), r.proof_improvements.size());
    if (!r.proof_regressions.empty() || !r.proof_warnings.empty() || !r.proof_improvements.empty()) {
      h += "<table><tr><th class=l>case</th><th class=l></th><th class=l>was</th><th class=l>now</th>"
           "<th class=l>why</th></tr>\n";
      const std::pair<const char*, const std::vector<Regression>*> lists[] = {
          {"regression", &r.proof_regressions}, {"warning", &r.proof_warnings}, {"improvement", &r.proof_improvements}};
      for (const auto& [what, v] : lists)
        for (const auto& x : *v)
          h += fmt::format("<tr><td class=l>{}</td><td class=l>{}</td><td class=l>{}</td><td class=l>{}</td>"
                           "<td class=l>{}</td></tr>\n",
                           htmlEscape(x.path), what, htmlEscape(x.was), htmlEscape(x.now), htmlEscape(x.detail));
      h += "</table>\n";
    }
  }
  for (const auto& n : r.notes) h += "<p>Note: " + htmlEscape(n) + "</p>\n";

  h += "<h2>Cases</h2>\n<p>Disagreements first.</p>\n<table><tr><th class=l>case</th><th class=l>kind</th>"
       "<th class=l>expected</th><th class=l>outcome</th><th class=l>reason</th><th>time</th></tr>\n";
  std::vector<const CaseRecord*> order;
  for (Outcome o : kListed)
    for (const auto* c : withOutcome(r, o)) order.push_back(c);
  for (const auto* c : withOutcome(r, Outcome::Agree)) order.push_back(c);
  for (const auto* c : order) {
    std::string extra;
    if (c->mutant)
      extra = fmt::format("<br><small>{} of {} at {}; label: {}</small>", htmlEscape(c->mutant->op),
                          htmlEscape(c->mutant->original), htmlEscape(c->mutant->line),
                          htmlEscape(c->mutant->label));
    h += fmt::format(
        "<tr class=\"{}\"><td class=l><code>{}</code>{}</td><td class=l>{}</td><td class=l>{}</td><td "
        "class=l>{}</td><td class=l>{}</td><td>{}</td></tr>\n",
        outcomeName(c->outcome), htmlEscape(c->path), extra, htmlEscape(c->kind), htmlEscape(c->expect.label()),
        outcomeName(c->outcome), htmlEscape(c->reason), fmtMs(c->time_ms));
  }
  h += "</table>\n</body></html>\n";
  return h;
}

// =============================================================== baseline

json makeBaseline(const Report& r) {
  json cases = json::object();
  for (const auto& c : r.cases) {
    cases[c.path] = {{"hash", c.hash}, {"expect", c.expect.label()}, {"outcome", outcomeName(c.outcome)}};
    if (!c.proof.kind.empty()) cases[c.path]["proof"] = c.proof.kind;
  }
  return {{"format", 1}, {"tool", "cake corpus"}, {"cases", cases}};
}

void compareBaseline(Report& r, const json& baseline, const std::function<bool(const std::string&)>& in_scope) {
  r.baseline_checked = true;
  r.regressions.clear();
  r.improvements.clear();
  r.proof_regressions.clear();
  r.proof_warnings.clear();
  r.proof_improvements.clear();
  std::map<std::string, const CaseRecord*> now;
  for (const auto& c : r.cases) now[c.path] = &c;
  if (!baseline.contains("cases") || !baseline.at("cases").is_object()) return;
  for (const auto& [path, b] : baseline.at("cases").items()) {
    if (in_scope && !in_scope(path)) continue;
    const std::string was = b.value("outcome", "");
    auto it = now.find(path);
    const std::string cur = it == now.end() ? "missing" : std::string(outcomeName(it->second->outcome));
    if (was == "agree" && cur != "agree") r.regressions.push_back({path, was, cur, ""});
    else if (was != "agree" && cur == "agree") r.improvements.push_back({path, was, cur, ""});
    // Proofs: only where the proof ran now (a case that no longer agrees
    // is a regression above).
    if (it == now.end() || it->second->proof.kind.empty()) continue;
    const ProofStatus& p = it->second->proof;
    const std::string was_proof = b.value("proof", "none");
    if (was_proof == "proved" && p.kind != "proved")
      (deterministicProofMiss(p.kind) ? r.proof_regressions : r.proof_warnings).push_back({path, was_proof, p.kind, p.detail});
    else if (was_proof != "proved" && p.kind == "proved")
      r.proof_improvements.push_back({path, was_proof, p.kind, ""});
  }
}

// ============================================================= JSON Lines

json toJson(const RunHeader& h) {
  return {{"type", "run"},
          {"tool", "cake corpus"},
          {"shard", fmt::format("{}/{}", h.shard.index, h.shard.count)},
          {"universe", h.universe},
          {"universe_hash", h.universe_hash},
          {"proofs", h.proofs}};
}

JsonlContents readJsonl(const std::vector<std::string>& files) {
  JsonlContents out;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      out.errors.push_back(fmt::format("{}: cannot read", f));
      continue;
    }
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (trim(line).empty()) continue;
      try {
        json j = json::parse(line);
        const std::string type = j.value("type", "case");
        if (type == "run") {
          RunHeader h;
          auto s = parseShard(j.value("shard", "1/1"));
          if (s) h.shard = *s;
          h.universe = j.value("universe", 0);
          h.universe_hash = j.value("universe_hash", "");
          h.proofs = j.value("proofs", false);
          out.headers.push_back(h);
        } else if (type == "case") {
          out.records.push_back(recordFromJson(j));
        }
      } catch (const std::exception& e) {
        out.errors.push_back(fmt::format("{}:{}: skipped a line that does not parse ({})", f, n, e.what()));
      }
    }
  }
  return out;
}

namespace {

// Why the headers do not describe one complete set of shards of one case set, or "".
std::string coverageProblem(const Report& r, const std::vector<RunHeader>& headers) {
  if (headers.empty()) return "the inputs have no run header: cannot tell whether every shard is present";
  std::set<std::string> universes;
  std::set<int> counts;
  for (const auto& h : headers) universes.insert(h.universe_hash), counts.insert(h.shard.count);
  if (universes.size() > 1) return fmt::format("the inputs come from {} different case sets", universes.size());
  if (counts.size() > 1) return "the inputs were sharded with different shard counts";
  const int n = *counts.begin();
  std::set<int> seen;
  for (const auto& h : headers) seen.insert(h.shard.index);
  std::vector<int> missing;
  for (int i = 1; i <= n; ++i)
    if (!seen.count(i)) missing.push_back(i);
  if (!missing.empty()) return fmt::format("incomplete: shard(s) {} of {} missing", fmt::join(missing, ", "), n);
  if (static_cast<int>(r.cases.size()) != headers.front().universe)
    return fmt::format("incomplete: {} of {} cases have a record (an interrupted shard? resume it)", r.cases.size(),
                       headers.front().universe);
  return "";
}

}  // namespace

void checkShardCoverage(Report& r, const std::vector<RunHeader>& headers) {
  std::string problem = coverageProblem(r, headers);
  if (problem.empty()) return;
  r.notes.push_back(std::move(problem));
  r.incomplete = true;
}

// =============================================================== running

void parallelFor(size_t n, int jobs, const std::function<void(size_t)>& fn) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) fn(i);
  };
  const int threads = static_cast<int>(std::min<size_t>(static_cast<size_t>(std::max(1, jobs)), std::max<size_t>(n, 1)));
  std::vector<std::thread> ts;
  for (int k = 1; k < threads; ++k) ts.emplace_back(worker);
  worker();
  for (auto& t : ts) t.join();
}

std::vector<CaseRecord> runCases(const std::vector<Case>& cases, const Observer& observer, int jobs,
                                 const std::function<void(const CaseRecord&)>& on_record, bool progress) {
  std::vector<CaseRecord> out(cases.size());
  std::mutex mu;
  size_t done = 0;
  int fp = 0, fn = 0, unknown = 0;
  parallelFor(cases.size(), jobs, [&](size_t i) {
    auto t0 = std::chrono::steady_clock::now();
    Observation obs = observer(cases[i]);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    CaseRecord rec = judge(cases[i], obs, ms);
    std::lock_guard<std::mutex> lock(mu);
    ++done;
    fp += rec.outcome == Outcome::FalsePositive;
    fn += rec.outcome == Outcome::FalseNegative;
    unknown += rec.outcome == Outcome::Unknown;
    if (on_record) on_record(rec);
    if (progress) {
      std::string p = cases[i].path;
      if (p.size() > 50) p = "..." + p.substr(p.size() - 47);
      std::cerr << fmt::format("\r\033[K[{}/{}] {} FP {} FN {} unknown  {}", done, cases.size(), fp, fn,
                               unknown, p)
                << std::flush;
    }
    out[i] = std::move(rec);
  });
  if (progress && !cases.empty()) std::cerr << "\r\033[K" << std::flush;
  return out;
}

Plan planRun(const std::vector<Case>& cases, const Shard& shard,
             const std::map<std::string, CaseRecord>& resumed_by_hash) {
  Plan plan;
  for (const auto& c : cases) {
    if (!inShard(c.hash, shard)) {
      ++plan.other_shards;
      continue;
    }
    auto it = resumed_by_hash.find(c.hash);
    if (it == resumed_by_hash.end()) {
      plan.todo.push_back(c);
      continue;
    }
    CaseRecord r = it->second;
    r.path = c.path;
    plan.carried.push_back(std::move(r));
  }
  return plan;
}

namespace {

bool stderrIsTerminal() { return isatty(STDERR_FILENO) == 1; }

// Ctrl-C (SIGINT) or SIGTERM while cases are checked. Z3 installs its own
// SIGINT handler while it solves and turns the signal into a *canceled*
// query, which the case would record as unknown, and --resume would take
// that record as the case's verdict. So the signals are blocked in every
// thread of the run (worker threads inherit the mask) and one thread takes
// them with sigwait: it waits for the record being written, if any, says
// where to resume, and ends the process with 128 + the signal, so an
// interrupted case never gets a record.
class InterruptGuard {
 public:
  InterruptGuard(std::mutex& output, std::function<std::string()> summary)
      : output_(output), summary_(std::move(summary)) {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
    waiter_ = std::thread([this] { waitForSignal(); });
  }
  ~InterruptGuard() {
    done_ = true;
    pthread_kill(waiter_.native_handle(), SIGTERM);   // wakes sigwait; done_ says it is no interrupt
    waiter_.join();
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  void waitForSignal() {
    int sig = 0;
    while (sigwait(&set_, &sig) != 0) {
    }
    if (done_) return;
    std::lock_guard<std::mutex> lock(output_);   // no torn record
    std::cerr << fmt::format("\ncake corpus: interrupted ({}); {}\n", sig == SIGINT ? "SIGINT" : "SIGTERM",
                             summary_())
              << std::flush;
    std::_Exit(128 + sig);
  }

  std::mutex& output_;
  std::function<std::string()> summary_;
  sigset_t set_{}, old_{};
  std::atomic<bool> done_{false};
  std::thread waiter_;
};

// Writes the outputs shared by `cake corpus` and `cake corpus merge`, prints
// the text report, and returns the exit status.
int finish(Report& rep, const std::optional<std::string>& json_path, const std::optional<std::string>& html_path,
           const std::optional<std::string>& baseline, const std::optional<std::string>& write_baseline, bool quiet,
           int max_listed, const std::function<bool(const std::string&)>& baseline_scope = {}) {
  if (baseline) {
    std::string text;
    if (!readFile(*baseline, text)) {
      std::cerr << fmt::format("cake corpus: cannot read baseline {}\n", *baseline);
      return 2;
    }
    try {
      compareBaseline(rep, json::parse(text), baseline_scope);
    } catch (const std::exception& e) {
      std::cerr << fmt::format("cake corpus: baseline {}: {}\n", *baseline, e.what());
      return 2;
    }
  }
  std::string err;
  if (json_path && !writeFile(*json_path, reportJson(rep).dump(2) + "\n", err)) {
    std::cerr << "cake corpus: " << err << "\n";
    return 2;
  }
  if (html_path && !writeFile(*html_path, renderHtmlReport(rep), err)) {
    std::cerr << "cake corpus: " << err << "\n";
    return 2;
  }
  if (write_baseline && !writeFile(*write_baseline, makeBaseline(rep).dump(2) + "\n", err)) {
    std::cerr << "cake corpus: " << err << "\n";
    return 2;
  }
  if (!quiet) std::cout << renderTextReport(rep, true, max_listed) << std::flush;
  return rep.gateFailed() ? 1 : 0;
}

std::string universeHash(const std::vector<Case>& cases) {
  std::vector<std::string> hs;
  for (const auto& c : cases) hs.push_back(c.path + " " + c.hash);
  std::sort(hs.begin(), hs.end());
  std::string all;
  for (const auto& h : hs) all += h + "\n";
  return contentHash(all);
}

}  // namespace

int runCorpusCommand(const CorpusOptions& opts) {
  std::vector<std::string> paths = opts.paths.empty() ? std::vector<std::string>{"corpus"} : opts.paths;
  Shard shard;
  if (opts.shard) {
    auto s = parseShard(*opts.shard);
    if (!s) {
      std::cerr << fmt::format("cake corpus: --shard {}: expected i/n with 1 <= i <= n\n", *opts.shard);
      return 2;
    }
    shard = *s;
  }
  if (shard.count > 1 && opts.write_baseline) {
    std::cerr << "cake corpus: --write-baseline needs every case: write it with `cake corpus merge`\n";
    return 2;
  }
  std::vector<std::string> errors;
  std::vector<Case> cases = discoverCases(paths, errors);
  for (const auto& e : errors) std::cerr << "cake corpus: " << e << "\n";
  if (!errors.empty()) return 2;
  if (cases.empty()) {   // nothing checked is not a pass
    std::cerr << fmt::format("cake corpus: no .cake cases under {}\n", fmt::join(paths, ", "));
    return 2;
  }

  // Generated mutants: deterministic from the corpus and the seed; sharded
  // by the hash of the unlabelled mutant, labelled only in their own shard.
  std::vector<mutate::Mutant> generated;
  if (opts.mutants > 0) {
    std::vector<mutate::Original> originals;
    for (const auto& c : cases)
      if (!parseMutantHeader(c.text)) originals.push_back({c.path, c.text});
    generated = mutate::generate(originals, opts.mutants, opts.seed);
    for (const auto& m : generated) {
      Case c;
      c.path = m.virtualPath();
      c.text = mutate::renderMutant(m, nullptr);
      c.hash = contentHash(c.text);
      cases.push_back(std::move(c));
    }
  }

  const bool proofs = opts.proofs || opts.all_proofs || opts.write_baseline.has_value();
  RunHeader header;
  header.proofs = proofs;
  header.shard = shard;
  header.universe = static_cast<int>(cases.size());
  header.universe_hash = universeHash(cases);

  std::map<std::string, CaseRecord> resumed;   // by hash
  if (opts.resume) {
    std::error_code ec;
    if (fs::exists(*opts.resume, ec)) {
      auto contents = readJsonl({*opts.resume});
      for (const auto& e : contents.errors) std::cerr << "cake corpus: " << e << "\n";
      for (auto& r : contents.records) resumed[r.hash] = std::move(r);
    }
  }

  Plan plan = planRun(cases, shard, resumed);
  std::vector<Case> todo = std::move(plan.todo);
  std::vector<CaseRecord> records = std::move(plan.carried);

  // Label the generated mutants this shard runs.
  std::vector<CaseRecord> unlabelled;
  if (!generated.empty()) {
    std::map<std::string, const mutate::Mutant*> by_path;
    for (const auto& m : generated) by_path[m.virtualPath()] = &m;
    std::vector<mutate::Label> labels(todo.size());
    parallelFor(todo.size(), opts.jobs, [&](size_t i) {
      auto it = by_path.find(todo[i].path);
      if (it != by_path.end()) labels[i] = mutate::labelMutant(*it->second, mutate::LabelOptions{});
    });
    std::vector<Case> kept;
    for (size_t i = 0; i < todo.size(); ++i) {
      Case& c = todo[i];
      auto it = by_path.find(c.path);
      if (it == by_path.end()) {
        kept.push_back(std::move(c));
        continue;
      }
      if (labels[i].kind == mutate::Label::Kind::Undetermined) {
        // no label, no verdict to compare with: an unknown case, with the reason
        CaseRecord r;
        r.path = c.path;
        r.hash = c.hash;
        r.kind = "mutant";
        r.mutant = parseMutantHeader(c.text);
        r.outcome = Outcome::Unknown;
        r.reason = "the oracle could not label this mutant: " + labels[i].detail;
        unlabelled.push_back(std::move(r));
        continue;
      }
      c.text = mutate::renderMutant(*it->second, &labels[i]);   // hash stays that of the unlabelled mutant
      kept.push_back(std::move(c));
    }
    todo = std::move(kept);
  }

  // JSON Lines: a header (unless appending to a resumed file that has one),
  // then one record per case as soon as it is known.
  std::ofstream jsonl;
  const bool append = opts.jsonl && opts.resume && fs::path(*opts.jsonl) == fs::path(*opts.resume) &&
                      fs::exists(*opts.jsonl);
  if (opts.jsonl) {
    std::error_code ec;
    fs::path p(*opts.jsonl);
    if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
    bool torn = false;   // an interrupted write left a last line without its newline
    if (append) {
      std::ifstream in(*opts.jsonl, std::ios::binary | std::ios::ate);
      if (in && in.tellg() > 0) {
        in.seekg(-1, std::ios::end);
        torn = in.get() != '\n';
      }
    }
    jsonl.open(*opts.jsonl, std::ios::binary | (append ? std::ios::app : std::ios::trunc));
    if (torn) jsonl << "\n";
    if (!jsonl) {
      std::cerr << fmt::format("cake corpus: cannot write {}\n", *opts.jsonl);
      return 2;
    }
    if (!append || fs::file_size(*opts.jsonl, ec) == 0) jsonl << toJson(header).dump() << "\n";
    if (!append)
      for (const auto& r : records) jsonl << toJson(r).dump() << "\n";
    for (const auto& r : unlabelled) jsonl << toJson(r).dump() << "\n";
    jsonl.flush();
  }
  for (auto& r : unlabelled) records.push_back(std::move(r));

  CheckOptions check_opts;
  check_opts.timeout_ms = opts.timeout_ms;
  // The proof for every trip count runs on the known-good cases (is each
  // still proved? compared with the baseline) and on the cases marked
  // `# check: proof` (a violation only the proof meets), with `cake
  // check`'s work budget (observe: runsProof); the known-bad cases stop at
  // the bounded check, which decides them.
  check_opts.proof_timeout_ms = 0;
  // observe() reads error findings and verdicts only: no resource report
  // (a remark, its maxima Z3 optimizations: 14% of the gate's CPU).
  check_opts.resource_report = false;
  // With a baseline (and none written), a case it records as not proved
  // keeps that status without running the proof again, as long as its text
  // is the same (unprovedInBaseline); --all-proofs runs every proof.
  std::map<std::string, std::pair<std::string, std::string>> unproved;
  if (proofs && opts.baseline && !opts.write_baseline && !opts.all_proofs) {
    std::string text;
    if (readFile(*opts.baseline, text)) {
      try {
        unproved = unprovedInBaseline(json::parse(text));
      } catch (const std::exception&) {
        // finish() reports it
      }
    }
  }
  auto observer = [&](const Case& c) {
    if (!proofs) return observe(c, check_opts, /*proofs=*/false);
    auto it = unproved.find(c.path);
    if (it == unproved.end() || it->second.first != c.hash) return observe(c, check_opts);
    Observation o = observe(c, check_opts, /*proofs=*/false);
    if (!o.proof && o.frontend_ok && o.errors.empty() && o.undecided.empty() && o.crash.empty())
      o.proof = ProofStatus{it->second.second, "not run: the baseline records it as not proved (--all-proofs runs it)"};
    return o;
  };
  std::mutex output;
  std::atomic<size_t> written{0};
  std::vector<CaseRecord> fresh;
  {
    InterruptGuard guard(output, [&] {
      return opts.jsonl ? fmt::format("{} case record(s) in {}; continue with --resume {} --jsonl {}", written.load(),
                                      *opts.jsonl, *opts.jsonl, *opts.jsonl)
                        : std::string("no --jsonl file: nothing to resume");
    });
    fresh = runCases(
        todo, observer, opts.jobs,
        [&](const CaseRecord& r) {
          std::lock_guard<std::mutex> lock(output);
          if (jsonl.is_open()) jsonl << toJson(r).dump() << "\n" << std::flush;
          ++written;
        },
        opts.progress && stderrIsTerminal());
  }
  const size_t fresh_count = fresh.size();
  for (auto& r : fresh) records.push_back(std::move(r));

  // Rules named by expectations but unknown to cake can never agree: say so.
  for (auto& r : records) {
    if (r.outcome != Outcome::FalseNegative) continue;
    std::vector<std::string> unknown_rules;
    auto rules = r.expect.requiredRules();
    rules.insert(rules.end(), r.expect.any_of.begin(), r.expect.any_of.end());
    for (const auto& rule : rules)
      if (!ir::findRule(allRules(), rule)) unknown_rules.push_back(rule);
    if (!unknown_rules.empty())
      r.reason += fmt::format(" (not in the rule catalog: {})", fmt::join(unknown_rules, ", "));
  }

  if (opts.resume)
    std::cerr << fmt::format("cake corpus: {} cases taken from {}, {} checked\n", records.size() - fresh_count,
                             *opts.resume, fresh_count);
  Report rep = buildReport(std::move(records));
  rep.proofs_run = proofs;
  // A shard compares only its own cases with the baseline; a case that is
  // gone is reported by the one shard its path hashes to.
  std::map<std::string, std::string> hash_of;
  for (const auto& c : cases) hash_of[c.path] = c.hash;
  auto scope = [&](const std::string& path) {
    auto it = hash_of.find(path);
    return inShard(it != hash_of.end() ? it->second : contentHash(path), shard);
  };
  return finish(rep, opts.json, opts.html, opts.baseline, opts.write_baseline, opts.quiet, opts.max_listed, scope);
}

int runMergeCommand(const MergeOptions& opts) {
  if (opts.inputs.empty()) {
    std::cerr << "cake corpus merge: no input files\n";
    return 2;
  }
  // An input that cannot be read is an I/O error (2), not a gate that
  // fails on an empty merge (1).
  for (const auto& f : opts.inputs) {
    std::error_code ec;
    if (fs::is_directory(f, ec) || !std::ifstream(f, std::ios::binary)) {
      std::cerr << fmt::format("cake corpus merge: {}: cannot read{}\n", f, fs::is_directory(f, ec) ? " (a directory)" : "");
      return 2;
    }
  }
  auto contents = readJsonl(opts.inputs);
  for (const auto& e : contents.errors) std::cerr << "cake corpus merge: " << e << "\n";
  Report rep = buildReport(contents.records);
  // the proofs ran when every shard ran them
  rep.proofs_run = !contents.headers.empty() &&
                   std::all_of(contents.headers.begin(), contents.headers.end(), [](const RunHeader& h) { return h.proofs; });
  checkShardCoverage(rep, contents.headers);
  if (opts.jsonl) {
    std::string text;
    RunHeader h;
    if (!contents.headers.empty()) {
      h.universe = contents.headers.front().universe;
      h.universe_hash = contents.headers.front().universe_hash;
    }
    h.proofs = rep.proofs_run;
    text += toJson(h).dump() + "\n";
    for (const auto& r : rep.cases) text += toJson(r).dump() + "\n";
    std::string err;
    if (!writeFile(*opts.jsonl, text, err)) {
      std::cerr << "cake corpus merge: " << err << "\n";
      return 2;
    }
  }
  return finish(rep, opts.json, opts.html, opts.baseline, opts.write_baseline, opts.quiet, opts.max_listed);
}

}  // namespace cake::checks::gate
