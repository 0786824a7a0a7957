#!/usr/bin/env bash
# nvcc with a content-addressed cache of kernel libraries (issue 13, helper
# pp2), for `cake run` on the device (CAKE_NVCC=this script): when the
# command compiles one lowered .cu into a shared library and
# $NVCC_CACHE/<key>.so exists, where key = sha256 of the .cu's bytes and of
# the flags with the .cu and -o paths left out, that library is copied to
# the -o path instead of compiling; otherwise the real nvcc ($REAL_NVCC,
# default /usr/local/cuda/bin/nvcc) runs. The cache is filled on the build
# machine by the same `cake run` commands with NVCC_CACHE_FILL=1 (compiles,
# then stores the library under its key; the run itself stops at no_gpu
# there). The key includes `nvcc --version`'s release line, so a device
# with another nvcc misses and compiles. Each hit and miss is
# reported on stderr, which cake run keeps in its record's detail.
set -u
log() { echo "nvcc-cache: $*" >&2; [ -n "${NVCC_CACHE_LOG:-}" ] && echo "nvcc-cache: $*" >> "$NVCC_CACHE_LOG"; return 0; }
REAL=${REAL_NVCC:-/usr/local/cuda/bin/nvcc}
C=${NVCC_CACHE:-$(dirname "$0")/socache}
key() {  # key CU FLAGS... (the flags without the .cu and -o paths)
  { sha256sum < "$1"; shift; printf '%s\n' "$@"; "$REAL" --version | grep release; } | sha256sum | cut -c1-24
}
split() {  # sets CU, SO, FLAGS from an nvcc command line
  CU=""; SO=""; FLAGS=(); local prev=""
  for a in "$@"; do
    if [ "$prev" = -o ]; then SO=$a
    elif [ "$a" = -o ]; then :
    elif [[ $a == *.cu ]]; then CU=$a
    else FLAGS+=("$a"); fi
    prev=$a
  done
}
if [ "${NVCC_CACHE_FILL:-0}" = 1 ]; then
  mkdir -p "$C"
  split "$@"
  [ -n "$CU" ] && [ -n "$SO" ] || exec "$REAL" "$@"
  k=$(key "$CU" "${FLAGS[@]}")
  if [ -f "$C/$k.so" ]; then cp "$C/$k.so" "$SO"; log "$k already filled for $CU"; exit 0; fi
  "$REAL" "$@" || exit $?
  cp "$SO" "$C/$k.so"; log "filled $k from $CU"
  exit 0
fi
split "$@"
if [ -n "$CU" ] && [ -n "$SO" ]; then
  k=$(key "$CU" "${FLAGS[@]}")
  if [ -f "$C/$k.so" ]; then cp "$C/$k.so" "$SO" && log "hit $k for $CU" && exit 0; fi
  log "miss $k for $CU"
fi
exec "$REAL" "$@"
