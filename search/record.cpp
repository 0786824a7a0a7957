#include "search/record.h"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace cake::search {

std::string Record::result() const {
  return measured() ? measurement.value("result", std::string()) : std::string();
}

std::optional<double> Record::measuredMs() const {
  if (result() != "ok" || !measurement.contains("median_ms") || !measurement["median_ms"].is_number())
    return std::nullopt;
  return measurement["median_ms"].get<double>();
}

nlohmann::json toJson(const Record& r) {
  nlohmann::json j;
  j["id"] = r.id;
  j["origin"] = r.origin;
  j["params"] = r.params;
  if (!r.mutation.empty()) j["mutation"] = r.mutation;
  j["source_hash"] = r.source_hash;
  j["code_hash"] = r.code_hash;
  j["source"] = r.source_path;
  j["verdict"] = r.verdict;
  j["rule"] = r.rule.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.rule);
  if (!r.detail.empty()) j["detail"] = r.detail;
  j["prediction"] = r.prediction ? nlohmann::json{{"ms", r.prediction->ms}, {"bottleneck", r.prediction->bottleneck}}
                                 : nlohmann::json(nullptr);
  j["rank"] = r.rank;
  j["measurement"] = r.measurement;
  if (r.measured()) j["gpu_wall_s"] = r.gpu_wall_s;
  j["route"] = r.route.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.route);
  return j;
}

Record recordFromJson(const nlohmann::json& j) {
  Record r;
  r.id = j.at("id").get<std::string>();
  r.origin = j.value("origin", std::string());
  if (j.contains("params")) r.params = j["params"];
  r.mutation = j.value("mutation", std::string());
  r.source_hash = j.value("source_hash", std::string());
  r.code_hash = j.value("code_hash", std::string());
  r.source_path = j.value("source", std::string());
  r.verdict = j.at("verdict").get<std::string>();
  if (j.contains("rule") && j["rule"].is_string()) r.rule = j["rule"].get<std::string>();
  r.detail = j.value("detail", std::string());
  if (j.contains("prediction") && j["prediction"].is_object())
    r.prediction = Prediction{j["prediction"].at("ms").get<double>(), j["prediction"].value("bottleneck", std::string())};
  r.rank = j.value("rank", 0);
  if (j.contains("measurement")) r.measurement = j["measurement"];
  r.gpu_wall_s = j.value("gpu_wall_s", 0.0);
  if (j.contains("route") && j["route"].is_string()) r.route = j["route"].get<std::string>();
  return r;
}

std::optional<std::vector<Record>> readRecords(const std::string& path, std::string* error) {
  std::vector<Record> out;
  std::ifstream in(path);
  if (!in) return out;   // nothing recorded yet
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      out.push_back(recordFromJson(nlohmann::json::parse(line)));
    } catch (const nlohmann::json::exception& e) {
      if (error) *error = fmt::format("{}:{}: bad record: {}", path, n, e.what());
      return std::nullopt;
    }
  }
  return out;
}

bool writeRecords(const std::string& path, const std::vector<Record>& records, std::string* error) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    for (const Record& r : records) out << toJson(r).dump() << '\n';
    if (!out) {
      if (error) *error = fmt::format("{}: cannot write", tmp);
      return false;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    if (error) *error = fmt::format("{}: cannot rename into place: {}", path, ec.message());
    return false;
  }
  return true;
}

}  // namespace cake::search
