"""NVIDIA's tools beside the shim, as a user runs them: compute-sanitizer (memcheck, racecheck,
synccheck) over each example's Driver-API program natively, under the default pipeline and under
the adaptive policy, the shim preloaded into the tool; ncu profiling one kernel of a program
under the shim; nsys profiling one program under the shim, where it is installed."""
import dataclasses
import glob
import os
import re
import shutil

import compare
from configs import ADAPTIVE, DEFAULT, NATIVE
from progress import Progress, say

SANITIZER_TOOLS = ("memcheck", "racecheck", "synccheck")
PROFILED = "short_circuit_drv"
RACECHECK_SUMMARY = re.compile(
    r"RACECHECK SUMMARY: \d+ hazards? displayed \((?P<errors>\d+) errors?, "
    r"(?P<warnings>\d+) warnings?\)")  # the program ncu and nsys profile (else the first example)


def find_tool(explicit, name, extra_globs=()):
    """A tool named on the command line, else on PATH, in /usr/local/cuda/bin, or in the globs."""
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    candidates = [shutil.which(name), f"/usr/local/cuda/bin/{name}"]
    for pattern in extra_globs:
        candidates += sorted(glob.glob(pattern), reverse=True)
    return next((c for c in candidates if c and os.access(c, os.X_OK)), None)


def find_nsys(explicit):
    return find_tool(explicit, "nsys", ("/opt/nvidia/nsight-systems/*/bin/nsys",
                                        "/usr/local/cuda/nsight-systems*/bin/nsys",
                                        "/opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys"))


def _without_repeat(argv):
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a == "--repeat":
            skip = True
        else:
            out.append(a)
    return tuple(out)


class Tools:
    def __init__(self, check, budget):
        self.check, self.budget = check, budget
        self.sanitizer = []  # one record per program, configuration and tool
        self.profilers = []  # one record per profiler run

    def _targets(self):
        """The examples' Driver-API programs that ran natively, one launch each."""
        return [p for p in self.check.programs if p.family == "example" and p.timed
                and compare.native_ok(self.check.native.get(p.id))]

    # ---- compute-sanitizer -----------------------------------------------------------------

    def sanitize(self, tool, tools=SANITIZER_TOOLS):
        chosen = [c for c in self.check.configs if c.key in (NATIVE, DEFAULT, ADAPTIVE)]
        # Program by program, so that a cut leaves whole programs with all three tools.
        jobs = [(p, c, t) for p in self._targets() for t in tools for c in chosen]
        progress = Progress("compute-sanitizer " + ", ".join(tools), len(jobs))

        def one(job):
            r = self._sanitize_one(tool, *job)
            bad = r["errors"] != 0 or r["rc"] != 0
            progress.step(f"{r['program']} {r['tool']} under {r['config']}: {r['summary']}"
                          if bad else None)
            return r

        self.sanitizer = self.budget.parallel(jobs, one, self.check.options.jobs,
                                              "sanitizer runs")

    def _sanitize_one(self, tool, program, config, which):
        prefix = (tool, "--tool", which, "--error-exitcode", "99")
        one_launch = dataclasses.replace(program, argv=_without_repeat(program.argv))
        r = self.check.run_one(one_launch, config, which, 1, prefix=prefix)
        r["tool"] = which
        r["errors"], r["summary"] = sanitizer_summary(r["out"], r)
        return r

    def sanitizer_findings(self):
        """Runs under the shim with errors the native run of the same tool did not have."""
        native = {(r["program"], r["tool"]): r for r in self.sanitizer if r["config"] == NATIVE}
        out = []
        for r in self.sanitizer:
            if r["config"] == NATIVE:
                continue
            base = native.get((r["program"], r["tool"]))
            clean_natively = base is not None and base["errors"] == 0 and base["rc"] == 0
            if clean_natively and (r["errors"] != 0 or r["rc"] != 0):
                out.append(r)
        return out

    # ---- profilers -------------------------------------------------------------------------

    def _profiled(self):
        targets = self._targets()
        return next((p for p in targets if p.id == PROFILED), targets[0] if targets else None)

    def profile(self, ncu, nsys):
        """ncu (one kernel launch) and nsys over one program under the default pipeline; each
        run's output must be the native one and the tool must have written its profile."""
        program = self._profiled()
        if program is None:
            return
        default = next(c for c in self.check.configs if c.key == DEFAULT)
        work = os.path.join(self.check.work, "profilers")
        os.makedirs(work, exist_ok=True)
        runs = []
        if ncu:
            runs.append(("ncu", (ncu, "--launch-count", "1", "--section", "SpeedOfLight"),
                         ("Duration", "==PROF==")))
        if nsys:
            stem = os.path.join(work, "nsys-report")
            runs.append(("nsys", (nsys, "profile", "--trace=cuda", "--stats=true",
                                  "--force-overwrite=true", "-o", stem), ("Generated", "nsys")))
        for name, prefix, marks in runs:
            if self.budget.out_of_time():
                self.budget.cut(f"{name} over {program.id}")
                continue
            say(f"{name}: profiling {program.id} under the default pipeline")
            r = self.check.run_one(program, default, name, 1, prefix=prefix)
            r["tool"] = name
            r["profile"] = _tool_lines(r["out"], r["err"], marks)
            r["verdict"] = _profiled_verdict(r, self.check.native.get(program.id))
            self.profilers.append(r)

    def profiler_failures(self):
        return [r for r in self.profilers if r["verdict"] != compare.SAME]


def _tool_lines(out, err, marks):
    """The lines of a tool's output that show its profile (for the page)."""
    lines = []
    for path in (out, err):
        try:
            with open(path, errors="replace") as f:
                lines += [line.rstrip() for line in f if any(m in line for m in marks)]
        except OSError:
            pass
    return lines[:12]


def _profiled_verdict(run, native):
    """SAME when the profiler ran the program to its native result and showed a profile."""
    if run["timed_out"] or run["rc"] != 0:
        return compare.describe_exit(run)
    if not run["profile"]:
        return "no profile in the tool's output"
    with open(native["out"], errors="replace") as f:
        expected = [line for line in f.read().splitlines() if line.strip()]
    with open(run["out"], errors="replace") as f:
        got = f.read()
    missing = [line for line in expected if line not in got]
    return compare.SAME if not missing else f"program output lost: `{missing[0][:80]}`"


def sanitizer_summary(path, run):
    """(errors, text) from compute-sanitizer's summary line: "ERROR SUMMARY: N error(s)"
    (memcheck, synccheck, initcheck) or "RACECHECK SUMMARY: N hazards displayed (E errors, W
    warnings)"; -1 when there is none."""
    try:
        with open(path, errors="replace") as f:
            for line in f:
                if "ERROR SUMMARY:" in line:
                    text = line.split("ERROR SUMMARY:", 1)[1].strip()
                    return int(text.split()[0]), text
                m = RACECHECK_SUMMARY.search(line)
                if m:
                    return int(m["errors"]), f"{m['errors']} errors, {m['warnings']} warnings"
    except (OSError, ValueError, IndexError):
        pass
    return -1, f"no error summary ({compare.describe_exit(run)})"
