#!/usr/bin/env python3
"""Runs `cake check` on every mutant of OUT/index.tsv (bench/attacks/
sound40_mutants.py), two at a time: attack_runner.py's runner (OUT/check.tsv:
path, label, exit status, verdict line, first rule, user CPU; then the
counts; a broken mutant that exits 0 or is said *proved* is a HOLE).

    bench/attacks/sound40_run.py OUT [CAKE=build/cli/cake] [JOBS=2]
"""
import attack_runner  # (the script's folder is on the path)

if __name__ == "__main__":
    attack_runner.main_index(jobs=2)
