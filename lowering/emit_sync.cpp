// Stage 3, barriers: mbarrier waits (phase bits) and arrivals (expect_tx,
// per-warp weights), and the tcgen05 fences around them. See emit.h.
#include "lowering/emit.h"

namespace cake::lowering::detail {

void Emitter::tcFenceBefore() {
  if (plan_.usesTmem_) line("cake_tc_fence_before();");
}

void Emitter::tcFenceAfter() {
  if (plan_.usesTmem_) line("cake_tc_fence_after();");
}

void Emitter::emitWait(const ir::Op& op) {
  const int b = op.barrier;
  const auto& bar = s_.barriers[b];
  const auto& sel = op.sel;
  const std::string bn = plan_.barName(b);
  if (sel.mode == ir::SlotSel::Mode::Iter) {
    const auto& e = sel.index;
    const std::string es = plan_.expr(e);
    const std::string cnt = std::to_string(bar.count);
    // idx >= 0 here (a constant, proved, or under the guard below)
    auto waitLine = [&](const std::string& idx) {
      const std::string slot = bar.count == 1 ? "0" : "cake_slot<" + cnt + ">(" + idx + ")";
      const std::string parity = bar.count == 1 ? "(" + idx + ") & 1" : "cake_parity<" + cnt + ">(" + idx + ")";
      line(fmt::format("cake_mbar_wait({} + 8 * ({}), {});", bn, slot, parity));
      tcFenceAfter();
    };
    if (auto c = plan_.constOf(e)) {
      if (*c < 0) {
        comment(fmt::format("wait({}, iter={}): a negative iteration passes at once", bar.name, *c));
        return;
      }
      waitLine(std::to_string(*c));
    } else if (plan_.nonneg(*e)) {
      waitLine(es);
    } else {
      comment(fmt::format("wait({}, iter={}): slot = iter % {}, phase = iter // {}; iter < 0 passes at once",
                          bar.name, plan_.pyText(e), bar.count, bar.count));
      open(fmt::format("if ({} >= 0)", es));
      waitLine(es);
      close();
    }
    return;
  }
  if (sel.mode == ir::SlotSel::Mode::Stage) {
    const std::string slot = plan_.slotOf(sel.index, bar.count);
    if (sel.phase) {
      line(fmt::format("cake_mbar_wait({} + 8 * ({}), ({}) & 1);", bn, slot, plan_.expr(sel.phase)));
    } else {
      comment(fmt::format("wait({}, stage={}): phase = this instance's earlier waits on the slot (bit per slot)",
                          bar.name, plan_.pyText(sel.index)));
      line(fmt::format("cake_mbar_wait({} + 8 * ({}), (cake_phase_{} >> ({})) & 1u);", bn, slot, bn, slot));
      line(fmt::format("cake_phase_{} ^= 1u << ({});", bn, slot));
    }
    tcFenceAfter();
    return;
  }
  // no selector: a one-slot barrier (phase bit of slot 0 unless phase= is given)
  if (sel.phase) {
    line(fmt::format("cake_mbar_wait({}, ({}) & 1);", bn, plan_.expr(sel.phase)));
  } else {
    line(fmt::format("cake_mbar_wait({}, cake_phase_{} & 1u);", bn, bn));
    line(fmt::format("cake_phase_{} ^= 1u;", bn));
  }
  tcFenceAfter();
}

// One instance-arrive on barrier b (worth plan_.barWeight_[b] hardware arrivals).
void Emitter::emitArrive(const ir::Op& op, int64_t tx_bytes, bool explicit_tx) {
  const int b = op.barrier;
  const auto& role = s_.roles[role_];
  const int w = plan_.barWeight_[b];
  const std::string addr = barSlotAddr(b, op.sel);
  const int64_t count = op.count ? plan_.constOf(op.count).value_or(1) : 1;
  // cta=: the mbarrier at the same offset in that cluster CTA (mapa)
  auto arriveLine = [&](int64_t n) {
    return op.cta ? fmt::format("cake_mbar_arrive_cluster({}, {}, {});", addr, plan_.expr(op.cta), n)
                  : fmt::format("cake_mbar_arrive({}, {});", addr, n);
  };
  tcFenceBefore();
  if (tx_bytes > 0 || explicit_tx) {
    // expect_tx: the arrival is the elected thread's
    elected([&] {
      if (explicit_tx)
        line(fmt::format("cake_mbar_arrive_expect_tx({}, {});", addr, plan_.expr(op.bytes)));
      else
        line(fmt::format("cake_mbar_arrive_expect_tx({}, {});  // derived: the bytes of the TMA loads below", addr,
                         tx_bytes));
      if (w > 1) line(fmt::format("cake_mbar_arrive({}, {});", addr, w - 1));
    });
    return;
  }
  if (single_ || role.warpsPerInstance() == 1 || w == 1) {
    if (!single_) line("__syncwarp();");
    if (!single_ && role.warpsPerInstance() > 1) instSync();
    elected([&] { line(arriveLine(count * w)); });
  } else {
    // each warp of the instance arrives once it is done: count * weight / warps each
    const int per = static_cast<int>(count * w / role.warpsPerInstance());
    comment(fmt::format("one arrival per warp ({} warps x {} = {} = the instance's arrive)", role.warpsPerInstance(),
                        per, count * w));
    line("__syncwarp();");
    line("if (cake_lane == 0) " + arriveLine(per));
  }
}

}  // namespace cake::lowering::detail
