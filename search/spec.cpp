#include "search/spec.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace cake::search {

namespace {

// A limit on a grid dimension: a typo such as "1..1000000" must not
// silently enumerate a million candidates.
constexpr size_t kMaxValuesPerChoice = 4096;

std::optional<int64_t> parseInt(std::string_view t) {
  while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  int64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size() || t.empty()) return std::nullopt;
  return v;
}

std::optional<std::vector<int64_t>> fail(std::string* error, std::string m) {
  if (error) *error = std::move(m);
  return std::nullopt;
}

// "lo..hi", "lo..hi:step", "lo..hi*factor".
std::optional<std::vector<int64_t>> parseRange(std::string_view t, std::string* error) {
  size_t dots = t.find("..");
  std::string_view rest = t.substr(dots + 2);
  size_t op = rest.find_first_of(":*");
  auto lo = parseInt(t.substr(0, dots));
  auto hi = parseInt(rest.substr(0, op));
  if (!lo || !hi) return fail(error, fmt::format("bad range '{}' (expected LO..HI, LO..HI:STEP or LO..HI*FACTOR)", t));
  if (*lo > *hi) return fail(error, fmt::format("empty range '{}' (LO > HI)", t));
  std::optional<int64_t> by = int64_t{1};
  if (op != std::string_view::npos) by = parseInt(rest.substr(op + 1));
  bool geometric = op != std::string_view::npos && rest[op] == '*';
  if (!by || *by < (geometric ? 2 : 1))
    return fail(error, fmt::format("bad {} in '{}'", geometric ? "factor (>= 2)" : "step (>= 1)", t));
  if (geometric && *lo <= 0) return fail(error, fmt::format("a geometric range starts above 0: '{}'", t));
  std::vector<int64_t> out;
  for (int64_t v = *lo; v <= *hi; v = geometric ? v * *by : v + *by) {
    out.push_back(v);
    if (out.size() > kMaxValuesPerChoice)
      return fail(error, fmt::format("range '{}' has more than {} values", t, kMaxValuesPerChoice));
    if (v > INT64_MAX / 4) break;
  }
  return out;
}

}  // namespace

std::string shapeText(const runner::Shape& s) { return fmt::format("M={},N={},K={}", s.M, s.N, s.K); }

workload::Shape gemmShape(const runner::Shape& s) {
  return {workload::Kind::Gemm, {{"M", s.M}, {"N", s.N}, {"K", s.K}}};
}

std::optional<std::vector<int64_t>> parseValues(std::string_view text, std::string* error) {
  std::set<int64_t> values;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string_view item = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (item.find("..") != std::string_view::npos) {
      auto r = parseRange(item, error);
      if (!r) return std::nullopt;
      values.insert(r->begin(), r->end());
    } else if (auto v = parseInt(item)) {
      values.insert(*v);
    } else {
      return fail(error, fmt::format("bad value '{}' (expected integers, LO..HI, LO..HI:STEP or LO..HI*FACTOR)", item));
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (values.size() > kMaxValuesPerChoice)
    return fail(error, fmt::format("more than {} values", kMaxValuesPerChoice));
  return std::vector<int64_t>(values.begin(), values.end());
}

std::optional<Choice> parseChoice(std::string_view text, std::string* error) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    if (error) *error = fmt::format("expected NAME=VALUES, got '{}'", text);
    return std::nullopt;
  }
  auto values = parseValues(text.substr(eq + 1), error);
  if (!values) return std::nullopt;
  return Choice{std::string(text.substr(0, eq)), std::move(*values)};
}

std::optional<TuneSpec> specFromJson(const nlohmann::json& j, const std::string& base_dir, std::string* error) {
  auto bad = [&](const std::string& m) -> std::optional<TuneSpec> {
    if (error) *error = m;
    return std::nullopt;
  };
  if (!j.is_object()) return bad("the spec must be a JSON object");
  static const std::set<std::string> known = {"template", "schedule", "params", "mutate", "workload", "baseline",
                                              "top_k", "batch", "calibration_error", "timeout_s", "runs", "seed"};
  for (const auto& [k, v] : j.items())
    if (!known.count(k)) return bad(fmt::format("unknown key '{}'", k));
  auto path = [&](const std::string& p) { return p.empty() || fs::path(p).is_absolute() ? p : (fs::path(base_dir) / p).lexically_normal().string(); };
  TuneSpec s;
  try {
    s.template_path = path(j.value("template", std::string()));
    s.schedule = j.value("schedule", std::string());
    s.baseline = path(j.value("baseline", std::string()));
    if (j.contains("params")) {
      if (!j["params"].is_object()) return bad("'params' must be an object NAME -> values");
      for (const auto& [name, v] : j["params"].items()) {
        std::string text;
        if (v.is_string()) text = v.get<std::string>();
        else if (v.is_array())
          for (const auto& x : v) text += (text.empty() ? "" : ",") + (x.is_string() ? x.get<std::string>() : std::to_string(x.get<int64_t>()));
        else if (v.is_number_integer()) text = std::to_string(v.get<int64_t>());
        else return bad(fmt::format("params.{}: expected a list or a range string", name));
        std::string e;
        auto values = parseValues(text, &e);
        if (!values) return bad(fmt::format("params.{}: {}", name, e));
        s.choices.push_back({name, std::move(*values)});
      }
    }
    if (j.contains("mutate"))
      for (const auto& m : j["mutate"]) s.mutate.push_back(path(m.get<std::string>()));
    if (j.contains("workload")) {
      const auto& w = j["workload"];
      const std::string kind = w.value("kind", std::string("gemm"));
      auto k = workload::parseKind(kind);
      if (!k) return bad(fmt::format("workload.kind '{}': expected one of {}", kind, workload::kindList()));
      if (!w.contains("shape") && *k != workload::Kind::Gemm) return bad("workload.shape: give the sizes");
      std::string e;
      auto shape = workload::parseShape(*k, w.value("shape", std::string("M=4096,N=4096,K=4096")), &e);
      if (!shape) return bad("workload.shape: " + e);
      s.workload.shape = *shape;
    }
    s.top_k = j.value("top_k", s.top_k);
    s.batch = j.value("batch", s.batch);
    s.calibration_error = j.value("calibration_error", s.calibration_error);
    s.timeout_s = j.value("timeout_s", s.timeout_s);
    s.runs = j.value("runs", s.runs);
    s.seed = j.value("seed", s.seed);
  } catch (const nlohmann::json::exception& e) {
    return bad(std::string("bad value: ") + e.what());
  }
  if (s.template_path.empty() && s.mutate.empty()) return bad("give 'template' (with 'params') or 'mutate'");
  if (!s.template_path.empty() && s.choices.empty()) return bad("'template' needs 'params' (the choices to tune)");
  if (s.batch < 1) return bad("'batch' must be >= 1");
  return s;
}

std::optional<TuneSpec> loadSpec(const std::string& path, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    if (error) *error = fmt::format("{}: cannot read", path);
    return std::nullopt;
  }
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true);
  if (j.is_discarded()) {
    if (error) *error = fmt::format("{}: not valid JSON", path);
    return std::nullopt;
  }
  std::string e;
  auto s = specFromJson(j, fs::path(path).parent_path().string(), &e);
  if (!s && error) *error = fmt::format("{}: {}", path, e);
  return s;
}

}  // namespace cake::search
