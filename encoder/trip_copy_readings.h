// The copy readings of the trip proof: where the schedule as written is
// refused, proveSchedule (encoder/trip_proof.cpp, kCopyReadings) asks each
// in turn for a copy of the schedule that builds its systems and that the
// proof takes (docs/z3.md "The proof's entry: the copy readings in order").
#pragma once

#include <string>
#include <vector>

namespace cake::encoder {

// The readings' names, in the order the proof asks them.
std::vector<std::string> copyReadingNames();

}  // namespace cake::encoder
