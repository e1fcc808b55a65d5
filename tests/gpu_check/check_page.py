"""Checks a page written by scripts/gpu-check.sh --emulated: its sections, a row with numbers for
every example asked for, the correctness table, (with --mismatch) the planted failure, and the
sections of the campaign: sanitizer tools, profilers, apps, builds with machine code, clients,
time budget."""
import argparse
import re
import sys

NUMBER = re.compile(r"^\d+\.\d{3}( \(\d+\.\d{3}-\d+\.\d{3}\))?$")
DURATION = re.compile(r"^\d+(\.\d+)? (ns|us|ms)$")
SECTIONS = ["# cfrjit on the emulated driver", "## Verdict", "## How it was measured",
            "## Configurations", "## Device time relative to native", "## Adaptive policy",
            "## Cold cost per module", "## Correctness runs", "## Fallbacks and log lines"]


def section(text, title):
    start = text.index("\n" + title) + 1 if not text.startswith(title) else 0
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def rows(text):
    return [[c.strip() for c in line.strip().strip("|").split("|")]
            for line in text.splitlines() if line.startswith("|") and "---" not in line]


def check(cond, what):
    if not cond:
        print("page check:", what)
        sys.exit(1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("page")
    p.add_argument("--examples", default="")
    p.add_argument("--suite", default="")
    p.add_argument("--sanitizer", action="store_true")
    p.add_argument("--profilers", action="store_true")
    p.add_argument("--apps", default="", help="apps whose rows must show (and reset_app repeats)")
    p.add_argument("--arch-builds", action="store_true",
                   help="the examples' sm_90 and multi-architecture builds must show, rewritten")
    p.add_argument("--mismatch")
    p.add_argument("--no-jit-cost", action="store_true",
                   help="jit_cost is not built (CFRJIT_BENCH=OFF): the page must say so")
    a = p.parse_args()
    text = open(a.page).read()
    for title in SECTIONS:
        check(text.startswith(title) or "\n" + title in text, f"no section '{title}'")
    header = {r[0]: r[1] for r in rows(section(text, SECTIONS[0])) if len(r) == 2}
    check("emulated" in header.get("GPU", ""), f"GPU row: {header.get('GPU')}")
    check(header.get("date") and header.get("driver"), "date or driver missing")

    programs = [n for n in a.examples.split(",") if n] + [n for n in a.suite.split(",") if n]
    if a.mismatch:  # its runs differ, so none of them is timed
        programs = [n for n in programs if n != a.mismatch.rsplit("_", 1)[0]]
    timing = rows(section(text, "## Device time relative to native"))
    head = timing[0]
    check(head[:4] == ["program", "kernel", "launches", "native"], f"device-time header {head}")
    check({"default", "adaptive"} <= set(head), f"device-time columns {head}")
    for name in programs:
        found = [r for r in timing if r[0] in (name, f"**{name}**")]
        check(found, f"no device-time row for {name}")
        for r in found:
            check(DURATION.match(r[3]), f"{name}: native time '{r[3]}'")
            for column, cell in zip(head[4:], r[4:]):
                check(NUMBER.match(cell), f"{name}: {column} ratio '{cell}'")
    if a.suite:
        check("### Divergence suite" in text and "## Goals of issue 12" in text,
              "no suite table or goals")

    cold_text = section(text, "## Cold cost per module")
    cold = rows(cold_text)
    if a.no_jit_cost:
        check("Driver JIT not measured: jit_cost not built" in cold_text,
              "the cold-cost section does not say that jit_cost is not built")
    jit_cell = re.compile(r"^-$" if a.no_jit_cost else r"^\d.* / \d")
    for name in programs:
        found = [r for r in cold if r[0] == name]
        check(found, f"no cold-cost row for {name}")
        for r in found:
            check(re.match(r"^\d", r[3]), f"{name}: shim cold cost '{r[3]}'")
            check(jit_cell.match(r[5]) and jit_cell.match(r[6]),
                  f"{name}: driver JIT '{r[5]}', '{r[6]}'")

    verdict = section(text, "## Verdict")
    correctness = {r[0]: r[1:] for r in rows(section(text, "## Correctness runs"))[1:]}
    for name in [n for n in a.examples.split(",") if n]:
        check(name in correctness, f"no correctness row for {name}")
        forms = correctness[name][0].split(", ")
        check({"drv", "rt", "rt_shared"} <= set(forms), f"{name}: forms {forms}")
        if a.arch_builds:
            check({"rt_sm90", "rt_multiarch"} <= set(forms), f"{name}: forms {forms}")
    planted = a.mismatch.rsplit("_", 1)[0] if a.mismatch else None
    for program, cells in correctness.items():
        for cell in cells[2:]:  # after the forms and the native column (never compared)
            check(cell.startswith("ok") != (program == planted), f"correctness {program}: '{cell}'")
            if program == planted:
                check("**OUTPUT DIFFERS** (drv: " in cell, f"correctness {program}: '{cell}'")
    if a.mismatch:
        check("**CORRECTNESS FAILURE" in verdict, "the verdict does not report the failure")
        check(f"- **{a.mismatch}**: output differs under" in verdict,
              f"{a.mismatch} not listed in the verdict")
        check("gpu-check --inject-mismatch" in verdict, "the differing line is not shown")
    else:
        check(re.search(r"All \d+ runs under the shim printed exactly", verdict), verdict)

    if a.sanitizer:
        san = rows(section(text, "## compute-sanitizer"))
        want = ["program"] + [f"{t} {c}" for t in ("memcheck", "racecheck", "synccheck")
                              for c in ("native", "default", "adaptive")]
        check(san and san[0] == want, f"sanitizer header {san[:1]}")
        for name in [n for n in a.examples.split(",") if n]:
            found = [r for r in san if r[0] == f"{name}_drv"]
            check(found and all(c in ("0 errors", "0 errors, 0 warnings") for c in found[0][1:]),
                  f"sanitizer {found}")
            check(found[0][4] == "0 errors, 0 warnings", f"racecheck summary {found[0][4]}")
    if a.profilers:
        prof = section(text, "## ncu and nsys with the shim")
        for tool in ("ncu", "nsys"):
            check(re.search(rf"- \*\*{tool}\*\* \(`[^`]+`\) over short_circuit_drv: same",
                            prof), f"profiler {tool}: {prof}")
    if a.apps:
        apps = {r[0]: r for r in rows(section(text, "## Device resets, graphs, -rdc"))[1:]}
        for app in a.apps.split(","):
            found = [r for k, r in apps.items() if k.startswith(app + "_")]
            check(found, f"no row for app {app}")
            for r in found:
                check(r[1] == "same" and r[2].startswith("ok"), f"app row {r}")
        check(re.search(r"reset_app_static: ok \(\d+\)", text), "no repeated reset_app runs")
    if a.arch_builds:
        builds = rows(section(text, "## Builds with machine code"))[1:]
        for name in [n for n in a.examples.split(",") if n]:
            for form in ("rt_sm90", "rt_multiarch"):
                found = [r for r in builds if r[0] == f"{name}_{form}"]
                check(found and found[0][2].startswith("ok")
                      and found[0][4].startswith("rewritten: "), f"build row {found}")
    clients = section(text, "## PyTorch and CuPy")
    check("Not run (`--no-clients`)" in clients or ("pytorch" in clients and "cupy" in clients),
          f"clients section: {clients[:300]}")
    check("## Time budget" in text, "no time budget section")
    print("page check: OK")


if __name__ == "__main__":
    main()
