#!/usr/bin/env python3
"""Texture fetches under ptxvm against an H200, where not every one is bit-exact.

kernels/apps/texture_probe --filtering (linear filtering and sRGB) and kernels/apps/
texture_ptx_probe (texel offsets, depth compare, cubemap gathers): ptxvm reproduces the texture
unit's tap weights and arithmetic as measured (emulator/semantics/Texture.cpp: sample, filterSum),
not one 3-D filter whose tap weights tie (texture_probe's "volume" line): fetches are compared bit for bit where they agree,
and every channel within a relative bound of the larger of the two values where they do not. Each line is "LABEL INPUTS... : R G B A". The bound and the number of bit-exact lines
are what was measured when the recording was made; this test fails when either gets worse.

usage: filtering.py --ptxvm PTXVM --binary PROGRAM --expected FILE [--args ARG...] [--min-exact N]
                    [--bound B]
"""
import argparse
import struct
import subprocess
import sys

BOUND = 1e-2  # worst relative difference of a channel (measured: 0.03%, the 3-D filter)
# texture_probe --filtering: 595 lines bit-exact of 596 (the other: one 3-D filter whose tap weights
# tie; sRGB and the levels of detail are exact since their tables were measured).
MIN_EXACT = 595


def as_float(word):
    return struct.unpack("<f", struct.pack("<I", int(word, 16)))[0]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ptxvm", required=True)
    p.add_argument("--binary", required=True)
    p.add_argument("--expected", required=True)
    p.add_argument("--args", nargs="*", default=["--filtering"])
    p.add_argument("--min-exact", type=int, default=MIN_EXACT)
    p.add_argument("--bound", type=float, default=BOUND)
    a = p.parse_args()
    run = subprocess.run([a.ptxvm, "exec", "--", a.binary, *a.args], capture_output=True, text=True,
                         timeout=150)
    got = run.stdout.splitlines()
    with open(a.expected, encoding="utf-8") as f:
        want = f.read().splitlines()
    if run.returncode != 0 or len(got) != len(want):
        print(f"{a.binary} {' '.join(a.args)}: exit {run.returncode}, {len(got)} lines (want {len(want)})")
        print(run.stderr[-2000:])
        return 1
    exact, worst, where = 0, 0.0, ""
    for g, w in zip(got, want):
        if g == w:
            exact += 1
            continue
        gp, wp = g.split(), w.split()
        first = gp.index(":") + 1 if ":" in gp else 0
        if not first or gp[:first] != wp[:first] or len(gp) != first + 4 or len(wp) != first + 4:
            print(f"lines differ in what they fetched:\n  ptxvm: {g}\n  GPU:   {w}")
            return 1
        for k in range(first, first + 4):
            x, y = as_float(gp[k]), as_float(wp[k])
            if x != y:
                scale = max(abs(x), abs(y))
                rel = abs(x - y) / scale if scale == scale and scale not in (0.0, float("inf")) else float("inf")
                if rel > worst:
                    worst, where = rel, w
    print(f"{exact} of {len(want)} lines bit-exact; worst relative difference {worst:.3g} ({where})")
    if worst > a.bound or exact < a.min_exact:
        print(f"FAILED: the bound is {a.bound}, at least {a.min_exact} lines exact")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
