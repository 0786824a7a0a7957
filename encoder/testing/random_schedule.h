// Small random schedules, built directly as ir::Schedule (no text), for
// testing the two model-checking engines against each other.
//
// The shape is the warp-specialized pipeline the corpus is made of: a
// producer instance filling a ring of 1-3 slots (TMA loads counted on a
// `full` barrier, or generic copies + fence + arrive), 1-2 consumer
// instances that wait `full`, read the slot (async MMA, a generic copy, or
// an sm_100a MMA whose commit arrives on `empty`), and release it on
// `empty`; sometimes a TMA-store epilogue. The trip count is the scalar
// parameter K. With probability `bug_rate` one or two bugs are planted:
// wrong iter offsets, missing arrives or waits, wrong init_count, missing
// fences, mma_wait(pending=1), no store wait, extra arrival counts...
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "encoder/system.h"
#include "ir/schedule.h"

namespace cake::encoder {

struct RandomScheduleOptions {
  double bug_rate = 0.5;   // probability of planting bugs
  int max_stages = 3;      // ring depth 1..max_stages
  int max_trips = 3;       // K in 0..max_trips
  int max_consumers = 2;   // consumer instances 1..max_consumers
  bool allow_epilogue = true;
  bool allow_sm100 = true;
  // Probability of a named-barrier hand-off beside the ring (0: none, and
  // the random stream of a seed is the one it was before the option): the
  // producer writes a staging tile and bar.arrives on `x_full`, the
  // consumers bar.sync on it, read the tile and arrive on `x_empty`, on
  // which the producer bar.syncs before its next write; each side picks
  // bar.sync or bar.arrive where either is correct. Its bugs: no sync-back,
  // an arrive where a sync is needed, a barrier whose roles leave out the
  // producer.
  double named_rate = 0;
};

struct RandomSchedule {
  ir::Schedule schedule;
  Binding binding;                   // K
  std::string description;           // "S=2 NC=1 tma/mma K=3 bugs: producer-wait-early"
  std::vector<std::string> bugs;     // planted bugs (empty: meant to be correct)
};

RandomSchedule randomSchedule(std::mt19937_64& rng, const RandomScheduleOptions& opts = {});

}  // namespace cake::encoder
