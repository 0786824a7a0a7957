#!/usr/bin/env bash
# SASS of a lowered .cu without the device: nvcc (CUDA 13, here) builds the sm_90 cubin of the H200 from
# the kernel's compute_80 PTX; CUDA 13 has no cuobjdump / nvdisasm here, so this uses the nvdisasm of
# Debian bookworm's nvidia-cuda-toolkit 11.8 (non-free), which knows sm_90 SASS but not CUDA 13's ELF
# header: the cubin's OS ABI (0x41 -> 0x33), ABI version (8 -> 7) and e_flags (-> 0x005a055a, sm_90) are
# rewritten to the old form first. The addresses match the device's cuobjdump of the same kernel, but
# 11.8 leaves out the opcodes it does not know (VIADD: a gap in the addresses; fragsp12's loop path 780
# instructions here, 791 in the device's SASS) and prints no desc[UR] operands (docs/gpu.md "sm_80: two
# cp.async chunks of a row per thread"). Then bench/gpu/sass_path_census.py on the result.
# Set-up once (the .deb only, unpacked, nothing installed):
#   a sources file with "Components: non-free" for bookworm under /etc/apt/sources.list.d/, apt-get update,
#   apt-get download nvidia-cuda-toolkit && dpkg -x nvidia-cuda-toolkit_*.deb $NVD  (then remove the file)
# Usage: NVD=/tmp/nvd bash bench/gpu/sass_local.sh X.cu   -> X.sass beside it, the census printed
set -eu
cu=$1; b=${cu%.cu}
NVD=${NVD:-/tmp/nvd}
nice /usr/local/cuda/bin/nvcc -std=c++17 -O3 -Irunner/harness -Iabi -cubin -gencode=arch=compute_80,code=sm_90 \
  -Xptxas -v "$cu" -o "$b.cubin" 2>&1 | grep -o 'Used [0-9]* registers\|[0-9]* bytes spill stores' | tr '\n' ' '
python3 -c "
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[7] = 0x33; b[8] = 7
struct.pack_into('<I', b, 0x30, 0x005a055a)
open(sys.argv[2], 'wb').write(b)" "$b.cubin" "$b.old.cubin"
"$NVD/usr/bin/nvdisasm" -c "$b.old.cubin" > "$b.sass"
python3 "$(dirname "$0")/sass_path_census.py" "$b.sass" "${HMMA_PER_KBLOCK:-128}"
