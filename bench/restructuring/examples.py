#!/usr/bin/env python3
"""Classifies every example kernel before and after each of seed 000's six configurations and
measures static code growth, using cfr-opt. Writes a Markdown table and JSON."""
import argparse
import glob
import json
import os
import subprocess
import sys

CONFIGS = ["none", "no-restructuring", "loop", "loop-copy", "loop+branch", "loop-copy+branch"]


def classify(cfr_opt, ptx, config):
    out = subprocess.run([cfr_opt, "-i", ptx, "--config", config, "--classify", "--stats", "--json"],
                         check=True, capture_output=True, text=True).stdout
    return {f["name"]: f for f in json.loads(out)["functions"]}


def label(f):
    return f"{f['class']}{' (cyclic)' if f['cyclic'] else ''}"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("build")
    parser.add_argument("out")
    args = parser.parse_args()
    cfr_opt = os.path.join(args.build, "tools", "cfr-opt")
    files = sorted(glob.glob(os.path.join(args.build, "examples", "ptx", "*.ptx")))
    if not files:
        sys.exit(f"examples.py: no PTX under {args.build}/examples/ptx")
    rows = []
    for ptx in files:
        print(f"examples.py: {os.path.basename(ptx)}", file=sys.stderr)
        results = {c: classify(cfr_opt, ptx, c) for c in CONFIGS}
        for name, before in results["none"].items():
            row = {"file": os.path.basename(ptx), "function": name, "before": label(before),
                   "instructions": before["instructions"], "after": {}, "growth": {}}
            for c in CONFIGS[1:]:
                after = results[c][name]
                row["after"][c] = label(after)
                row["growth"][c] = (after["instructions"] - before["instructions"]) / before["instructions"]
            rows.append(row)

    lines = ["| module | before | after loop+branch | after loop-copy+branch | "
             + " | ".join(f"growth {c}" for c in CONFIGS[1:]) + " |",
             "|" + " --- |" * (4 + len(CONFIGS) - 1)]
    for r in rows:
        lines.append(f"| {r['file']} | {r['before']} | {r['after']['loop+branch']} | "
                     f"{r['after']['loop-copy+branch']} | "
                     + " | ".join(f"{100 * r['growth'][c]:+.1f}%" for c in CONFIGS[1:]) + " |")
    summary = ["", "| configuration | mean growth, all | mean growth, SESE and reducible | "
               "tail-structured after |", "| --- | --- | --- | --- |"]
    for c in CONFIGS[1:]:
        allg = [r["growth"][c] for r in rows]
        sub = [r["growth"][c] for r in rows if r["before"].split(" ")[0] in ("SESE", "reducible")]
        tail = sum(1 for r in rows if r["after"][c].startswith(("tail-structured", "linear")))
        mean_sub = f"{100 * sum(sub) / len(sub):+.1f}% ({len(sub)} functions)" if sub else "-"
        summary.append(f"| {c} | {100 * sum(allg) / len(allg):+.1f}% | {mean_sub} | "
                       f"{tail} of {len(rows)} |")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "examples_classes.md"), "w") as f:
        f.write("\n".join(lines + summary) + "\n")
    with open(os.path.join(args.out, "examples_classes.json"), "w") as f:
        json.dump(rows, f, indent=2)
    print("\n".join(lines + summary))


if __name__ == "__main__":
    main()
