"""Writes the results page (docs/results/gpu.md) from a finished check."""
import os
import traceback
from collections import Counter, defaultdict

import compare
import page_tools
import stats
from configs import ADAPTIVE, EMPTY, NATIVE
from page_tools import table
from programs import APP, EXAMPLE, SUITE

# Module outcomes of the shim's report that are what the configuration asks for: a rewritten
# module, or (adaptive policy) the original loaded with its variants standing by.
LOADED_AS_PLANNED = ("rewritten", "adaptive")
# Outcomes that are the shim's design for the driver end-to-end apps (an image with nothing the
# device could take as PTX is passed through): listed on the page, not counted as fallbacks.
BY_DESIGN_FOR_APPS = ("no-ptx", "ptx-only-for-newer-architectures")


def ratio(s):
    if s is None:
        return "-"
    med, lo, hi, _ = s
    low, high = f"{lo:.3f}", f"{hi:.3f}"
    return f"{med:.3f}" if low == high else f"{med:.3f} ({low}-{high})"


def duration_ns(ns):
    if ns is None:
        return "-"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.1f} us"
    return f"{ns:.0f} ns"


def ms(x):
    return "-" if x is None else f"{x:.3f}" if x < 10 else f"{x:.1f}"


def variant_cell(v):
    """One candidate of the adaptive policy: its launches and median time, or dropped."""
    name = f"`{v.get('name', '?')}`"
    if v.get("dropped"):
        return f"{name}: dropped"
    median = v.get("median_ms")
    timed = f" x {duration_ns(median * 1e6)}" if median else ""
    return f"{name}: {v.get('launches', '?')}{timed}"


class Page:
    def __init__(self, check, meta, clients=None, tools=None):
        self.check, self.meta, self.clients, self.tools = check, meta, clients, tools
        self.family = {p.id: p.family for p in check.programs}
        self.shim_configs = [c for c in check.configs if c.shim]
        self.columns = [c for c in self.shim_configs if c.key != EMPTY]
        self.timed = [p for p in check.programs if p.timed and p.id in self.timed_ids()]
        # The last round with a timing run: a round stopped part-way at the time limit counts for
        # the programs it timed.
        self.last_round = max((r["round"] for r in check.runs if r["phase"] == "time"), default=0)

    def timed_ids(self):
        return {r["program"] for r in self.check.runs if r["phase"] == "time"}

    # ---- verdicts --------------------------------------------------------------------------

    def failures(self):
        return [r for r in self.check.runs if r["config"] != NATIVE
                and r.get("verdict") not in (compare.SAME, compare.NOT_COMPARED)]

    def native_failures(self):
        return [r for r in self.check.native.values() if not compare.native_ok(r)]

    def sanitizer_findings(self):
        """Sanitizer runs under the shim with errors the native run of the program did not have."""
        return self.tools.sanitizer_findings() if self.tools else []

    def client_failures(self):
        return self.clients.failures() if self.clients else []

    def profiler_failures(self):
        return self.tools.profiler_failures() if self.tools else []

    def fallbacks(self):
        """(program, config, module outcome, reason) of modules the shim did not rewrite."""
        seen = Counter()
        for r in self.check.runs:
            by_design = BY_DESIGN_FOR_APPS if self.family.get(r["program"]) == APP else ()
            for m in (r.get("report") or {}).get("modules", []):
                if m.get("outcome", "rewritten") not in LOADED_AS_PLANNED + by_design:
                    seen[(r["program"], r["config"], m["outcome"], m.get("reason", ""))] += 1
        return seen

    def missing_reports(self):
        """Runs under the shim that passed but left no JSON report (the shim did not load, or
        wrote nothing)."""
        return [r for r in self.check.runs if r["config"] != NATIVE
                and r.get("verdict") == compare.SAME and not r.get("report")]

    def log_lines(self):
        seen = Counter()
        for r in self.check.runs:
            for line in r.get("log", []):
                seen[(r["config"], line)] += 1
        return seen

    # ---- sections --------------------------------------------------------------------------

    def header(self):
        m = self.meta
        title = "cfrjit on a GPU" if not m["emulated"] else "cfrjit on the emulated driver"
        out = [f"# {title}: `scripts/gpu-check.sh`\n"]
        if m["emulated"]:
            out.append("**Emulated run**: the programs ran on cfrjit's emulated driver, and every "
                       "time below is the emulator's clock, not a GPU's. This page checks the "
                       "script; it says nothing about a GPU.\n")
        out.append("Written by `scripts/gpu-check.sh` (docs/gpu-check.md); run it again rather "
                   "than editing this page.\n")
        rows = [("date", m["date"]), ("GPU", m["gpu"]), ("driver", m["driver"]),
                ("host", m["host"]), ("cfrjit", m["cfrjit"]), ("command", f"`{m['command']}`"),
                ("runs", m["runs"])]
        if m.get("rerendered"):
            rows.append(("page", f"written again from the check's record: `{m['rerendered']}`"))
        out.append(table(["", ""], rows))
        return "\n".join(out)

    def verdict(self):
        fails, natives = self.failures(), self.native_failures()
        total = sum(1 for r in self.check.runs if r["config"] != NATIVE)
        compared = sum(1 for r in self.check.runs
                       if r["config"] != NATIVE and r.get("verdict") != compare.NOT_COMPARED)
        out = ["## Verdict\n"]
        if fails:
            out.append(f"**CORRECTNESS FAILURE: {len(fails)} of {compared} runs under the shim did "
                       f"not do what the native run did.**\n")
            groups = defaultdict(list)
            for r in fails:
                groups[(r["program"], r["verdict"])].append(r)
            order = [c.key for c in self.check.configs]
            for (program, what), runs in groups.items():
                keys = sorted({r["config"] for r in runs}, key=order.index)
                runs_text = f"{len(runs)} run" + ("s" if len(runs) != 1 else "")
                out.append(f"- **{program}**: {what} under {', '.join(keys)} ({runs_text})")
                for line in runs[0].get("difference", []):
                    out.append(f"  - {line}")
            out.append("")
        else:
            out.append(f"All {compared} runs under the shim printed exactly what the native run "
                       f"printed and exited as it did.\n")
        if natives:
            out.append(f"**{len(natives)} program(s) failed natively** and were not compared: "
                       + ", ".join(f"{r['program']} ({r['verdict']})" for r in natives) + ".\n")
        if total != compared and not natives:
            out.append(f"{total - compared} run(s) were not compared.\n")
        findings = self.sanitizer_findings()
        if findings:
            out.append(f"**compute-sanitizer found errors under the shim in {len(findings)} run(s) "
                       "that are clean natively**: "
                       + ", ".join(f"{r['program']} ({r['tool']}, {r['config']}: {r['summary']})"
                                   for r in findings) + ".\n")
        out += page_tools.verdict_lines(self)
        fallbacks = self.fallbacks()
        if fallbacks:
            out.append(f"**{len(fallbacks)} module load(s) were not rewritten** (see Fallbacks and "
                       "log lines).\n")
        missing = self.missing_reports()
        if missing:
            out.append(f"**{len(missing)} run(s) under the shim left no report** (was the shim "
                       "loaded?): " + ", ".join(sorted({f"{r['program']} ({r['config']})"
                                                        for r in missing})[:20]) + ".\n")
        return "\n".join(out)

    def method(self):
        m, c = self.meta, self.check
        inv = c.invariant1 or {"modules": 0}
        identity = "no dump to compare"
        if inv["modules"]:
            identity = (f"for {inv['identical']} of {inv['modules']} modules the PTX handed to the "
                        "driver under the empty pipeline has the original's lines exactly "
                        "(comments and spacing aside)")
            if inv["different"]:
                identity += "; different: " + ", ".join(
                    f"{d['program']} {d['module']} ({d['changed_lines']} of {d['lines']} lines)"
                    for d in inv["different"])
        rounds = f"{c.rounds_done} timing round(s)"
        if c.rounds_note:
            rounds += f" ({c.rounds_note})"
        correctness = (
            "Every program ran natively once (`--timing-only`: the runs under every "
            "configuration were the campaign's before it); every timing run is compared with it."
            if m.get("timing_only") else
            f"Every program ran natively and once under every configuration (in parallel, "
            f"{m['jobs']} at a time); every timing run is compared as well.")
        return "\n".join([
            "## How it was measured\n",
            f"- **Correctness.** {correctness} A run passes when its standard output is byte for "
            "byte the native run's and its exit status is the same.",
            f"- **Device time.** {rounds} of the timed programs (the examples' Driver-API "
            "programs and the suite's Driver-API programs), one process at a time, the order of "
            "the configurations rotated each round. The shim times every launch with events on "
            "the launch's stream; a kernel's time in a run is its device time per launch "
            "(`total_ns / timed` in the JSON report).",
            "- **Native device time** is the shim's with the empty pipeline (`CFRJIT_PASSES=` set "
            "and empty): without the shim nothing times the kernels, and the empty pipeline "
            "hands the driver the original instruction sequence and block order (invariant 1), "
            "timed by the same events as every other configuration, so the timing's own cost "
            f"cancels out of the ratio. Checked on this run: {identity}.",
            "- **Ratio** = time per launch under the configuration / native time per launch, "
            "computed per round (the configuration's run against the native run of the same "
            "round), then the median over the rounds, with the lowest and highest round in "
            "brackets. **Below 1.00 is faster than native.** The program rows add up every "
            "kernel's device time.",
            "- **Adaptive policy** (`CFRJIT_POLICY=adaptive`): its cache starts empty in round 1 "
            "(the run that measures the variants) and is kept for the later rounds (which start "
            "from the decisions in the cache); the two are shown apart.",
            "- **Cold cost** of a module: `pipeline_ms` of the shim's report with the cache off "
            "(`CFRJIT_CACHE=0`, every fixed-pipeline timing run), median over the rounds. Beside "
            f"it, the driver's own JIT time for the same PTX: `bench/gpu/jit_cost` loads the PTX "
            f"the shim saw (and the default pipeline's rewrite) with `cuModuleLoadData` "
            f"{m['jit_runs']} time(s) under `CUDA_CACHE_DISABLE=1` and "
            "`CUDA_MODULE_LOADING=EAGER`, best and median.",
            "",
        ])

    def config_legend(self):
        rows = [(c.key, c.label, " ".join(f"{k}={v}" for k, v in c.env.items()) or "-")
                for c in self.check.configs]
        out = ["## Configurations\n", table(["name", "what", "environment"], rows)]
        skipped = self.meta.get("skipped_pipelines") or []
        if skipped:
            out.append("Left out (a pass is not registered in this build): " + "; ".join(
                f"{name} `{p}` (missing {', '.join(missing)})" for name, p, missing in skipped)
                + ".\n")
        return "\n".join(out)

    def device_time(self):
        out = ["## Device time relative to native\n",
               "Ratio to native per launch, median (lowest-highest round); below 1.00 is faster. "
               + ("`adaptive` is its later rounds (cache kept).\n" if self.last_round > 1 else
                  "`adaptive` is its only round, which measures the variants.\n")]
        header = ["program", "kernel", "launches", "native"] + [c.key for c in self.columns]
        for family, title in ((SUITE, "Divergence suite"), (EXAMPLE, "Examples")):
            rows = []
            for p in self.timed:
                if p.family != family:
                    continue
                rows += self._time_rows(p)
            if rows:
                out.append(f"### {title}\n")
                out.append(table(header, rows))
        if len(out) == 2:
            out.append("No timed program ran to the end.\n")
        return "\n".join(out)

    def program_ratios(self):
        """The chart's data: the timed programs' names and, per configuration, the median ratio
        of each program's whole device time to native (None where it has none)."""
        names = [p.name for p in self.timed]
        series = []
        for c in self.columns:
            medians = []
            for p in self.timed:
                s = stats.Ratios(self.check, p.id).program(c.key, self._later(c.key))
                medians.append(s[0] if s else None)
            series.append((c.key, medians))
        return names, series

    def _later(self, config_key):
        return set(range(2, self.last_round + 1)) if (
            config_key == ADAPTIVE and self.last_round > 1) else None

    def _time_rows(self, program):
        r = stats.Ratios(self.check, program.id)
        kernels = r.kernels()
        rows = []
        if len(kernels) > 1:
            rows.append([f"**{program.name}**", "(all kernels)", "",
                         duration_ns(r.native_program_ns())] +
                        [ratio(r.program(c.key, self._later(c.key))) for c in self.columns])
        for k in kernels:
            rows.append([program.name if len(kernels) == 1 else "", f"`{k}`", r.launches(k),
                         duration_ns(r.native_ns(k))] +
                        [ratio(r.kernel(c.key, k, self._later(c.key))) for c in self.columns])
        return rows

    def adaptive(self):
        if not any(c.key == ADAPTIVE for c in self.check.configs):
            return ""
        out = ["## Adaptive policy\n",
               "Ratio to native in round 1 (fresh cache: the variants are measured) and in the "
               "later rounds (decisions from the cache); `decision`, `variant` and `variants` "
               "from the report of the last round.\n"]
        rows = []
        for p in self.timed:
            r = stats.Ratios(self.check, p.id)
            runs = stats.timing_runs(self.check, p.id, ADAPTIVE)
            last = runs[max(runs)] if runs else None
            entries = {}
            for k in ((last or {}).get("report") or {}).get("kernels", []):
                entries.setdefault(k["name"], k)
            for k in r.kernels():
                e = entries.get(k, {})
                variants = "; ".join(variant_cell(v) for v in e.get("variants") or [])
                rows.append([p.name, f"`{k}`", ratio(r.kernel(ADAPTIVE, k, {1})),
                             ratio(r.kernel(ADAPTIVE, k, self._later(ADAPTIVE) or {0})),
                             e.get("decision", "-"), f"`{e['variant']}`" if e.get("variant")
                             else "-", variants or "-"])
        out.append(table(["program", "kernel", "round 1", "later rounds", "decision", "variant",
                          "variants (launches x median)"], rows) if rows else
                   "No timed program ran under the adaptive policy.\n")
        return "\n".join(out)

    def goals(self):
        suite = [p for p in self.timed if p.family == SUITE]
        if not suite or not any(c.key == ADAPTIVE for c in self.check.configs):
            return ""
        out = ["## Goals of issue 12 on this device\n"]
        if self.meta["emulated"]:
            out.append("(Emulated run: the goals are about a GPU; shown to check the script.)\n")
        if self.last_round < 2:
            out.append("Only one timing round: the adaptive figures are its first run, which "
                       "measures the variants; the goals are about the runs after it.\n")
        rows, at_least, faster, overheads, untimed = [], 0, 0, [], 0
        for p in suite:
            r = stats.Ratios(self.check, p.id)
            later = r.program(ADAPTIVE, self._later(ADAPTIVE))
            first = r.program(ADAPTIVE, {1})
            if later is None:
                rows.append([p.name, "not timed after round 1", "-", "-", "-"])
                untimed += 1
                continue
            speed = 1 / later[0]
            at_least += speed >= 0.99
            faster += speed >= 1.2
            overhead = "-"
            if first and self.last_round > 1 and max(
                    r.launches(k) for k in r.kernels()) >= 100:
                cost = (first[0] - later[0]) / first[0]
                overheads.append(cost)
                overhead = f"{100 * cost:.1f}%"
            rows.append([p.name, f"{speed:.2f}x", "yes" if speed >= 0.99 else "**no**",
                         "yes" if speed >= 1.2 else "no", overhead])
        out.append(table(["suite program", "adaptive speed vs native", ">= 0.99x",
                          ">= 1.2x", "cost of deciding (round 1 over later)"], rows))
        timed = len(suite) - untimed
        verdict = "met" if at_least == len(suite) else (
            "not met" if at_least < timed else "met where measured")
        measured = f"{at_least} of {timed} timed after round 1"
        if untimed:
            measured += f"; {untimed} not timed after round 1"
        out.append(f"- adaptive at least 0.99x of native on every suite program: {verdict} "
                   f"({measured})")
        out.append(f"- adaptive at least 1.2x faster on at least three: "
                   f"{'met' if faster >= 3 else 'not met'} ({faster})")
        if overheads:
            worst = max(overheads)
            out.append(f"- cost of deciding at most 5% of the kernel time (programs launching a "
                       f"kernel 100 times or more): {'met' if worst <= 0.05 else 'not met'} "
                       f"(worst {100 * worst:.1f}%)")
        return "\n".join(out) + "\n"

    def cold_cost(self):
        jit = self.check.jit or {}
        out = ["## Cold cost per module\n"]
        if "error" in jit:
            out.append(f"Driver JIT not measured: {jit['error']}.\n")
        elif jit.get("warning"):
            out.append(f"jit_cost: {jit['warning']}\n")
        jit_modules = jit.get("modules", [])
        fixed = [c for c in self.shim_configs if not c.adaptive and c.key != EMPTY]
        rows = []
        for p in self.timed:
            costs = {c.key: stats.cold_costs(self.check, p.id, c.key) for c in fixed}
            default = costs.get(fixed[0].key, {}) if fixed else {}
            for module_id in sorted(set().union(*costs.values()) if costs else []):
                orig, new = self._dumped(p, module_id, jit_modules)
                cold = default.get(module_id)
                worst = max(((v.get(module_id), k) for k, v in costs.items()
                             if v.get(module_id) is not None), default=(None, "-"))
                share = "-"
                if cold is not None and orig and orig.get("median_ms"):
                    share = f"{100 * cold / orig['median_ms']:.1f}%"
                rows.append([p.name, f"m{module_id}", (orig or {}).get("bytes", "-"), ms(cold),
                             f"{ms(worst[0])} ({worst[1]})", self._jit_cell(orig),
                             self._jit_cell(new), share])
        if rows:
            out.append("Shim: `pipeline_ms` with the cache off, median over the rounds (default "
                       "pipeline, and the costliest pipeline). Driver JIT: best / median of "
                       "`cuModuleLoadData` of the original PTX and of the default pipeline's "
                       "rewrite. Share = shim (default) / driver JIT of the original (median).\n")
            out.append(table(["program", "module", "PTX bytes", "shim cold (ms)",
                              "costliest pipeline (ms)", "driver JIT, original (ms)",
                              "driver JIT, rewritten (ms)", "share"], rows))
        else:
            out.append("No module was rewritten with the cache off.\n")
        return "\n".join(out)

    @staticmethod
    def _dumped(program, module_id, jit_modules):
        """The driver-JIT records of a module's original PTX and its rewrite, found by the path
        the default pipeline's dump gave them (BUILD/gpu-check/work/dump/<program>/default)."""
        orig = new = None
        folder = f"{os.sep}dump{os.sep}{program.id}{os.sep}default{os.sep}"
        for m in jit_modules:
            path = m.get("file", "")
            name = os.path.basename(path)
            if folder not in path or not name.startswith(f"m{module_id}-"):
                continue
            if name.endswith(".orig.ptx"):
                orig = m
            elif name.endswith(".ptx"):
                new = m
        return orig, new

    @staticmethod
    def _jit_cell(m):
        if not m:
            return "-"
        if "error" in m:
            return f"**refused**: {m['error']}"
        return f"{ms(m['best_ms'])} / {ms(m['median_ms'])}"

    def correctness(self):
        """One row per example or suite program, its forms (drv, drv-O0, rt, rt_shared) and runs
        (correctness and timing) counted together in each configuration's cell."""
        keys = [c.key for c in self.check.configs]
        form_of = {p.id: (p.name, p.form) for p in self.check.programs}
        cells = defaultdict(lambda: [0, []])
        for r in self.check.runs:
            name, form = form_of[r["program"]]
            cell = cells[(name, r["config"])]
            cell[0] += 1
            if r.get("verdict") not in (compare.SAME, compare.NOT_COMPARED):
                cell[1].append((form, r.get("verdict")))
        forms = defaultdict(list)
        for p in self.check.programs:
            forms[p.name].append(p.form)
        rows = []
        for name in sorted(forms):
            row = [name, ", ".join(forms[name])]
            for key in keys:
                n, bad = cells.get((name, key), (0, []))
                if n == 0:
                    row.append("-")
                elif bad:
                    what = Counter(bad).most_common()
                    row.append("; ".join(f"**{v.upper()}** ({f}: {c})" for (f, v), c in what)
                               + f" of {n}")
                else:
                    row.append(f"ok ({n})")
            rows.append(row)
        return "\n".join(["## Correctness runs\n",
                          "Per program (all its forms) and configuration: ok (runs), or what "
                          "failed, in which form, how often.\n",
                          table(["program", "forms"] + keys, rows)])

    def notes(self):
        out = ["## Fallbacks and log lines\n"]
        fallbacks = self.fallbacks()
        if fallbacks:
            rows = [(p, c, o, reason[:120], n)
                    for (p, c, o, reason), n in sorted(fallbacks.items())]
            out.append(table(["program", "config", "outcome", "reason", "runs"], rows[:60]))
        else:
            out.append("Every module was rewritten.\n")
        lines = self.log_lines()
        if lines:
            rows = [(c, f"`{line[:160]}`", n) for (c, line), n in lines.most_common(30)]
            out.append(table(["config", "log line", "runs"], rows))
        else:
            out.append("The shim logged no warning or error.\n")
        return "\n".join(out)

    def text(self):
        sections = [self.header, self.verdict, self.method, self.config_legend,
                    self.device_time, self.adaptive, self.goals, self.cold_cost,
                    self.correctness, lambda: page_tools.apps(self),
                    lambda: page_tools.builds(self), lambda: page_tools.clients(self),
                    lambda: page_tools.sanitizer(self), lambda: page_tools.profilers(self),
                    lambda: page_tools.budget(self), self.notes]
        parts = []
        for section in sections:
            try:
                parts.append(section())
            except Exception:  # noqa: BLE001 - one broken section must not lose the page
                parts.append("## A section of this page could not be written\n\n```\n"
                             + traceback.format_exc() + "```\n")
        return "\n".join(p for p in parts if p).rstrip() + "\n"
