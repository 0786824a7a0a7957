// Candidates: concrete schedules made from a template's LM.i32 choices (the
// grid) or from the mutation engine's operators applied to an accepted
// schedule. A grid candidate is the template's text with each chosen
// parameter taken out of the signature and bound as a top-level integer
// (`BN = 128`) instead: the front end substitutes it, so the candidate is a
// standalone .cake file that `cake check`, `cake lower` and `cake run` take
// as they are, and that can become a corpus case unchanged.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/schedule.h"
#include "search/spec.h"

namespace cake::search {

using Assignment = std::vector<std::pair<std::string, int64_t>>;   // in the choices' order

struct Candidate {
  std::string id;            // "BN=128,STAGES=4" (grid) or "mutant:<path>" (mutation)
  std::string origin;        // "grid" | "mutant" | "baseline"
  Assignment params;         // grid: the values
  std::string mutation;      // mutant: "<op> at line L: <change>"
  std::string file_name;     // virtual file name used in diagnostics
  std::string source;        // the .cake text
};

// "BN=128,STAGES=4".
std::string assignmentId(const Assignment& a);

// The template's text with every assigned parameter bound as a top-level
// integer. nullopt and `error` when the text does not parse, the schedule is
// missing, or a name is not one of its LM.i32 parameters.
std::optional<std::string> instantiate(const std::string& text, const std::string& file_name,
                                       const std::string& schedule, const Assignment& values, std::string* error);

// Every point of the grid (cartesian product, in the choices' order, the last
// choice varying fastest). nullopt and `error` on a bad template/choice.
std::optional<std::vector<Candidate>> enumerateGrid(const std::string& text, const std::string& file_name,
                                                    const std::string& schedule, const std::vector<Choice>& choices,
                                                    std::string* error);

// Every mutant of an accepted schedule (checks/mutate.h), as candidates.
std::optional<std::vector<Candidate>> enumerateMutants(const std::string& path, const std::string& text,
                                                       std::string* error);

// A candidate compiled by the front end and lowered: the key for dedupe is
// the hash of the lowered code (comments off, so only code counts).
struct Prepared {
  std::optional<ir::Module> module;
  const ir::Schedule* schedule = nullptr;
  std::string front_end_error;   // first front-end finding when module is empty
  // An `lm.assume` over the choices only that is false for this point: the
  // template rules it out, it is never checked or measured.
  std::string excluded;
  bool lowered = false;
  std::string lower_error;       // first lowering finding when !lowered
  std::string code_hash;         // contentHash of the lowered code; "" when !lowered
  std::string source_hash;       // contentHash of the candidate's text
};
Prepared prepare(const Candidate& c, const std::string& schedule_name);

}  // namespace cake::search
