#!/usr/bin/env python3
"""The divergence suite on the emulator under each pipeline.

Runs every suite program (bench/divergence/<name>/, built into BUILD/bench/divergence/bin) at a
size (tiny unless told) on cfrjit's emulated driver: once natively (the column `none`) and once
under the shim (`cfrjit run`) per configuration. From each run it reads what the emulated driver
counted per kernel (CFRJIT_EMU_STATS: launches, warp instructions, SIMD efficiency, emulated
time) and, under the shim, the shim's JSON report (CFRJIT_REPORT: event-timed kernel time, what
the pipeline changed, and any per-kernel policy fields such as variant / decision). Every run
must pass its own check and print what the native run printed.

Writes OUT/divergence-suite.json (every number), OUT/divergence-suite.md (the tables) and
OUT/divergence-suite.html (the tables and a chart, scripts/html_page.py); with
--update-docs FILE, also replaces the generated part of FILE (between the markers
<!-- divergence-suite tables --> and <!-- end divergence-suite tables -->).

A configuration is a column: a pipeline (CFRJIT_PASSES; None = the shim's default), or a policy
(CFRJIT_POLICY). --adaptive adds the column `adaptive` (CFRJIT_POLICY=adaptive); --configs picks
columns by name; --warmup runs each shim configuration that many times first in the same cache
(a policy that decides across runs starts the measured run from its decisions).
"""
import argparse
import dataclasses
import glob
import json
import math
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SOURCE, "scripts"))
import html_page  # noqa: E402  (scripts/html_page.py)
BEGIN_MARK = "<!-- divergence-suite tables -->"
END_MARK = "<!-- end divergence-suite tables -->"


@dataclasses.dataclass(frozen=True)
class Config:
    name: str
    shim: bool = True  # False: the program runs natively, without the shim
    pipeline: str | None = None  # CFRJIT_PASSES; None: the shim's default pipeline
    env: tuple = ()  # extra (VAR, value) pairs for the shim, e.g. the policy

    def describe(self):
        if not self.shim:
            return "no shim"
        parts = [f"`{k}={v}`" for k, v in self.env]
        if self.pipeline is not None:
            parts.insert(0, f"`{self.pipeline}`")
        elif not parts:
            parts = ["the shim's default"]
        return ", ".join(parts)


NONE = Config("none", shim=False)
PIPELINES = [
    NONE,
    Config("default"),
    Config("loop+branch", pipeline="restructure-loops,restructure-branches"),
    Config("linearize", pipeline="linearize"),
    Config("lin merge=on", pipeline="linearize<merge-loops=on>"),
    Config("lin merge=auto", pipeline="linearize<merge-loops=auto>"),
    Config("blockip", pipeline="blockip-linearize"),
    Config("fuse-branches", pipeline="fuse-branches"),
]
# The adaptive policy's column: the shim chooses a variant per kernel (docs/policy.md).
ADAPTIVE = Config("adaptive", env=(("CFRJIT_POLICY", "adaptive"),))
ALL_CONFIGS = PIPELINES + [ADAPTIVE]

# Emulator counts kept per kernel, and the report's fields kept when present.
STATS_FIELDS = ["launches", "warp_instructions", "thread_instructions", "simd_efficiency",
                "emulated_ms", "divergent_branches", "redundant_block_executions",
                "max_stack_depth"]
REPORT_FIELDS = ["total_ns", "avg_ns", "changed_by", "selected", "instructions_before",
                 "instructions_after", "cache", "variant", "variants", "decision"]


def programs_in_source():
    return sorted(os.path.basename(os.path.dirname(p))
                  for p in glob.glob(os.path.join(HERE, "*", "kernel.cu")))


def run_once(args, program, config, work):
    """One run; returns {ok, output, kernels: {name: {...}}, pipeline, error, seconds}."""
    stats_path = os.path.join(work, "stats.json")
    report_path = os.path.join(work, "report.json")
    for path in (stats_path, report_path):
        if os.path.exists(path):
            os.remove(path)
    binary = os.path.join(args.build, "bench", "divergence", "bin", f"{program}_{args.api}")
    command = [binary, args.size]
    if args.iterations:
        command += ["--iterations", str(args.iterations)]
    env = dict(os.environ, CFRJIT_EMU_STATS=stats_path, CFRJIT_EMU_THREADS="1",
               CFRJIT_EMULATOR_LIB=args.emulator)
    for var in ("CFRJIT_PASSES", "CFRJIT_POLICY"):
        env.pop(var, None)
    if config.shim:
        cfrjit = os.path.join(args.build, "tools", "cfrjit")
        shim_args = [cfrjit, "run", "--emulator", "--cache-dir", os.path.join(work, "cache"),
                     "--report", report_path]
        if config.pipeline is not None:
            shim_args += ["--passes", config.pipeline]
        command = shim_args + ["--"] + command
        env.update(dict(config.env))
    else:
        env["LD_LIBRARY_PATH"] = args.emulator + ":" + env.get("LD_LIBRARY_PATH", "")
    start = time.monotonic()
    proc = subprocess.run(command, env=env, capture_output=True, text=True)
    result = {"ok": proc.returncode == 0, "output": proc.stdout, "kernels": {},
              "seconds": time.monotonic() - start}
    if proc.returncode != 0:
        result["error"] = f"exit {proc.returncode}: " + (proc.stdout + proc.stderr)[-400:]
    warnings = [line for line in proc.stderr.splitlines()
                if line.startswith(("cfrjit warning:", "cfrjit error:"))]
    if warnings:
        result["warnings"] = warnings
    if os.path.exists(stats_path):
        for k in json.load(open(stats_path))["kernels"]:
            result["kernels"][k["kernel"]] = {f: k.get(f) for f in STATS_FIELDS}
    if config.shim and result["ok"] and not os.path.exists(report_path):
        result["ok"] = False
        result["error"] = "the shim wrote no report (not preloaded?): " + proc.stderr[-300:]
    if config.shim and os.path.exists(report_path):
        report = json.load(open(report_path))
        result["pipeline"] = report.get("pipeline")
        for k in report["kernels"]:
            if k.get("launches", 0) == 0:
                continue
            entry = result["kernels"].setdefault(k["name"], {})
            entry["report"] = {f: k[f] for f in REPORT_FIELDS if f in k}
    return result


def run_all(args, programs, configs):
    results = {}
    for program in programs:
        results[program] = {}
        native_output = None
        for config in configs:
            with tempfile.TemporaryDirectory(prefix="cfrjit-divergence-") as work:
                # Warm-up runs share the measured run's cache (a policy may decide across runs).
                warmups = args.warmup if config.shim else 0
                for _ in range(warmups):
                    if not run_once(args, program, config, work)["ok"]:
                        break
                r = run_once(args, program, config, work)
            if config == NONE:
                native_output = r["output"]
            elif native_output is not None and r["ok"] and r["output"] != native_output:
                r["ok"] = False
                r["error"] = "output differs from the native run"
            results[program][config.name] = r
            status = "ok" if r["ok"] else "FAILED: " + r.get("error", "")
            print(f"run.py: {program} {config.name}: {status} ({r['seconds']:.1f} s)",
                  file=sys.stderr)
    return results


# ---- tables -------------------------------------------------------------------------------

def rows_of(results, program):
    """(label, kernel names) rows of a program: each kernel, and the program's total when it has
    more than one."""
    base = results[program].get(NONE.name) or next(iter(results[program].values()))
    kernels = sorted(base["kernels"])
    rows = [(k, [k]) for k in kernels]
    if len(kernels) > 1:
        rows.append(("(all kernels)", kernels))
    return rows


def total(run, kernels, field):
    if not run["ok"]:
        return None
    values = [run["kernels"].get(k, {}).get(field) for k in kernels]
    if any(v is None for v in values):
        return None
    return sum(values)


def simd(run, kernels):
    threads = total(run, kernels, "thread_instructions")
    warps = total(run, kernels, "warp_instructions")
    return None if threads is None or not warps else threads / (32 * warps)


def table(results, configs, title, value, fmt_base, fmt_other, best=min):
    """One Markdown table: a row per kernel, a column per configuration. `value(run, kernels)`
    gives the number; the base column shows it as is, the others as a ratio to the base (when
    fmt_other is 'ratio') or as is. The best value of a row is bold."""
    lines = [f"### {title}", "",
             "| program | kernel | " + " | ".join(c.name for c in configs) + " |",
             "| --- | --- |" + " ---: |" * len(configs)]
    for program in results:
        for label, kernels in rows_of(results, program):
            values = [value(results[program][c.name], kernels)
                      if c.name in results[program] else None for c in configs]
            present = [v for v in values if v is not None]
            winner = best(present) if present else None
            cells = []
            for i, v in enumerate(values):
                if v is None:
                    cells.append("FAIL" if configs[i].name in results[program] else "-")
                    continue
                if fmt_other == "ratio" and i > 0 and values[0]:
                    text = f"{v / values[0]:.3f}"
                else:
                    text = (fmt_base if i == 0 else fmt_other if fmt_other != "ratio"
                            else fmt_base).format(v)
                cells.append(f"**{text}**" if v == winner and len(present) > 1 else text)
            lines.append(f"| {program} | {label} | " + " | ".join(cells) + " |")
    return lines


def emulated_ratio(runs, config_name):
    """A program's emulated time (all kernels) under a configuration relative to none; None
    where either run failed or the configuration did not run."""
    if config_name not in runs:
        return None
    kernels = sorted(runs[NONE.name]["kernels"])
    base = total(runs[NONE.name], kernels, "emulated_ms")
    v = total(runs[config_name], kernels, "emulated_ms")
    return v / base if v is not None and base else None


def summary(results, configs):
    """Per configuration, over programs (the total of their kernels): the geometric mean of the
    emulated-time ratio to `none`, how many programs got faster or slower by more than 1%, the
    worst and best ratio, and the failures."""
    lines = ["### Summary (emulated time of each program, all kernels, relative to none)", "",
             "| configuration | what | geometric mean | faster (< 0.99) | slower (> 1.01) | "
             "best | worst | failed |", "| --- | --- | ---: | ---: | ---: | --- | --- | ---: |"]
    for c in configs[1:]:
        ratios, failed = [], 0
        for program, runs in results.items():
            if c.name not in runs:
                continue
            r = emulated_ratio(runs, c.name)
            if r is None:
                failed += 1
                continue
            ratios.append((r, program))
        if not ratios:
            lines.append(f"| {c.name} | {describe(c, results)} | - | - | - | - | - | {failed} |")
            continue
        gmean = math.exp(sum(math.log(r) for r, _ in ratios) / len(ratios))
        lo, hi = min(ratios), max(ratios)
        lines.append(f"| {c.name} | {describe(c, results)} | {gmean:.3f} | "
                     f"{sum(r < 0.99 for r, _ in ratios)} | {sum(r > 1.01 for r, _ in ratios)} | "
                     f"{lo[0]:.3f} ({lo[1]}) | {hi[0]:.3f} ({hi[1]}) | {failed} |")
    return lines


def adaptive_goals(results, configs):
    """When the adaptive column is there: per program, adaptive's emulated time against the best
    single configuration and against none (issue 12's goals: within 2% of the best, never more
    than 1% worse than the original)."""
    names = [c.name for c in configs]
    if ADAPTIVE.name not in names:
        return []
    singles = [c for c in configs if c != ADAPTIVE]
    lines = ["### Adaptive against the best single configuration", "",
             "| program | adaptive / none | adaptive / best | best | within 2% of best | "
             "at most 1% worse than none |", "| --- | ---: | ---: | --- | --- | --- |"]
    for program, runs in results.items():
        kernels = sorted(runs[NONE.name]["kernels"])
        times = {c.name: total(runs[c.name], kernels, "emulated_ms") for c in singles
                 if c.name in runs}
        times = {k: v for k, v in times.items() if v}
        adaptive = total(runs.get(ADAPTIVE.name, {"ok": False}), kernels, "emulated_ms")
        if adaptive is None or not times or NONE.name not in times:
            lines.append(f"| {program} | FAIL | | | | |")
            continue
        best_name = min(times, key=times.get)
        to_best, to_none = adaptive / times[best_name], adaptive / times[NONE.name]
        lines.append(f"| {program} | {to_none:.3f} | {to_best:.3f} | {best_name} | "
                     f"{'yes' if to_best <= 1.02 else 'no'} | {'yes' if to_none <= 1.01 else 'no'} |")
    return lines


def describe(config, results):
    """The configuration as the table header explains it, with the pipeline the shim reported
    where the configuration left it to the shim's default."""
    text = config.describe()
    if config.shim and config.pipeline is None and not config.env:
        used = {r.get("pipeline") for runs in results.values() for name, r in runs.items()
                if name == config.name and r.get("pipeline") is not None}
        if len(used) == 1:
            text += f" (`{used.pop() or '(empty)'}`)"
    return text


def markdown(results, configs, args):
    lines = [f"Size `{args.size}`"
             + (f", `--iterations {args.iterations}`" if args.iterations else "")
             + (f", {args.warmup} warm-up runs under the shim" if args.warmup else "")
             + f", `{args.api}` programs; emulated driver, one host thread.", "",
             "Configurations: " + "; ".join(f"`{c.name}` = {describe(c, results)}"
                                            for c in configs) + ".", ""]
    lines += summary(results, configs) + [""]
    lines += adaptive_goals(results, configs)
    if lines[-1] != "":
        lines.append("")
    lines += table(results, configs, "Emulated time (none: ms; others: ratio to none)",
                   lambda run, ks: total(run, ks, "emulated_ms"), "{:.4f}", "ratio") + [""]
    lines += table(results, configs, "Warp instructions (none: count; others: ratio to none)",
                   lambda run, ks: total(run, ks, "warp_instructions"), "{:,}", "ratio") + [""]
    lines += table(results, configs, "SIMD efficiency (active lanes per warp instruction, %)",
                   lambda run, ks: (lambda s: None if s is None else 100 * s)(simd(run, ks)),
                   "{:.1f}", "{:.1f}", best=max) + [""]
    failures = [(p, c, r.get("error", "")) for p, runs in results.items()
                for c, r in runs.items() if not r["ok"]]
    if failures:
        lines += ["### Failed runs", ""]
        lines += [f"- {p} under {c}: {e.strip().splitlines()[-1] if e.strip() else '?'}"
                  for p, c, e in failures]
        lines.append("")
    return "\n".join(lines)


def write_html(path, results, configs, text):
    """The page beside the Markdown: a chart of every program's emulated time per
    configuration relative to none, then the Markdown's tables."""
    programs = list(results)
    series = [(c.name, [emulated_ratio(results[p], c.name) for p in programs])
              for c in configs[1:]]
    chart = html_page.ratio_chart(
        programs, series, "Emulated time of each program (all kernels) under each configuration, "
        "relative to `none`: a bar left of 1 is faster, right of 1 slower.")
    with open(path, "w") as f:
        f.write(html_page.page("cfrjit: the divergence suite on the emulator",
                               chart + html_page.markdown_to_html(text)))


def update_docs(path, text):
    doc = open(path).read()
    begin, end = doc.find(BEGIN_MARK), doc.find(END_MARK)
    if begin < 0 or end < begin:
        sys.exit(f"run.py: {path} lacks the markers {BEGIN_MARK} ... {END_MARK}")
    doc = doc[:begin + len(BEGIN_MARK)] + "\n\n" + text.rstrip() + "\n\n" + doc[end:]
    open(path, "w").write(doc)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(SOURCE, "build"),
                        help="the build tree (default: %(default)s)")
    parser.add_argument("--out", default=os.path.join(SOURCE, "bench", "out"),
                        help="where the JSON and Markdown go (default: %(default)s)")
    parser.add_argument("--programs", help="comma-separated suite programs (default: all)")
    parser.add_argument("--configs", help="comma-separated configuration names (default: "
                        + ", ".join(c.name for c in PIPELINES) + "; also: adaptive)")
    parser.add_argument("--adaptive", action="store_true",
                        help="add the column adaptive (CFRJIT_POLICY=adaptive)")
    parser.add_argument("--warmup", type=int, default=0, metavar="N",
                        help="under the shim, run each program N times before the measured run, "
                        "in the same cache directory (default: 0)")
    parser.add_argument("--size", default="tiny", help="size argument of the programs")
    parser.add_argument("--iterations", type=int, help="--iterations for the programs")
    parser.add_argument("--api", choices=["drv", "rt"], default="drv",
                        help="Driver-API or runtime-API programs (default: drv)")
    parser.add_argument("--update-docs", metavar="FILE",
                        help="replace the generated tables in FILE")
    args = parser.parse_args()
    args.build = os.path.abspath(args.build)
    args.emulator = os.environ.get("CFRJIT_EMULATOR_LIB") or os.path.join(
        args.build, "emulator", "driver", "lib")

    programs = args.programs.split(",") if args.programs else programs_in_source()
    by_name = {c.name: c for c in ALL_CONFIGS}
    configs = ([by_name[n] for n in args.configs.split(",")] if args.configs
               else list(PIPELINES))
    if args.adaptive and ADAPTIVE not in configs:
        configs.append(ADAPTIVE)
    if NONE in configs:
        configs.remove(NONE)
    configs.insert(0, NONE)  # the baseline, always first
    for p in programs:
        binary = os.path.join(args.build, "bench", "divergence", "bin", f"{p}_{args.api}")
        if not os.path.exists(binary):
            sys.exit(f"run.py: {binary} missing (build the target divergence-suite)")

    results = run_all(args, programs, configs)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "divergence-suite.json"), "w") as f:
        json.dump({"size": args.size, "iterations": args.iterations, "api": args.api,
                   "warmup": args.warmup,
                   "configs": [dataclasses.asdict(c) for c in configs], "results": results},
                  f, indent=1)
    text = markdown(results, configs, args)
    with open(os.path.join(args.out, "divergence-suite.md"), "w") as f:
        f.write(text)
    write_html(os.path.join(args.out, "divergence-suite.html"), results, configs, text)
    if args.update_docs:
        update_docs(args.update_docs, text)
    print(text)
    return 0 if all(r["ok"] for runs in results.values() for r in runs.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
