#!/usr/bin/env python3
"""The table of a fuzzing campaign (bench/fuzz/run.sh): per target, from the last statistics line
libFuzzer's fork mode printed ("#N: cov: C ft: F corp: K exec/s E oom/timeout/crash: a/b/c"), and
the artifacts it left.

usage: summarize.py OUT_DIR SECONDS_PER_TARGET FUZZER...
"""
import json
import os
import re
import sys

STATS = re.compile(
    r"^#(\d+): cov: (\d+) ft: (\d+) corp: (\d+) exec/s:? (\d+) "
    r"oom/timeout/crash: (\d+)/(\d+)/(\d+) time: (\d+)s"
)


def target_result(out, name, seconds):
    log = os.path.join(out, "logs", name + ".log")
    last = None
    with open(log, errors="replace") as f:
        for line in f:
            m = STATS.match(line)
            if m:
                last = m
    artifacts_dir = os.path.join(out, "artifacts", name)
    artifacts = sorted(
        a for a in os.listdir(artifacts_dir)
        if a.startswith(("crash-", "leak-", "timeout-", "oom-", "slow-unit-"))
    )
    r = {"target": name, "seconds": seconds, "artifacts": artifacts}
    if last is None:
        r["error"] = "no statistics line in " + log
        return r
    execs, cov, ft, corp, _rate, ooms, timeouts, crashes, time = map(int, last.groups())
    r.update(executions=execs, cov=cov, ft=ft, corpus=corp, ooms=ooms, timeouts=timeouts,
             crashes=crashes, seconds=time)
    return r


def main():
    out, seconds = sys.argv[1], int(sys.argv[2])
    names = [os.path.basename(f)[: -len("_fuzzer")] for f in sys.argv[3:]]
    results = [target_result(out, n, seconds) for n in names]
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    lines = [
        "| target | seconds | executions | cov | ft | corpus | crashes | timeouts | ooms |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        if "error" in r:
            lines.append(f"| {r['target']} | {r['error']} | | | | | | | |")
            continue
        lines.append(
            f"| {r['target']} | {r['seconds']} | {r['executions']:,} | {r['cov']} | {r['ft']} "
            f"| {r['corpus']} | {r['crashes']} | {r['timeouts']} | {r['ooms']} |"
        )
    found = [(r["target"], a) for r in results for a in r["artifacts"]]
    if found:
        lines.append("")
        lines.append("Inputs kept (OUT_DIR/artifacts/TARGET/):")
        lines += [f"- {t}: {a}" for t, a in found]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(text)
    print(text, end="")
    sys.exit(1 if any("error" in r for r in results) else 0)


if __name__ == "__main__":
    main()
