// Thread-block clusters in the proof for every trip count (docs/z3.md
// "Clusters"): what lap induction needs beyond the one-CTA argument.
#pragma once

#include <optional>
#include <string>

#include "encoder/empty_loop_sizes.h"
#include "encoder/system.h"
#include "encoder/system_hook.h"
#include "ir/schedule.h"

namespace cake::encoder::trip {

// Builds the system as buildSystem does, except that in a modelled cluster
// (the schedule reaches across it: every CTA of one cluster is a part of
// the system) a read of the CTA's coordinate within the cluster,
// `lm.block_idx(d) % cluster[d]` (what lm.cluster_rank() is written with),
// evaluates without reading lm.block_idx: the builder gives CTA c of the
// cluster the block index `cluster[d] * b + c_d`, whose remainder is c_d for
// every block index b >= 0 of the binding. So the system does not depend on
// b through such a read, and System::params_read does not list it. Any
// other read of lm.block_idx is recorded as before (and refused by the
// proof). `extra`, if set, is asked first (the persistent kernels' grid).
// Every build is made with the semantics a ScopedProofSemantics of this
// thread set (default: the bounded check's, caps on).
std::optional<System> buildForProof(const ir::Schedule& s, const Binding& b, ir::Target target, std::string* error,
                                    const EvalHook* extra = nullptr);

// Sets the semantics of this thread's buildForProof calls for its lifetime
// (TripProofOptions::build, set by proveEveryTripCount): the restart
// argument's one-tile proof reads generations without the caps (docs/z3.md
// "The restart form, checked on the text; reads without the caps"); and
// the proof's question about the loops its trip count leaves empty
// (empty_loop_sizes.h; none: such a loop is not decided).
class ScopedProofSemantics {
 public:
  explicit ScopedProofSemantics(const BuildSemantics& sem, EmptyLoopSizesAsk ask = {});
  ~ScopedProofSemantics();
  ScopedProofSemantics(const ScopedProofSemantics&) = delete;
  ScopedProofSemantics& operator=(const ScopedProofSemantics&) = delete;

 private:
  BuildSemantics prev_;
  EmptyLoopSizesAsk prev_ask_;
};
const BuildSemantics& proofSemantics();
// Whether the build of a text with the caps (`capped`) differs from its
// build without them (`uncapped`, BuildSemantics::cap_read_generations
// off) only in what reads mean, and means no later lap (docs/z3.md "The
// empty tiles' copies read without the caps"): then a run clean without
// the caps is clean with them. (Defined in trip_proof.cpp, with the
// instruction comparison it shares.)
bool capsOnlyLowerReads(const System& uncapped, const System& capped);
// Reads with or without the caps (BuildSemantics::cap_read_generations) for
// its lifetime, the rest of this thread's proof semantics and its question
// about empty loops kept: the empty tiles' copies of a split are read
// without them (trip_proof.cpp sharedPrefixRunsAsOne: capped, a read there
// depends on the tiles after them), and checked against the capped build.
class ScopedReadCaps {
 public:
  explicit ScopedReadCaps(bool caps);
  ~ScopedReadCaps();
  ScopedReadCaps(const ScopedReadCaps&) = delete;
  ScopedReadCaps& operator=(const ScopedReadCaps&) = delete;

 private:
  bool prev_;
};

// Builds that record their register states (BuildSemantics::regs_digests)
// for its lifetime, the rest of this thread's proof semantics kept
// (trip_proof.cpp regsDecidedByTrueRuns).
class ScopedRegsDigests {
 public:
  ScopedRegsDigests();
  ~ScopedRegsDigests();
  ScopedRegsDigests(const ScopedRegsDigests&) = delete;
  ScopedRegsDigests& operator=(const ScopedRegsDigests&) = delete;

 private:
  bool prev_;
};

// Whether the CTAs of a modelled cluster share nothing but the cluster
// barrier (docs/z3.md "Independent CTAs"): every instruction of a process
// of CTA c names only CTA c's mbarrier slots, CTA c's named barriers (or
// the cluster barrier) and CTA c's shared memory and TMEM (or a register
// fragment of a process of CTA c). No remote arrival, no multicast
// landing, no access to a peer's memory: a step of CTA c then reads and
// writes no state of another CTA except the cluster barrier (and whether
// CTA c has exited, which only remote operations read). False for one CTA.
bool ctasShareOnlyTheClusterBarrier(const System& sys);

}  // namespace cake::encoder::trip
