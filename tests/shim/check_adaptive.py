#!/usr/bin/env python3
"""Checks the JSON reports of consecutive runs under CFRJIT_POLICY=adaptive (run_adaptive.sh)."""
import argparse
import json
import re
import sys


def launched(report):
    return [k for k in report["kernels"] if k["launches"] > 0]


def check_run(path, report, problems):
    if report.get("policy") != "adaptive":
        problems.append(f"{path}: policy {report.get('policy')!r}, want 'adaptive'")
    names = set()
    for k in launched(report):
        if not k.get("variant"):
            problems.append(f"{path}: {k['name']} has no variant")
            continue
        names.add(k["variant"])
        variants = {v["name"]: v for v in k.get("variants", [])}
        if k["decision"] not in ("measured", "cache", "undecided", "fixed"):
            problems.append(f"{path}: {k['name']}: decision {k['decision']!r}")
        if k["decision"] == "fixed" and len(variants) > 1:
            problems.append(f"{path}: {k['name']}: fixed with {len(variants)} variants")
        if k["decision"] == "measured":
            measured = {n: v for n, v in variants.items() if v["samples"] and not v["dropped"]}
            best = min(v["median_ms"] for v in measured.values())
            chosen = measured.get(k["variant"])
            if chosen is None or chosen["median_ms"] > best * 1.000001 and not tie(measured):
                problems.append(f"{path}: {k['name']} settled on {k['variant']} "
                                f"({chosen and chosen['median_ms']}), the cheapest took {best}")
        if k["variant"] in variants and variants[k["variant"]]["dropped"]:
            problems.append(f"{path}: {k['name']} runs the dropped variant {k['variant']}")
    return names


def tie(variants, max_samples=30):
    """Indistinguishable after the decision rule's most launches: resolved for the original."""
    return all(v["samples"] >= max_samples for v in variants.values())


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("reports", nargs="+")
    p.add_argument("--fault", metavar="LOGS",
                   help="every variant was refused: check the runs' logs (comma-separated)")
    p.add_argument("--expect-cheaper", action="store_true",
                   help="some kernel with variants of different cost was decided on the cheapest")
    p.add_argument("--expect-decided", action="store_true",
                   help="the last run starts every kernel with variants decided, from the cache")
    a = p.parse_args()
    problems = []
    reports = [json.load(open(r)) for r in a.reports]
    for path, r in zip(a.reports, reports):
        check_run(path, r, problems)
    for (p1, r1), (p2, r2) in zip(zip(a.reports, reports), zip(a.reports[1:], reports[1:])):
        later = {k["name"]: k for k in launched(r2)}
        for k in launched(r1):
            if k["decision"] in ("measured", "cache") and k["name"] in later:
                k2 = later[k["name"]]
                if k2["decision"] != "cache" or k2["variant"] != k["variant"]:
                    problems.append(f"{p2}: {k['name']} decided on {k['variant']} before, now "
                                    f"{k2['decision']} {k2['variant']}")
    with_variants = [k for r in reports for k in launched(r) if len(k.get("variants", [])) > 1]
    if a.fault:
        # One log per run, in the order of the reports: every variant a run tried was refused,
        # dropped, and logged exactly once in that run.
        logs = a.fault.split(",")
        any_dropped = False
        for path, r, log_path in zip(a.reports, reports, logs):
            dropped = re.findall(r"kernel (\S+): variant '([^']+)' dropped", open(log_path).read())
            if len(dropped) != len(set(dropped)):
                problems.append(f"{log_path}: a variant was dropped with more than one log line")
            any_dropped = any_dropped or bool(dropped)
            for k in launched(r):
                for v in k.get("variants", [])[1:]:
                    tried = v["launches"] > 0 or v["dropped"]
                    if tried and (k["name"], v["name"]) not in dropped:
                        problems.append(f"{path}: {k['name']}: variant {v['name']} refused "
                                        f"without a log line")
                    if tried and not v["dropped"]:
                        problems.append(f"{path}: {k['name']}: variant {v['name']} not dropped")
                if k["variant"] != "original":
                    problems.append(f"{path}: {k['name']}: runs {k['variant']} though every "
                                    f"variant was refused")
        if not any_dropped:
            problems.append("no variant was dropped")
    if a.expect_cheaper:
        decided = [k for r in reports for k in launched(r) if k["decision"] == "measured" and
                   len({v["median_ms"] for v in k["variants"] if v["samples"]}) > 1]
        if not decided:
            problems.append("no kernel with variants of different cost was decided")
    if a.expect_decided:
        for k in launched(reports[-1]):
            if len(k.get("variants", [])) > 1 and k["decision"] != "cache":
                problems.append(f"{a.reports[-1]}: {k['name']} is {k['decision']}, not decided "
                                f"from the cache")
    for k in launched(reports[-1]):
        shown = ", ".join(f"{v['name']} {v['launches']}x {v['median_ms']:.6f} ms"
                          for v in k.get("variants", []))
        print(f"{k['name']}: {k['variant']} ({k['decision']}) [{shown}]")
    print(f"{len(with_variants)} kernel report(s) with candidate variants")
    for problem in problems:
        print("FAILED:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
