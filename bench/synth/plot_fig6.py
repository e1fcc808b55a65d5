#!/usr/bin/env python3
"""Seed 000 Fig. 6 from a cfr-synth CSV: the minimal unstructured CFGs grouped by the redundant
block executions of the unrestructured kernel, a box-and-whisker plot of the dynamic instruction
overhead (warp instructions, restructured minus original) per group, the number of CFGs of each
group above its box. Boxes span the quartiles, whiskers reach 1.5 times the interquartile range,
points beyond are drawn as dots (as in seed 000 section V-C 2)."""

import argparse
import collections
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path, configuration, metric):
    groups = collections.defaultdict(list)
    for row in csv.DictReader(open(path, newline="")):
        if row["configuration"] != configuration:
            continue
        if row["status"].startswith(("MISMATCH", "ERROR")):
            continue
        groups[int(row["original_redundant"])].append(int(row[metric]))
    return dict(sorted(groups.items()))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("csv", help="cfr-synth run --csv output")
    parser.add_argument("output", help="output path without extension (.png and .svg written)")
    parser.add_argument("--config", action="append",
                        help="configuration to plot (repeatable; default: loop+branch, or "
                             "the first configuration in the CSV ending in +branch)")
    parser.add_argument("--metric", default="overhead_warp",
                        choices=["overhead_warp", "overhead_thread"])
    args = parser.parse_args()

    configurations = args.config
    if not configurations:
        names = []
        for row in csv.DictReader(open(args.csv, newline="")):
            if row["configuration"] not in names:
                names.append(row["configuration"])
        branch = [n for n in names if n.endswith("+branch")]
        configurations = ["loop+branch"] if "loop+branch" in names else branch[:1]
    if not configurations:
        print("plot_fig6: no branch-restructuring configuration in the CSV; nothing to plot")
        return 0

    fig, axes = plt.subplots(len(configurations), 1, squeeze=False,
                             figsize=(9, 4.2 * len(configurations)))
    for ax, configuration in zip(axes[:, 0], configurations):
        groups = load(args.csv, configuration, args.metric)
        if not groups:
            ax.set_title(f"{configuration}: no data")
            continue
        keys = list(groups)
        ax.boxplot([groups[k] for k in keys], positions=range(len(keys)), whis=1.5,
                   widths=0.6, flierprops={"marker": ".", "markersize": 3})
        ax.set_xticks(range(len(keys)))
        ax.set_xticklabels([str(k) for k in keys])
        ax.axhline(0, color="grey", linewidth=0.6, linestyle=":")
        top = ax.secondary_xaxis("top")
        top.set_xticks(range(len(keys)))
        top.set_xticklabels([str(len(groups[k])) for k in keys], fontsize=8)
        top.set_xlabel("number of CFGs")
        ax.set_xlabel("redundant basic block executions of the unstructured CFG")
        unit = "warp" if args.metric == "overhead_warp" else "thread"
        ax.set_ylabel(f"dynamic instruction overhead\n({unit} instructions)")
        total = sum(len(v) for v in groups.values())
        ax.set_title(f"{configuration}: {total} minimal unstructured CFGs", fontsize=10, pad=30)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(f"{args.output}.{ext}", dpi=150)
    print(f"plot_fig6: wrote {args.output}.png and {args.output}.svg")
    return 0


if __name__ == "__main__":
    sys.exit(main())
