#!/usr/bin/env python3
"""The control bits of each instruction in `nvdisasm -c -hex` output (helper sm80h, issue 13, session 19): stall count,
yield, write / read scoreboard barriers, wait mask and reuse, from the second 64-bit word (Volta and later).
Usage: sass_ctrl.py FILE.sass [LO_HEX HI_HEX] (an address range)"""
import re, sys
# join each instruction line with the next line's second hex word; print stall/yield/wbar/rbar/wait/reuse
lines = open(sys.argv[1]).read().splitlines()
lo, hi = (int(sys.argv[2], 16), int(sys.argv[3], 16)) if len(sys.argv) > 3 else (0, 1 << 40)
i = 0
while i < len(lines):
    m = re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?);\s*/\* (0x[0-9a-f]+) \*/', lines[i])
    if m and i + 1 < len(lines):
        m2 = re.search(r'/\* (0x[0-9a-f]+) \*/', lines[i + 1])
        addr = int(m.group(1), 16)
        if m2 and lo <= addr <= hi:
            h = int(m2.group(1), 16)
            c = h >> 41
            stall = c & 0xf; yld = (c >> 4) & 1; wb = (c >> 5) & 7; rb = (c >> 8) & 7; wt = (c >> 11) & 0x3f; reuse = (c >> 17) & 0xf
            print(f"{addr:05x} s{stall:2d} y{yld} w{wb if wb != 7 else '-'} r{rb if rb != 7 else '-'} W{wt:06b}  {m.group(2).strip()}")
        i += 2
    else:
        i += 1
