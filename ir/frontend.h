// The front end's entry points: text -> AST -> typed ir::Module, and the
// canonical formatter. Errors go to the sink as syntax.* / type.* findings
// with FILE:LINE:COL; a failed compile returns nullopt and never throws.
#pragma once

#include <optional>
#include <string>

#include "ir/diagnostic.h"
#include "ir/schedule.h"

namespace cake::ir {

struct FrontendOptions {
  // --target from the command line. A schedule whose decorator names a
  // different target is an error (an exact match is required).
  Target target_override = Target::Unspecified;
};

// Parse, resolve and type-check every schedule in the file.
std::optional<Module> compileModule(const SourceFilePtr& file, const FrontendOptions& opts,
                                    DiagnosticSink& sink);

// Canonical formatting of a file (`cake fmt`). Returns nullopt on a parse
// error (reported to the sink). Comments are kept.
std::optional<std::string> formatSource(const SourceFilePtr& file, DiagnosticSink& sink);

}  // namespace cake::ir
