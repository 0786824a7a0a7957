// Random small schedules (as .cake text) for differential tests: the
// explicit engine with and without partial-order reduction, and the
// explicit engine against the Z3 engine. Each is a producer/consumer ring
// with random off-by-ones, counts, missing waits / fences / commits, an
// optional epilogue through an aliased staging buffer, an optional named
// barrier handoff, on sm_80, sm_90a or sm_100a. Most are buggy on purpose.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include <fmt/format.h>

namespace cake::testing {

struct RandomSchedule {
  std::string text;   // one @cake.schedule named "g" with one parameter K (trip count)
  int64_t max_k = 4;  // K values worth trying: 0..max_k
};

inline RandomSchedule randomSchedule(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  auto chance = [&](int percent) { return pick(100) < percent; };
  auto delta = [&]() { return chance(80) ? 0 : (chance(50) ? -1 : 1); };
  auto off = [&](int d) { return d == 0 ? std::string() : d > 0 ? fmt::format(" + {}", d) : fmt::format(" - {}", -d); };

  int target = pick(3);  // 0 sm_80, 1 sm_90a, 2 sm_100a
  int S = 1 + pick(3);
  int consumers = 1 + pick(2);
  bool tma = target != 0;
  std::string t;
  t += fmt::format("@cake.schedule(target=\"{}\")\n", target == 0 ? "sm_80" : target == 1 ? "sm_90a" : "sm_100a");
  t += "def g(lm, A: LM.tma2d, C: LM.tma2d, K: LM.i32):\n";
  t += "    pool = lm.smem(65536)\n";
  t += fmt::format("    a = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages={})\n", S);
  int c_off = chance(30) ? 0 : S * 8192;  // aliasing staging buffer sometimes
  t += fmt::format("    c = pool.view(offset={}, shape=(64, 64), dtype=lm.bf16, stages=1)\n", c_off);
  if (target == 2) t += "    acc = lm.tmem(cols=0, width=64, shape=(64, 64), dtype=lm.f32)\n";
  else t += "    acc = lm.regs(shape=(64, 64), dtype=lm.f32)\n";
  t += "    r = lm.regs(shape=(64, 64), dtype=lm.f32)\n";
  t += "    prod = lm.role(warps=[0])\n";
  t += consumers == 1 ? "    cons = lm.role(warps=[4, 5, 6, 7])\n" : "    cons = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4)\n";
  bool use_empty = chance(85);
  int init_full = chance(90) ? 1 : 2;
  int init_empty = chance(85) ? consumers : consumers + (chance(50) ? 1 : -1);
  if (init_empty < 1) init_empty = 1;
  t += fmt::format("    full = lm.barrier(count={}, prod=[prod], cons=[cons], init_count={})\n", S, init_full);
  bool commit_empty = target == 2 && consumers == 1 && chance(50);  // tcgen05 commit releases the slot
  if (use_empty)
    t += fmt::format("    empty = lm.barrier(count={}, prod=[cons], cons=[prod], init_count={})\n", S, init_empty);
  bool named = chance(25);
  if (named) t += "    nb = lm.named_barrier(roles=[prod, cons])\n";
  bool explicit_tx = tma && chance(20);

  // producer
  t += "    with prod:\n";
  t += "        for k in lm.range(0, K):\n";
  if (use_empty && chance(90)) t += fmt::format("            lm.wait(empty, iter=k - {}{})\n", S, off(delta()));
  if (tma) {
    if (explicit_tx) t += fmt::format("            lm.expect_tx(full, {}, iter=k)\n", chance(70) ? 8192 : 16384);
    t += fmt::format("            a.tma_load(A, coords=(0, k), iter=k{}, barrier=full)\n", off(delta()));
  } else {
    t += fmt::format("            lm.copy(r, A, coords=(0, k))\n");
    t += fmt::format("            lm.copy(a[k{}], r)\n", off(delta()));
    t += fmt::format("            lm.arrive(full, iter=k{})\n", off(delta()));
  }
  if (named) t += chance(50) ? "        lm.bar_arrive(nb)\n" : "        lm.sync(nb)\n";

  // consumer
  t += "    with cons:\n";
  t += "        for k in lm.range(0, K):\n";
  if (chance(92)) t += fmt::format("            lm.wait(full, iter=k{})\n", off(delta()));
  int d = delta();
  bool async_mma = target != 0;
  if (chance(80)) t += fmt::format("            lm.mma(acc, a[k{}], a[k{}], init=(k == 0))\n", off(d), off(d));
  else t += fmt::format("            lm.copy(r, a[k{}])\n", off(d));
  int pending = chance(70) ? 0 : 1;
  if (async_mma) {
    if (commit_empty && use_empty) {
      t += fmt::format("            lm.mma_commit(barrier=empty, iter=k{})\n", off(delta()));
    } else {
      if (chance(90)) t += "            lm.mma_commit()\n";
      if (chance(85)) t += fmt::format("            lm.mma_wait(pending={})\n", pending);
    }
  }
  if (use_empty && !commit_empty && chance(92)) t += fmt::format("            lm.arrive(empty, iter=k{})\n", off(delta()));
  if (async_mma && chance(80)) t += "        lm.mma_wait(pending=0)\n";
  if (named) t += "        lm.sync(nb)\n";
  if (chance(60)) {  // epilogue through the staging buffer
    if (target == 2) t += "        lm.copy(r, acc)\n";
    t += "        lm.copy(c[0], r)\n";
    if (tma) {
      if (chance(80)) t += "        lm.fence_proxy()\n";
      t += "        c.tma_store(C, coords=(0, 0), stage=0)\n";
      t += "        lm.tma_store_commit()\n";
      if (chance(85)) t += "        lm.tma_store_wait(pending=0)\n";
    } else {
      t += "        lm.copy(r, c[0])\n";
    }
  }
  return {t, 4};
}

}  // namespace cake::testing
