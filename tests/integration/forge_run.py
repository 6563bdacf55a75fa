#!/usr/bin/env python3
"""forge_run.py IN OUT [--offset N] [--after HEX] [--cmd WORD]

What a forger with the file (and no key of corral's) can make: the first
run of journal IN, its start line's command word "true" replaced by WORD,
its place in the file ("offset", "after") set as given, every line sealed
again with a key of the forger's own, which its end line discloses. A
self-consistent run: only its place in the file, or a recorded head, can
tell it from one corral wrote (docs/journal.md, "A run's place in the
file"). Used by adv_journal_runs.sh.
"""
import argparse
import hashlib
import hmac
import os
import re

p = argparse.ArgumentParser()
p.add_argument("inp")
p.add_argument("out")
p.add_argument("--offset", type=int, default=0)
p.add_argument("--after", default="")
p.add_argument("--cmd", default="forged")
a = p.parse_args()

key = os.urandom(32)
lines = open(a.inp, "rb").read().split(b"\n")
run = []
for i, l in enumerate(lines):
    if not l:
        continue
    if l.startswith(b'{"event":"start",') and run:
        break
    run.append(l)

# A journal with places (schema 4) chains its start line to "after"; an
# older one starts from 32 zero bytes.
placed = b',"offset":' in run[0]
prev = bytes.fromhex(a.after) if a.after and placed else bytes(32)
out = []
for l in run:
    body = l[: l.rindex(b',"h":"')]
    if body.startswith(b'{"event":"start",'):
        body = body.replace(b'"command":["true"', b'"command":["%s"' % a.cmd.encode())
        place = b',"offset":%d' % a.offset
        if a.after:
            place += b',"after":"%s"' % a.after.encode()
        body = re.sub(rb',"offset":\d+(,"after":"[0-9a-f]{64}")?', place, body)
    if body.startswith(b'{"event":"end",'):
        body = re.sub(rb'"chain_key":"[0-9a-f]{64}"', b'"chain_key":"%s"' % key.hex().encode(), body)
    h = hmac.new(key, prev + body, hashlib.sha256).digest()
    prev = h
    out.append(body + b',"h":"' + h.hex().encode() + b'"}\n')
open(a.out, "wb").write(b"".join(out))
