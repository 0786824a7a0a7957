#!/usr/bin/env python3
"""Runs `cake check` on every mutant of OUT/index.tsv (bench/attacks/
sound41_mutants.py): sound40_run.py's runner and counts.

    bench/attacks/sound41_run.py OUT [CAKE=build/cli/cake] [JOBS=2]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sound40_run  # noqa: E402

if __name__ == "__main__":
    sound40_run.main()
