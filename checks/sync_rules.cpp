// The model checker's rule catalog (`cake explain <id>`); the pages are
// docs/rules/<id>.md and the semantics docs/semantics.md.
#include "checks/model_check.h"

namespace cake::checks {

using ir::Category;
using ir::RuleInfo;
using ir::Severity;

static const RuleInfo kRules[] = {
    {"sync.deadlock", Severity::Error, Category::ProgramSafety,
     "some role instance can never finish: every instance left waits on something that cannot happen",
     "A state is reachable in which some instance has not finished and no instance, TMA load or MMA "
     "group can make a step: every unfinished instance waits on an mbarrier phase or a named-barrier "
     "generation that nothing left can complete (for example an mbarrier wait and a bar.sync waiting "
     "on each other). The trace ends in that state; the notes name every blocked wait. When the cause "
     "is an arrival count or a transaction count, sync.arrival-underflow or sync.tx-imbalance is "
     "reported instead."},
    {"sync.race", Severity::Error, Category::ProgramSafety,
     "two parties access the same shared-memory bytes without a barrier ordering them",
     "A write and another access (read or write) to overlapping bytes of shared memory, tensor memory "
     "or an instance's registers are not ordered by any barrier. Asynchronous operations access their "
     "buffers until they complete: a TMA load until it lands, a TMA store until tma_store_wait retires "
     "its group, a cp.async until cp_async_wait retires it, an MMA until mma_wait retires its group "
     "(sm_90a) or its commit barrier arrival (sm_100a). Releasing a slot while such a read is in "
     "flight shows up as the producer's next write racing with it. The primary location is the second "
     "access; the note is the first."},
    {"sync.stale-phase", Severity::Error, Category::DataConsistency,
     "a wait passes on a phase other than the one it means",
     "The hardware only compares parities: a wait for phase n passes when the slot's completed-phase "
     "count c has c % 2 != n % 2. The wait passes with c != n + 1, for example with c = n - 1 (a lap "
     "early), so the data it guards is not the data it means."},
    {"sync.lost-phase", Severity::Error, Category::DataConsistency,
     "a waiter is two or more phases behind its barrier slot",
     "An instance is at a wait for phase n of a slot whose completed-phase count c is already n + 2 or "
     "more: the phase it means, and the one after it, have completed without it. With parity waits "
     "it either blocks for a whole lap or passes on the wrong lap."},
    {"sync.arrival-overflow", Severity::Error, Category::ProgramSafety,
     "more arrivals than init_count for one phase",
     "Counting the arrivals each op means for each phase of each slot (iter=e means phase e // count; "
     "stage= without phase= counts per instance; a derived or explicit expect_tx is one arrival), a "
     "phase gets more arrivals than the barrier's init_count, or an arrival names a phase nobody "
     "waits for (a negative iteration). On hardware the extra arrivals complete the phase early and "
     "spill into the next one. Also reported when an arrival finds the pending count already zero "
     "while transaction bytes are outstanding, and when a named barrier gets more warps in one "
     "generation than its roles have."},
    {"sync.arrival-underflow", Severity::Error, Category::ProgramSafety,
     "fewer arrivals than init_count for a phase someone waits for",
     "A phase of a slot that some instance waits for gets fewer arrivals than the barrier's "
     "init_count, counting as for sync.arrival-overflow. It never completes as meant: its waiters hang "
     "(reported here rather than as sync.deadlock) or pass on arrivals meant for a later phase."},
    {"sync.phase-annotation-mismatch", Severity::Warning, Category::DataConsistency,
     "an arrival's iter= / phase= names another phase than the one it lands in",
     "Lowering names only the slot of an arrival (mbarrier.arrive has no phase operand), so on "
     "hardware every arrive, expect_tx, TMA load's bytes and MMA commit arrival counts into its "
     "slot's current phase. When the phase an op's iter= or phase= means differs from the one it "
     "lands in - an iter= off by a lap of a one-slot barrier, a final release nobody waits for - and "
     "yet no run goes wrong (every wait passes on the phase it means, nothing hangs, races or reads "
     "stale data), the program is correct as lowered and the disagreement is this warning, naming "
     "both phases, instead of sync.arrival-underflow or sync.arrival-overflow. The lap-induction "
     "proof does not apply to such a schedule: its verdict stays 'checked'."},
    {"sync.tx-imbalance", Severity::Error, Category::ProgramSafety,
     "expected transaction bytes differ from the bytes TMA loads deliver",
     "For a phase of a slot, the bytes announced by expect_tx differ from the bytes the TMA loads "
     "naming that slot and phase deliver. Too many expected: the phase never completes. Too few: the "
     "phase completes before all data has landed and the rest lands into the next phase. Also "
     "reported when a TMA load lands after the phase it was issued for has completed."},
    {"data.stale-read", Severity::Error, Category::DataConsistency,
     "a read sees a slot holding another iteration's data",
     "Every write of a view slot tags the bytes with the view index it names and its generation (how "
     "many times the writer wrote that index before); every read means an index and generation (how "
     "many times the reader came back to that index after synchronizing). A read that is ordered "
     "after the write but finds another index, another generation, or no data at all reads stale "
     "data - for example a consumer reading a slot that was not filled for its iteration."},
    {"proxy.missing-fence", Severity::Error, Category::DataConsistency,
     "an async-proxy read of generic-proxy writes without lm.fence_proxy() by the writer",
     "A TMA store or an sm_90a/sm_100a MMA reads shared-memory bytes through the async proxy, and the "
     "bytes hold a generic-proxy write (lm.copy and the other compute ops, or cp.async) after which "
     "the writing instance executed no lm.fence_proxy(). Paths where a loop around the fence runs "
     "zero times are included."},
    {"sync.async-at-exit", Severity::Error, Category::ProgramSafety,
     "the block can exit while an async operation still accesses shared memory",
     "Every instance has finished while a TMA load has not landed or landed into a phase nobody "
     "waited for, a TMA store or cp.async group was not retired by a *_wait, an MMA group was not "
     "retired (sm_90a) or its commit barrier was never waited (sm_100a), or MMAs were never "
     "committed. The block's shared memory is released at exit."},
};

std::span<const RuleInfo> syncRules() { return kRules; }

}  // namespace cake::checks
