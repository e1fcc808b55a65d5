#!/usr/bin/env python3
"""Turns the linearization benchmark's JSON (bench_linearization, cfr-synth run/random) into the
Markdown tables of docs/results/linearization.md: per-kernel emulator counts and static growth for
every configuration, seed 002's Tables 1, 3 and 4 beside the same measures on our kernels, loop
merging and what the cost model chose, the goals, and the synthetic CFGs."""
import json
import os
import re
import statistics
import sys

CONFIGS = ["none", "loop", "loop-copy", "loop+branch", "loop-copy+branch", "linearize O0", "linearize O1",
           "linearize O2", "linearize O3", "linearize merge=auto", "linearize selective",
           "linearize selective+profile", "blockip", "blockip selective+profile"]
SHORT = {"none": "none", "loop": "loop", "loop-copy": "l-copy", "loop+branch": "l+b", "loop-copy+branch": "lc+b", "linearize O0": "O0",
         "linearize O1": "O1", "linearize O2": "O2", "linearize O3": "O3",
         "linearize merge=auto": "O3 merge=auto", "linearize selective": "selective",
         "linearize selective+profile": "sel.+profile", "blockip": "blockip",
         "blockip selective+profile": "blockip sel.+profile"}
UNSTRUCTURED_DIVERGENT = ["short_circuit", "short_circuit_and_or", "loop_goto_exit",
                          "loop_jump_in", "irreducible", "switch_return", "multi_exit_loop",
                          "nqueens", "tree_walk", "goto_state_machine", "particlefilter", "photon",
                          "raycast"]
EXTRA = ["hotspot", "particlefilter", "photon", "raycast"]

# Seed 002, Table 1 (PTX, BB, Reg, SASS: before, after, after optimization), Table 3 (PTX:
# original, Wu et al.'s restructuring in Ocelot, linearized) and Table 4 (instructions executed:
# original, after, O1, O2, O3, O4), as printed in the paper.
SEED_TABLE1 = [
    ("hotspot", 269, 289, 275, 19, 30, 20, 30, 30, 383, 390),
    ("heartwall", 1422, 1442, 1432, 192, 206, 196, 32, 32, 2667, 2681),
    ("mcx", 1358, 1447, 1408, 138, 185, 148, 57, 63, 1139, 1252),
    ("mum", 232, 259, 256, 37, 51, 47, 22, 32, 202, 226),
    ("nqueen", 164, 175, 169, 30, 37, 31, 16, 18, 145, 148),
    ("particlefilter", 52, 63, 54, 10, 17, 10, 13, 13, 52, 51),
    ("ray", 780, 869, 805, 84, 148, 90, 43, 50, 933, 966),
]
SEED_TABLE3 = [("hotspot", 237, 242, 240), ("heartwall", 1422, 1452, 1432),
               ("particlefilter", 54, 78, 62)]
SEED_TABLE4 = [
    ("hotspot", "4.32e6", "4.90e6", "4.98e6", "4.88e6", "4.76e6", "4.57e6"),
    ("heartwall", "4.68e8", "4.69e8", "4.69e8", "4.69e8", "4.68e8", "4.71e8"),
    ("mcx", "2.64e10", "3.7e10", "3.36e10", "3.26e10", "3.18e10", "3.05e10"),
    ("mum", "7.80e6", "6.90e6", "6.66e6", "6.66e6", "6.60e6", "6.43e6"),
    ("nqueen", "5.94e4", "6.01e4", "6.05e4", "6.05e4", "6.03e4", "5.96e4"),
    ("particlefilter", "1.02e5", "1.77e5", "2.14e5", "1.86e5", "1.68e5", "1.49e5"),
    ("ray", "1.82e6", "2.50e6", "2.16e6", "2.13e6", "2.09e6", "1.89e6"),
]
# Our kernel in the spirit of each of seed 002's benchmarks.
SPIRIT = [("hotspot", "hotspot"), ("mcx", "photon"), ("mum", "tree_walk"), ("nqueen", "nqueens"),
          ("particlefilter", "particlefilter"), ("ray", "raycast")]


def load(path):
    with open(path) as f:
        return json.load(f)


def by_config(kernel):
    return {c["configuration"]: c for c in kernel["configurations"]}


def table(headers, rows, right=None):
    right = right or [i > 0 for i in range(len(headers))]
    out = ["| " + " | ".join(headers) + " |",
           "|" + "".join(" ---: |" if r else " --- |" for r in right)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def ratio(a, b):
    return f"{a / b:.2f}" if b else "-"


def pct(a, b):
    return f"{100 * (a - b) / b:+.1f}%" if b else "-"


def metric_tables(data, level):
    out = [f"### Every kernel, nvcc -{level}", ""]
    kernels = data["kernels"]

    def rows(value):
        result = []
        for k in kernels:
            c = by_config(k)
            result.append([k["kernel"]] + [value(c, name, k) if name in c and "launch" in c[name]
                                           else "-" for name in CONFIGS])
        return result

    headers = ["kernel"] + [SHORT[n] for n in CONFIGS]
    base = lambda c: c["none"]["launch"]
    out += ["Warp instructions relative to the original (none = the count):", "",
            table(headers, rows(lambda c, n, k: str(c[n]["launch"]["warp_instructions"])
                                if n == "none" else
                                ratio(c[n]["launch"]["warp_instructions"],
                                      base(c)["warp_instructions"]))), ""]
    out += ["SIMD efficiency (active lanes per warp instruction / 32):", "",
            table(headers, rows(lambda c, n, k: f"{100 * c[n]['launch']['simd_efficiency']:.0f}%")),
            ""]
    out += ["Redundant block executions (a block run again for other lanes in one divergence "
            "region):", "",
            table(headers, rows(lambda c, n, k: str(c[n]["launch"]["redundant_block_executions"]))),
            ""]
    out += ["Deepest reconvergence stack (1 = converged):", "",
            table(headers, rows(lambda c, n, k: str(c[n]["launch"]["max_stack_depth"]))), ""]
    out += ["Static growth in PTX instructions of the kernel:", "",
            table(headers, rows(lambda c, n, k: str(k["instructions_before"]) if n == "none"
                                else pct(c[n]["instructions"], k["instructions_before"]))), ""]
    out += ["Static growth in basic blocks:", "",
            table(headers, rows(lambda c, n, k: str(k["blocks_before"]) if n == "none"
                                else pct(c[n]["blocks"], k["blocks_before"]))), ""]
    bad = [(k["kernel"], n) for k in kernels for n, c in by_config(k).items()
           if "error" in c or not c.get("same_memory", False)]
    out += [f"Memory after every launch equal to the original's: "
            f"{'yes, all' if not bad else 'NO: ' + ', '.join(f'{a} {b}' for a, b in bad)}.", ""]
    return out


def decisions(data):
    out = ["### What the cost model chose", "",
           "Per kernel, the decisions of `linearize<merge-loops=auto>` (static weights), "
           "`linearize<selective=true,merge-loops=auto>` without and with the emulator profile of "
           "the original, and `blockip-linearize<selective=true>` with the profile:", ""]
    rows = []
    for k in data["kernels"]:
        c = by_config(k)
        for name in ["linearize merge=auto", "linearize selective", "linearize selective+profile",
                     "blockip selective+profile"]:
            for d in c.get(name, {}).get("decisions", []):
                if name == "linearize selective" and d.startswith("merge-loops"):
                    continue  # the same as merge=auto
                rows.append([k["kernel"], SHORT[name], d.replace("|", "/")])
    out += [table(["kernel", "configuration", "decision"], rows, [False, False, False]), ""]
    return out


def seed_tables(data):
    k = {x["kernel"]: by_config(x) for x in data["kernels"]}
    before = {x["kernel"]: x for x in data["kernels"]}
    out = ["### Seed 002's Tables 1, 3 and 4 beside ours", "",
           "Seed 002 (Ocelot, PTX 2.3, CUDA 4.2, Tesla C2070) on Rodinia and other benchmarks; "
           "ours on kernels written in their spirit (cfrjit's emulator, nvcc 13 -O3 PTX, ptxas "
           "13 -arch=sm_90 for registers and SASS; SASS = the kernel's .text size / 16, "
           "padding included). Bf = before, Af = linearize<opt=0>, AfOpt = linearize<opt=3>, "
           "Incr = AfOpt / Bf.", "",
           "Table 1, seed 002:", ""]
    head = ["benchmark", "PTX Bf", "PTX Af", "PTX AfOpt", "Incr", "BB Bf", "BB Af", "BB AfOpt",
            "Incr", "Reg Bf", "Reg AfOpt", "Incr", "SASS Bf", "SASS AfOpt", "Incr"]
    rows = []
    for (b, p0, p1, p2, bb0, bb1, bb2, r0, r2, s0, s2) in SEED_TABLE1:
        rows.append([b, p0, p1, p2, ratio(p2, p0), bb0, bb1, bb2, ratio(bb2, bb0), r0, r2,
                     ratio(r2, r0), s0, s2, ratio(s2, s0)])
    out += [table(head, rows), "", "Table 1, ours:", ""]
    rows = []
    for theirs, ours in SPIRIT:
        if ours not in k:
            continue
        c = k[ours]
        p0 = before[ours]["instructions_before"]
        bb0 = before[ours]["blocks_before"]
        p1, p2 = c["linearize O0"]["instructions"], c["linearize O3"]["instructions"]
        bb1, bb2 = c["linearize O0"]["blocks"], c["linearize O3"]["blocks"]
        r0, r2 = c["none"].get("registers", 0), c["linearize O3"].get("registers", 0)
        s0, s2 = c["none"].get("sass", 0), c["linearize O3"].get("sass", 0)
        rows.append([f"{ours} ({theirs})", p0, p1, p2, ratio(p2, p0), bb0, bb1, bb2,
                     ratio(bb2, bb0), r0, r2, ratio(r2, r0), s0, s2, ratio(s2, s0)])
    out += [table(head, rows), ""]
    out += ["Table 3 (PTX instructions; the restructuring column is seed 000's "
            "loop-copy+branch, the counterpart here of Wu et al.'s transformation):", "",
            table(["benchmark", "Orig", "Ocelot (Wu et al.)", "Linear"],
                  [list(r) for r in SEED_TABLE3]), ""]
    rows = []
    for theirs, ours in SPIRIT:
        if ours in k:
            c = k[ours]
            rows.append([f"{ours} ({theirs})", before[ours]["instructions_before"],
                         c["loop-copy+branch"]["instructions"], c["linearize O3"]["instructions"]])
    out += [table(["kernel", "Orig", "loop-copy+branch", "linearize O3"], rows), ""]
    out += ["Table 4 (instructions executed), seed 002 (O4 adds miscellaneous optimizations):", "",
            table(["benchmark", "Orig", "After", "O1", "O2", "O3", "O4"],
                  [list(r) for r in SEED_TABLE4]), "", "Table 4, ours (warp instructions on "
            "the emulator):", ""]
    rows = []
    for theirs, ours in SPIRIT:
        if ours in k:
            c = k[ours]
            w = lambda n: c[n]["launch"]["warp_instructions"]
            rows.append([f"{ours} ({theirs})", w("none"), w("linearize O0"), w("linearize O1"),
                         w("linearize O2"), w("linearize O3"),
                         ratio(w("linearize O3"), w("none"))])
    out += [table(["kernel", "Orig", "After (O0)", "O1", "O2", "O3", "O3 / Orig"], rows), ""]
    return out


PREDICTION = re.compile(r"loop at (\S+) line (\d+) into .*: ([0-9.]+) -> ([0-9.]+) cycles per "
                        r"outer iteration \(([0-9.]+)x\): (.*)$")


def merging(data):
    k = {x["kernel"]: by_config(x) for x in data["kernels"]}
    out = ["### Loop merging", "",
           "Warp instructions of the nested-loop kernels unchanged, with every nested loop merged "
           "(`merge-loops=on`) and where the cost model says it pays (`merge-loops=auto`); "
           "the model's prediction with unit weights (every instruction 1, what the emulator "
           "counts) beside the measured ratio of `merge-loops=on`:", ""]
    rows = []
    for name in ["nested_loops_heavy", "nested_loops_light", "loop_nest3", "nested_loops"]:
        if name not in k:
            continue
        c = k[name]
        w = lambda n: c[n]["launch"]["warp_instructions"]
        predicted = []
        for d in c["linearize merge=auto unit"].get("decisions", []):
            m = PREDICTION.search(d)
            if m:
                predicted.append(f"{m.group(5)}x")
        chose = "; ".join(d.split(": ")[-1] for d in c["linearize merge=auto"]["decisions"]
                          if d.startswith("merge-loops")) or "no nested loop"
        rows.append([name, w("none"), ratio(w("linearize merge=on"), w("none")),
                     ratio(w("linearize merge=auto"), w("none")), chose,
                     ", ".join(predicted) or "-"])
    out += [table(["kernel", "original", "merge=on", "merge=auto", "auto chose",
                   "predicted (unit weights)"], rows), ""]
    return out


def verdict(met):
    return "**met**" if met else "**not met**"


def unstructured_divergent(kernels):
    """Kernels with an unstructured edge (linearize rewrites them) and a divergent branch."""
    return [x for x, c in kernels.items() if c["linearize O0"].get("changed")
            and c["none"]["launch"]["divergent_branches"] > 0]


def goals(data, level):
    k = {x["kernel"]: by_config(x) for x in data["kernels"]}
    before = {x["kernel"]: x for x in data["kernels"]}
    examples = [x for x in k if x not in EXTRA]
    out = [f"### Goals (nvcc -{level} PTX)", ""]
    w = lambda c, n: c[n]["launch"]["warp_instructions"]
    targets = unstructured_divergent(k)
    out.append(f"Unstructured divergent kernels (an unstructured edge that `linearize` rewrites, "
               f"and a branch that diverged in the original launch): {', '.join(targets)}.")
    out.append("")
    for name in ["linearize O3", "linearize selective", "linearize selective+profile"]:
        worse = [(x, ratio(w(k[x], name), w(k[x], "none"))) for x in targets
                 if w(k[x], name) > w(k[x], "none")]
        ratios = [w(k[x], name) / w(k[x], "none") for x in targets]
        line = (f"- `{name}` executes more warp instructions than the original on {len(worse)} of "
                f"{len(targets)}" + (": " + ", ".join(f"{a} {b}x" for a, b in worse)
                                     if worse else "") +
                f" (after / before from {min(ratios):.2f} to {max(ratios):.2f}).")
        if name == "linearize O3":
            line += f" Goal (never more): {verdict(not worse)}."
        out.append(line)
    if "nested_loops_heavy" in k and "nested_loops_light" in k:
        h, l = k["nested_loops_heavy"], k["nested_loops_light"]
        cut_auto = 1 - w(h, "linearize merge=auto") / w(h, "none")
        cut_on = 1 - w(h, "linearize merge=on") / w(h, "none")
        untouched = not l["linearize merge=auto"]["changed"]
        out.append(f"- Loop merging on nested_loops_heavy: `merge-loops=auto` "
                   f"{100 * cut_auto:.1f}% fewer warp instructions, `merge-loops=on` "
                   f"{100 * cut_on:.1f}% (goal: at least 30%): {verdict(cut_auto >= 0.30)}. "
                   f"nested_loops_light under `merge-loops=auto`: "
                   f"{'left as it is' if untouched else 'changed'} (`merge-loops=on` would run "
                   f"{ratio(w(l, 'linearize merge=on'), w(l, 'none'))}x the warp instructions): "
                   f"{verdict(untouched)}.")
    growth = lambda x, n, key, base: (k[x][n][key] - before[x][base]) / before[x][base]
    for name in ["linearize O3", "linearize selective", "blockip", "blockip selective+profile"]:
        kernel = max(((x, growth(x, name, "instructions", "instructions_before")) for x in k),
                     key=lambda g: g[1])
        module = max(((x, growth(x, name, "module_instructions", "module_instructions_before"))
                      for x in k), key=lambda g: g[1])
        line = (f"- Static growth in PTX instructions under `{name}`: at most "
                f"{100 * kernel[1]:.1f}% per kernel ({kernel[0]}), at most {100 * module[1]:.1f}% "
                f"per module ({module[0]})")
        if name == "linearize O3":
            line += f"; goal at most 10% per kernel: {verdict(kernel[1] <= 0.10)}"
        if name == "linearize selective":
            line += (f"; goals at most 10% per kernel and at most 2% per module: "
                     f"{verdict(kernel[1] <= 0.10)}, {verdict(module[1] <= 0.02)}")
        out.append(line + ".")
    for name in ["linearize O0", "linearize O3", "linearize selective", "blockip"]:
        shares = [(x, k[x][name]["pass_seconds"] / k[x]["none"]["ptxas_seconds"])
                  for x in examples
                  if "pass_seconds" in k[x].get(name, {}) and k[x]["none"].get("ptxas_seconds")]
        if shares:
            worst = max(shares, key=lambda s: s[1])
            out.append(f"- `{name}` takes at most {100 * worst[1]:.2f}% of the time ptxas "
                       f"-arch=sm_90 takes on the same example module ({worst[0]}); median "
                       f"{100 * statistics.median(s for _, s in shares):.2f}%. Goal at most 1%: "
                       f"{verdict(worst[1] <= 0.01)}.")
    out.append("")
    return out


def synthetic_counts(counts):
    rows_by = {c["name"]: c["totals"] for c in counts["configurations"]}
    base = rows_by["none"]
    out = [f"`bench_linearization --synth-nodes {counts['nodes']}`: the same {counts['cfgs']} "
           f"CFGs, one warp of {counts['threads']} threads, every measure summed over them "
           "(static counts of the kernel; mean stack = the deepest stack of each CFG's run, "
           "averaged):", ""]
    rows = []
    for name, t in rows_by.items():
        rows.append([name, t["redundant_block_executions"], t["cfgs_with_redundant"],
                     t["warp_instructions"], ratio(t["warp_instructions"],
                                                   base["warp_instructions"]),
                     f"{100 * t['thread_instructions'] / (32 * t['warp_instructions']):.1f}%"
                     if t["warp_instructions"] else "-",
                     t["max_stack_depth"], f"{t['stack_depth_sum'] / t['cfgs']:.2f}",
                     pct(t["instructions"], base["instructions"]),
                     pct(t["blocks"], base["blocks"]), t["failures"]])
    out += [table(["configuration", "redundant executions", "CFGs with redundant",
                   "warp instructions", "vs none", "SIMD efficiency", "deepest stack",
                   "mean stack", "static instructions", "static blocks", "failures"], rows), ""]
    return out


def synthetic(run, random):
    out = ["### Synthetic CFGs", "",
           f"`cfr-synth run -n 7`: the {run['cfgs']} minimal unstructured acyclic CFGs of up to "
           f"7 nodes, every branch divergent, {run['threads']} threads. Overhead = warp "
           "instructions after minus before; SIMD efficiency and static growth summed over the "
           "CFGs.", ""]
    rows_by = {}
    for r in run["rows"]:
        rows_by.setdefault(r["configuration"], []).append(r)
    original = {r["id"]: r for r in rows_by.get("original", [])}
    rows = []
    for s in run["summary"]:
        name = s["configuration"]
        rs = rows_by.get(name, [])
        warp = sum(r["warp_instructions"] for r in rs)
        thread = sum(r["thread_instructions"] for r in rs)
        static = sum(r["static_instructions"] for r in rs)
        static0 = sum(original[r["id"]]["static_instructions"] for r in rs)
        over = sorted(r["overhead_warp"] for r in rs)
        redundant = sum(r["redundant"] for r in rs)
        rows.append([name, s["cfgs"], redundant, s["cfgs_with_redundant_after"],
                     f"{over[0]}..{over[-1]}" if over else "-",
                     statistics.median(over) if over else "-",
                     f"{100 * thread / (32 * warp):.1f}%" if warp else "-",
                     pct(static, static0), s["failures"]])
    red0 = sum(r["redundant"] for r in rows_by.get("original", []))
    w0 = sum(r["warp_instructions"] for r in rows_by.get("original", []))
    t0 = sum(r["thread_instructions"] for r in rows_by.get("original", []))
    rows.insert(0, ["original", len(original), red0, sum(1 for r in original.values()
                                                         if r["redundant"]), "-", "-",
                    f"{100 * t0 / (32 * w0):.1f}%", "-", 0])
    out += [table(["configuration", "CFGs", "redundant executions", "CFGs with redundant left",
                   "overhead min..max", "median", "SIMD efficiency", "static growth",
                   "failures"], rows), ""]
    out += [f"`cfr-synth random --seed {random['seed']}`: {random['graphs']} random CFGs with "
            f"loops ({', '.join(f'{v} {c}' for c, v in sorted(random['classes'].items()))}), "
            f"{random['runs']} kernel runs: mismatches {random['mismatches']}, errors "
            f"{random['errors']}, not tail-structured {random['not_tail_structured']}, "
            f"linearizations not of the promised shape {random['not_as_promised']}, ptxas "
            f"checked {random['ptxas_checked']} outputs and rejected {random['ptxas_failures']}. "
            f"Redundant block executions: original {random['redundant_original']}, "
            + ", ".join(f"{c} {v}" for c, v in sorted(random["redundant_after"].items())) + ".",
            ""]
    return out


def main():
    out_dir = sys.argv[1]
    data = load(os.path.join(out_dir, "linearization.json"))
    lines = ["## Tables (bench/linearization/run.sh)", ""]
    lines += goals(data, data["level"])
    lines += metric_tables(data, data["level"])
    o0 = os.path.join(out_dir, "linearization-O0.json")
    if os.path.exists(o0):
        d0 = load(o0)
        lines += goals(d0, d0["level"])
        lines += metric_tables(d0, d0["level"])
    lines += merging(data)
    lines += decisions(data)
    lines += seed_tables(data)
    run, random = (os.path.join(out_dir, f) for f in ("synth-run.json", "synth-random.json"))
    if os.path.exists(run) and os.path.exists(random):
        lines += synthetic(load(run), load(random))
    counts = os.path.join(out_dir, "synth-counts.json")
    if os.path.exists(counts):
        lines += synthetic_counts(load(counts))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
