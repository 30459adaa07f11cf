#!/usr/bin/env python3
# The order of a SASS listing's barriers, mbarrier waits, ex2s, wgmma issues and waits, runs
# compressed: what ptxas did with a warp-specialised loop's turns (bar.sync / bar.arrive) and the
# work between them. On the GPU machine (the build machine has no disassembler):
#   ptxas -arch=sm_90a k.ptx -o k.cubin && cuobjdump -sass k.cubin > k.sass && python3 sass-order.py k.sass
# with k.ptx from `tilec --kernel=... --spec=... --stage=ptx`, carried in .device/.
import re
import sys

PATTERN = re.compile(r'(BAR\.SYNC\S*\s+\S+|BAR\.ARV\s+\S+|MUFU\.EX2|HGMMA\.\S+|WARPGROUP\.ARRIVE|'
                     r'WARPGROUP\.DEPBAR\.LE gsb0, 0x\d|SYNCS\.PHASECHK\S*)')
runs = []
for line in open(sys.argv[1]):
    m = PATTERN.search(line)
    if not m:
        continue
    key = m.group(1).split()[0] if m.group(1).startswith(('HGMMA', 'MUFU')) else m.group(1)
    if runs and runs[-1][0] == key:
        runs[-1][1] += 1
    else:
        runs.append([key, 1])
print(' | '.join(k if n == 1 else f'{k}x{n}' for k, n in runs))
