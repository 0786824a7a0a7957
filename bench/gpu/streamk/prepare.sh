#!/usr/bin/env bash
# Fills /work/main/.devcarry/streamk for bench/gpu/streamk/device_streamk.sh
# (issue 13, helper streamk, session 13) through bench/gpu/pp3/prepare.sh:
# cake, the harness, the schedules of schedules.txt (or the arguments), and
# the nvcc-cache kernel libraries of the exact `cake run` commands of the
# device script. Run from /work/h-streamk after `cmake --build build --target cake`.
#   bash bench/gpu/streamk/prepare.sh [SCHEDULE...]
W=/work/h-streamk C=/work/main/.devcarry/streamk DIR=/work/h-streamk/bench/gpu/streamk \
  exec bash /work/h-streamk/bench/gpu/pp3/prepare.sh "$@"
