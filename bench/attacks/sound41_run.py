#!/usr/bin/env python3
"""Runs `cake check` on every mutant of OUT/index.tsv (bench/attacks/
sound41_mutants.py, and sound42, sound43, cover42 and gap43's):
attack_runner.py's runner, two at a time, as sound40_run.py.

    bench/attacks/sound41_run.py OUT [CAKE=build/cli/cake] [JOBS=2]
"""
import attack_runner  # (the script's folder is on the path)

if __name__ == "__main__":
    attack_runner.main_index(jobs=2)
