#include "ir/target.h"

#include <algorithm>

namespace cake::ir {

namespace {

TargetLimits make(Target t) {
  TargetLimits l;
  l.target = t;
  switch (t) {
    case Target::SM80:
      l.known = true;
      l.smem_per_block = 166912;  // 163 KiB opt-in
      l.smem_per_sm = 167936;     // 164 KiB
      break;
    case Target::SM90a:
      l.known = true;
      l.smem_per_block = 232448;  // 227 KiB opt-in
      l.smem_per_sm = 233472;     // 228 KiB
      l.tma = l.setmaxnreg = l.clusters = l.wgmma = true;
      break;
    case Target::SM100a:
      l.known = true;
      l.smem_per_block = 232448;  // 227 KiB opt-in
      l.smem_per_sm = 233472;     // 228 KiB
      l.tma = l.setmaxnreg = l.clusters = l.tmem = l.tcgen05 = true;
      l.tmem_columns = hw::kTmemColumns;
      l.tmem_lanes = hw::kTmemLanes;
      break;
    case Target::Unspecified:
      break;
  }
  return l;
}

}  // namespace

int TargetLimits::launchRegsPerThread(int threads) const {
  if (threads <= 0) return 248;
  int64_t r = std::min<int64_t>(max_regs_per_thread, register_file / threads);
  return static_cast<int>(r / 8 * 8);
}

const TargetLimits& targetLimits(Target t) {
  static const TargetLimits table[] = {make(Target::Unspecified), make(Target::SM80), make(Target::SM90a),
                                       make(Target::SM100a)};
  switch (t) {
    case Target::SM80: return table[1];
    case Target::SM90a: return table[2];
    case Target::SM100a: return table[3];
    case Target::Unspecified: break;
  }
  return table[0];
}

namespace hw {
int64_t maxSmemPerBlock() {
  int64_t m = 0;
  for (Target t : {Target::SM80, Target::SM90a, Target::SM100a}) m = std::max(m, targetLimits(t).smem_per_block);
  return m;
}
}  // namespace hw

}  // namespace cake::ir
