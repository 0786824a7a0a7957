// The queries of encoder/bv_prover.h that hold, kept for the process.
#pragma once

namespace cake::encoder {

// The BvProver queries that hold (prove, witness and assumptionsConsistent
// answered Holds), kept for the whole process and answered again without
// the solver, their counted work charged again (encoder/bv_prover.cpp,
// HoldsCache), and with them the failing queries and optima kept per
// context history (HistoryAnswers: the same answer, model included, after
// the same queries on a fresh prover), and intWitness's answers (each
// query a context of its own: kept per query). Off by default (tests count
// the solver's answers); `cake` turns it on. Off empties all three.
void keepHoldingQueries(bool on);

}  // namespace cake::encoder
