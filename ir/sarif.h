// SARIF 2.1.0 (OASIS Static Analysis Results Interchange Format) for
// findings: `cake check --format sarif`. One run whose tool.driver.rules is
// the whole rule registry (ir/rules.h); one result per finding with its
// primary location, its notes as relatedLocations, and its trace as a
// codeFlow (one threadFlow per role instance; executionOrder keeps the
// interleaving). tests/cli checks the output against the official schema.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/diagnostic.h"

namespace cake::ir {

// The SARIF log of one run over `findings` (any files, any order).
nlohmann::json toSarif(const std::vector<Finding>& findings, std::string_view tool_version);

}  // namespace cake::ir
