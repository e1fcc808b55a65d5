#!/usr/bin/env python3
"""Checks the divergence map of a shim report (CFRJIT_REPORT of a run with CFRJIT_DIVERGENCE_MAP=1)
against the emulated driver's own count of the same program run without the shim
(CFRJIT_EMU_STATS: per kernel a divergence_map of function, line, visits, divergent).

usage: check_divergence_map.py REPORT.json EMU.json [--exact] [--divmap FILE] [--annotated]

--exact      the report's pipeline is `divergence-map` alone: every instrumented branch (kernel,
             line) must have the emulator's visits and divergent counts, and every branch the
             emulator saw that is not instrumented must never have diverged (it was proved
             uniform). Without it (another pipeline before the map): counts must be present, in
             kernels the emulator ran.
--divmap F   F is what `cfrjit divmap REPORT.json` printed: its summary must give the report's
             totals.
--annotated  F must annotate CUDA source lines (the PTX had line information).
Prints one summary line; exits 1 with the failed check.
"""
import json
import re
import sys
from collections import defaultdict


def fail(message):
    print(f"check_divergence_map: {message}")
    sys.exit(1)


def add(table, key, visits, divergent):
    v, d = table[key]
    table[key] = (v + visits, d + divergent)


def shim_counts(report):
    if "divergence_map" not in report:
        fail("the report has no divergence_map list")
    counts = defaultdict(lambda: (0, 0))
    for b in report["divergence_map"]:
        for field in ("kernel", "line", "source", "visits", "divergent"):
            if field not in b:
                fail(f"entry without {field}: {b}")
        if b["source"] is not None and not re.fullmatch(r".+:\d+", b["source"]):
            fail(f"source is not file:line: {b}")
        if b["divergent"] > b["visits"]:
            fail(f"more divergent visits than visits: {b}")
        add(counts, (b["kernel"], b["line"]), b["visits"], b["divergent"])
    return counts


def emulator_counts(stats):
    counts = defaultdict(lambda: (0, 0))
    for k in stats["kernels"]:
        for b in k.get("divergence_map", []):
            add(counts, (b["function"], b["line"]), b["visits"], b["divergent"])
    return counts


def check_exact(shim, emu):
    for key, got in shim.items():
        want = emu.get(key, (0, 0))
        if got != want:
            fail(f"{key[0]} line {key[1]}: shim {got[0]} visits / {got[1]} divergent, "
                 f"emulator {want[0]} / {want[1]}")
    uniform = [key for key in emu if key not in shim]
    for key in uniform:
        if emu[key][1] != 0:
            fail(f"{key[0]} line {key[1]} diverged {emu[key][1]} times on the emulator but "
                 f"was not instrumented")
    return len(uniform)


def check_divmap(path, shim, annotated):
    text = open(path).read()
    visits = sum(v for v, _ in shim.values())
    divergent = sum(d for _, d in shim.values())
    m = re.search(r"(\d+) branch(?:es)?, ([\d,]+) divergent of ([\d,]+) warp visits", text)
    if not m:
        fail(f"cfrjit divmap printed no summary: {text[:200]!r}")
    got = (int(m.group(2).replace(",", "")), int(m.group(3).replace(",", "")))
    if got != (divergent, visits):
        fail(f"cfrjit divmap: {got[0]} divergent of {got[1]} visits, report "
             f"{divergent} of {visits}")
    # "    15          3,840 / 4,608 (36 br) |     if (ixj > tid) {"
    if annotated and not re.search(r"^\s*\d+\s+[\d,]+ / [\d,]+ .*\| ", text, re.M):
        fail(f"cfrjit divmap annotated no source line: {text[:300]!r}")


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        fail(__doc__)
    report = json.load(open(args[0]))
    stats = json.load(open(args[1]))
    exact = "--exact" in args
    shim = shim_counts(report)
    emu = emulator_counts(stats)
    if not report["pipeline"].endswith("divergence-map"):
        fail(f"pipeline {report['pipeline']!r} does not end with divergence-map")
    if exact and report["pipeline"] != "divergence-map":
        fail(f"pipeline {report['pipeline']!r}, expected divergence-map alone")
    if not any(v > 0 for v, _ in shim.values()):
        fail(f"no branch counted a visit: {dict(shim)}")
    ran = {k["kernel"] for k in stats["kernels"]} | {f for f, _ in emu}
    for kernel, _ in shim:
        if kernel not in ran:
            fail(f"{kernel} is in the map but the emulator never ran it")
    uniform = check_exact(shim, emu) if exact else 0
    if "--divmap" in args:
        check_divmap(args[args.index("--divmap") + 1], shim, "--annotated" in args)
    visits = sum(v for v, _ in shim.values())
    divergent = sum(d for _, d in shim.values())
    how = "equal to the emulator's" if exact else "present"
    print(f"{len(shim)} branches {how} ({uniform} uniform ones not instrumented): "
          f"{visits} warp visits, {divergent} divergent")


if __name__ == "__main__":
    main()
