#!/usr/bin/env bash
# Build (here, no GPU needed) what bench/gpu/device_pdl.sh runs on the
# device: the PDL GEMM schedule lowered by THIS checkout's `cake` into a
# kernel library, and the pair driver (bench/gpu/pdl_pair.cu), into
# .devcarry/tmempdl (DEST=...).  Usage: bash bench/gpu/build_pdl.sh [BUILD_DIR]
set -eu
B=${1:-build}
D=${DEST:-.devcarry/tmempdl}
. "$(dirname "$0")/device_env.sh" "$D"  # NVCC, SM90A, lowered_so
mkdir -p "$D"
S=corpus/bugs/sync.grid-dependency/sm90_pdl_load_before_wait_fixed.cake
"$B/cli/cake" lower "$S" -o "$D/pdl_gemm.cu"
lowered_so "$D/pdl_gemm.cu" "$D/pdl_gemm.so"
"$NVCC" -std=c++17 -O3 -cudart shared $SM90A -Iabi bench/gpu/pdl_pair.cu \
  -o "$D/pdl_pair" -ldl
cp bench/gpu/device_pdl.sh bench/gpu/device_env.sh "$D/"
ls -la "$D"
