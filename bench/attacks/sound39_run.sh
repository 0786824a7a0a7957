#!/usr/bin/env bash
# Runs session 39's soundness attack (bench/attacks/sound39_mutants.py):
# `cake check` on every mutant of OUT/index.tsv, one at a time, through
# bench/attacks/attack_runner.py (OUT/check.tsv, the counts, HOLE for a
# broken mutant that exits 0 or is said proved). A broken mutant that the
# proof alone says proved is a hole too (cake_bench_proof_audit OUT
# --verbose, run after this).
#   bench/attacks/sound39_run.sh OUT [CAKE=build/cli/cake]
exec python3 "$(dirname "$0")/attack_runner.py" "$1" "${2:-build/cli/cake}" 1
