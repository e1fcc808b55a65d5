#!/usr/bin/env python3
"""The table of a fuzzing campaign (bench/fuzz/run.sh). Per target: the CPU and wall time its
rounds used (OUT_DIR/logs/TARGET/usage), the executions of all rounds and the coverage reached,
from the last statistics line each round's libFuzzer printed in fork mode
("#N: cov: C ft: F corp: K exec/s E oom/timeout/crash: a/b/c time: Ts"), and the inputs it kept,
grouped into distinct findings by the SUMMARY line the target prints when it runs one again.

usage: summarize.py OUT_DIR FUZZER...
"""
import glob
import json
import os
import re
import subprocess
import sys

STATS = re.compile(
    r"^#(\d+): cov: (\d+) ft: (\d+) corp: (\d+) exec/s:? (\d+) "
    r"oom/timeout/crash: (\d+)/(\d+)/(\d+) time: (\d+)s"
)
KEPT = ("crash-", "leak-", "timeout-", "oom-", "slow-unit-")


def last_stats(log):
    last = None
    with open(log, errors="replace") as f:
        for line in f:
            m = STATS.match(line)
            if m:
                last = [int(g) for g in m.groups()]
    return last


def finding_of(fuzzer, artifact):
    """The sanitizer's or libFuzzer's SUMMARY line for one input, run again alone."""
    try:
        run = subprocess.run([fuzzer, "-timeout=10", "-rss_limit_mb=2048", artifact],
                             capture_output=True, text=True, errors="replace", timeout=120)
    except subprocess.TimeoutExpired:
        return "SUMMARY: hangs when run again"
    for line in (run.stdout + run.stderr).splitlines():
        if line.startswith("SUMMARY:"):
            return line.strip()
    return "SUMMARY: does not fail when run again"


def target_result(out, fuzzer):
    name = os.path.basename(fuzzer)[: -len("_fuzzer")]
    logs = os.path.join(out, "logs", name)
    cpu, wall, rounds = (int(x) for x in open(os.path.join(logs, "usage")).read().split())
    r = {"target": name, "cpu_seconds": cpu, "wall_seconds": wall, "rounds": rounds,
         "executions": 0, "ooms": 0, "timeouts": 0, "crashes": 0}
    logs_in_order = sorted(glob.glob(os.path.join(logs, "round*.log")),
                           key=lambda p: int(re.search(r"round(\d+)", p).group(1)))
    for log in logs_in_order:
        s = last_stats(log)
        if s is None:
            continue
        execs, cov, ft, corp, _rate, ooms, timeouts, crashes, _time = s
        r["executions"] += execs
        r.update(cov=cov, ft=ft, corpus=corp)
        r["ooms"] += ooms
        r["timeouts"] += timeouts
        r["crashes"] += crashes
    if "cov" not in r:
        r["error"] = "no statistics line in " + logs
    artifacts_dir = os.path.join(out, "artifacts", name)
    findings = {}
    for a in sorted(os.listdir(artifacts_dir)):
        if a.startswith(KEPT):
            findings.setdefault(finding_of(fuzzer, os.path.join(artifacts_dir, a)), []).append(a)
    r["findings"] = [{"summary": k, "inputs": len(v), "example": v[0]}
                     for k, v in findings.items()]
    return r


def main():
    out = sys.argv[1]
    results = [target_result(out, f) for f in sys.argv[2:]]
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    lines = [
        "| target | CPU s | wall s | executions | cov | ft | corpus | crashes | timeouts | ooms |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        if "error" in r:
            lines.append(f"| {r['target']} | {r['error']} | | | | | | | | |")
            continue
        lines.append(
            f"| {r['target']} | {r['cpu_seconds']} | {r['wall_seconds']} | {r['executions']:,} "
            f"| {r['cov']} | {r['ft']} | {r['corpus']} | {r['crashes']} | {r['timeouts']} "
            f"| {r['ooms']} |"
        )
    found = [(r["target"], f) for r in results for f in r["findings"]]
    if found:
        lines.append("")
        lines.append("Distinct findings (inputs in OUT_DIR/artifacts/TARGET/):")
        lines += [f"- {t}: {f['summary']} ({f['inputs']} inputs, e.g. {f['example']})"
                  for t, f in found]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(text)
    print(text, end="")
    sys.exit(1 if any("error" in r for r in results) else 0)


if __name__ == "__main__":
    main()
