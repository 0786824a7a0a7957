// The Z3 side of the model checker: public, Z3-free API.
#pragma once

#include <cstdint>
#include <string>

namespace cake::encoder {

// Per-query resource limits for Z3 (checks::CheckOptions carries the same
// numbers: timeout_ms, memory_mb).
struct Limits {
  unsigned timeout_ms = 10000;  // per solver query
  unsigned memory_mb = 4096;    // Z3's memory_max_size
  uint64_t rlimit = 0;          // Z3 resource limit (deterministic); 0 = none
};

}  // namespace cake::encoder
