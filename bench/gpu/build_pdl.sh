#!/usr/bin/env bash
# Build (here, no GPU needed) what bench/gpu/device_pdl.sh runs on the
# device: the PDL GEMM schedule lowered by THIS checkout's `cake` into a
# kernel library, and the pair driver (bench/gpu/pdl_pair.cu), into
# .devcarry/tmempdl (DEST=...).  Usage: bash bench/gpu/build_pdl.sh [BUILD_DIR]
set -eu
B=${1:-build}
D=${DEST:-.devcarry/tmempdl}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
mkdir -p "$D"
S=corpus/bugs/sync.grid-dependency/sm90_pdl_load_before_wait_fixed.cake
"$B/cli/cake" lower "$S" -o "$D/pdl_gemm.cu"
"$NVCC" -std=c++17 -O3 -shared -Xcompiler -fPIC -cudart shared -Iabi -lineinfo \
  $(grep -o '^// target sm_[0-9a]*: .*' "$D/pdl_gemm.cu" | grep -o '\-gencode[^ ]*') "$D/pdl_gemm.cu" -o "$D/pdl_gemm.so"
"$NVCC" -std=c++17 -O3 -cudart shared -gencode=arch=compute_90a,code=sm_90a -Iabi bench/gpu/pdl_pair.cu \
  -o "$D/pdl_pair" -ldl
cp bench/gpu/device_pdl.sh "$D/"
ls -la "$D"
