// The queries of encoder/bv_prover.h that hold, kept for the process.
#pragma once

namespace cake::encoder {

// The BvProver queries that hold (prove, witness and assumptionsConsistent
// answered Holds), kept for the whole process and answered again without
// the solver, their counted work charged again (encoder/bv_prover.cpp,
// HoldsCache). Off by default (tests count the solver's answers); `cake`
// turns it on. Off empties it.
void keepHoldingQueries(bool on);

}  // namespace cake::encoder
