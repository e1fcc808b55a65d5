"""The phases of gpu-check: correctness (every program natively and under every configuration,
in parallel), repeated runs of the device-reset app, timing (rounds of the timed programs under
every configuration, one process at a time) and the driver's JIT cost of each module's PTX.
clients.py and tools.py hold the phases with PyTorch, CuPy and NVIDIA's tools."""
import glob
import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import compare
import runner
from configs import DEFAULT, EMPTY, NATIVE
from programs import APP
from progress import Progress, say


class Check:
    def __init__(self, platform, programs, configs, options, work, budget):
        self.platform, self.programs, self.configs = platform, programs, configs
        self.options, self.work, self.budget = options, work, budget
        self.runs = []  # every run's record
        self.native = {}  # program id -> its native run
        self.rounds_done = 0
        self.rounds_note = ""
        self.jit = None
        self.invariant1 = None
        self.repeats = []  # the device-reset app run again and again under the shim

    # ---- one run ---------------------------------------------------------------------------

    def run_one(self, program, config, phase, round_no, extra=None, cache=None, prefix=()):
        folder = os.path.join(self.work, "runs", program.id, config.key)
        stem = f"{phase}{round_no}"
        report = os.path.join(folder, stem + ".json") if config.shim else None
        cache_dir = os.path.join(self.work, "cache", cache or f"{phase}-{config.key}")
        env = self.platform.env_for(config, cache_dir, report, extra)
        r = runner.run(program.argv, env, folder, stem, self.options.run_timeout, prefix)
        r.update(program=program.id, config=config.key, phase=phase, round=round_no)
        if config.shim:
            r["report"] = runner.read_report(report)
            r["log"] = runner.log_lines(r["err"])
        return r

    def _judge(self, r):
        if r["config"] == NATIVE:
            r["verdict"] = compare.SAME if compare.native_ok(r) else compare.describe_exit(r)
            if r["verdict"] == compare.SAME:
                return None
            return f"{r['program']} natively: {r['verdict']}"
        native = self.native.get(r["program"])
        r["verdict"] = compare.verdict(r, native)
        if r["verdict"] in (compare.SAME, compare.NOT_COMPARED):
            return None
        r["difference"] = compare.first_difference(r, native)
        return f"{r['program']} under {r['config']} ({r['phase']}): {r['verdict']}"

    def _parallel(self, title, jobs):
        progress = Progress(title, len(jobs))

        def one(job):
            r = job()
            progress.step(self._judge(r))
            return r

        with ThreadPoolExecutor(max_workers=self.options.jobs) as pool:
            done = list(pool.map(one, jobs))
        self.runs.extend(done)
        return done

    # ---- phases ----------------------------------------------------------------------------

    def correctness(self, under_shim=True):
        """Every program natively, then (under_shim) under every configuration once (fresh
        caches). The native runs are what every later run is compared with."""
        native = next(c for c in self.configs if c.key == NATIVE)
        for r in self._parallel("native runs", [
                (lambda p=p: self.run_one(p, native, "check", 1)) for p in self.programs]):
            self.native[r["program"]] = r
        self._plant_mismatch()
        if not under_shim:
            return
        jobs = []
        for p in self.programs:
            if not compare.native_ok(self.native[p.id]):
                continue
            for c in self.configs:
                if c.shim:
                    jobs.append(lambda p=p, c=c: self.run_one(p, c, "check", 1, self._dump_env(p, c)))
        self._parallel("runs under the shim", jobs)

    def _dump_env(self, program, config):
        """The PTX the shim saw and made, kept for the timed programs' default and empty
        pipelines (the JIT-cost measurement and the empty pipeline's identity check)."""
        if not program.timed or config.key not in (DEFAULT, EMPTY):
            return None
        return {"CFRJIT_DUMP_DIR": self.dump_dir(program, config.key)}

    def dump_dir(self, program, config_key):
        return os.path.join(self.work, "dump", program.id, config_key)

    def _plant_mismatch(self):
        """--inject-mismatch: the native output of a program is doctored, so that every run of it
        under the shim must be reported as different (the check of the check)."""
        for target in self.options.inject_mismatch:
            run = self.native.get(target)
            if run is None:
                say(f"--inject-mismatch {target}: no such program "
                    f"(known: {', '.join(sorted(self.native))})")
                continue
            with open(run["out"], "a") as f:
                f.write("line planted by gpu-check --inject-mismatch\n")
            say(f"planted a mismatch in the native output of {target}")

    def repeat_apps(self, runs):
        """The device-reset app (a crash at exit, 1 run in 10 on a GPU once), RUNS times in each
        of its forms under the default pipeline, in parallel, each compared with its native
        run."""
        default = next(c for c in self.configs if c.key == DEFAULT)
        chosen = [p for p in self.programs if p.family == APP and p.name == "reset_app"
                  and compare.native_ok(self.native.get(p.id))]
        jobs = [(p, n) for p in chosen for n in range(2, runs + 2)]
        progress = Progress("reset_app repeated under the shim", len(jobs))

        def one(job):
            r = self.run_one(job[0], default, "repeat", job[1])
            progress.step(self._judge(r))
            return r

        self.repeats = self.budget.parallel(jobs, one, self.options.jobs,
                                            "repeated reset_app runs")
        self.runs.extend(self.repeats)

    def timing(self):
        """Rounds of every timed program under every shim configuration, one process at a time,
        the configurations' order rotated each round, until --reps rounds or the time limit (no
        program is started past it, so a round can stop part-way). Fixed pipelines run with the
        cache off (so every run reports the pipeline's cold cost); the adaptive policy keeps one
        cache from its first round on (the first round decides, later ones start from it)."""
        timed = [p for p in self.programs if p.timed and compare.native_ok(self.native[p.id])]
        shim_configs = [c for c in self.configs if c.shim]
        if not timed or not shim_configs:
            return
        shutil.rmtree(os.path.join(self.work, "cache", "time-adaptive"), ignore_errors=True)
        for round_no in range(1, self.options.reps + 1):
            shift = (round_no - 1) % len(shim_configs)
            order = shim_configs[shift:] + shim_configs[:shift]
            progress = Progress(f"timing round {round_no}/{self.options.reps}",
                                len(timed) * len(order), every=10.0)
            if not self._timing_round(round_no, timed, order, progress):
                self.rounds_note = (f"round {round_no} of {self.options.reps} stopped part-way "
                                    f"at the time limit of {self.options.time_limit:.0f} s; the "
                                    "programs it timed count")
                say(self.rounds_note)
                self.budget.cuts.append("timing: " + self.rounds_note)
                break
            self.rounds_done = round_no

    def _timing_round(self, round_no, timed, order, progress):
        """One round, program by program (every configuration of a program together, so that a
        round stopped at the time limit leaves whole programs); False when the time limit stopped
        it."""
        for p in timed:
            if self.budget.used() > self.options.time_limit:
                return False
            for c in order:
                extra = None if c.adaptive else {"CFRJIT_CACHE": "0"}
                r = self.run_one(p, c, "time", round_no, extra,
                                 cache="time-adaptive" if c.adaptive else None)
                progress.step(self._judge(r))
                self.runs.append(r)
        return True

    def jit_cost(self, jit_tool):
        """The driver's JIT time (jit_cost) for each timed program's modules: the original PTX
        and the default pipeline's rewrite, as the shim dumped them."""
        files = []
        for p in self.programs:
            if p.timed:
                files += sorted(glob.glob(os.path.join(self.dump_dir(p, DEFAULT), "m*.ptx")))
        self.invariant1 = empty_pipeline_identity(self)
        if not files:
            return
        if not jit_tool or not os.access(jit_tool, os.X_OK):
            self.jit = {"error": f"jit_cost not built ({jit_tool or 'no path'})"}
            return
        say(f"driver JIT cost: {len(files)} PTX file(s), {self.options.jit_runs} load(s) each")
        env = self.platform.base_env()
        env.update(CUDA_CACHE_DISABLE="1", CUDA_MODULE_LOADING="EAGER")
        cmd = [jit_tool, "--runs", str(self.options.jit_runs), *files]
        try:
            done = subprocess.run(cmd, env=env, capture_output=True, text=True,
                                  timeout=max(20, min(30 * len(files),
                                                      self.budget.phase_left())))
            self.jit = json.loads(done.stdout)
            if done.returncode != 0:
                self.jit["warning"] = (f"jit_cost exit status {done.returncode}: "
                                       f"{done.stderr[-300:]}")
        except (subprocess.TimeoutExpired, ValueError, OSError) as e:
            self.jit = {"error": f"jit_cost failed: {e}"}


def _instructions(path):
    """A PTX file's lines without comments, blank lines and spacing: what the driver compiles."""
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.split("//", 1)[0]
            line = " ".join(line.replace(",", " , ").split())
            if line:
                out.append(line)
    return out


def empty_pipeline_identity(check):
    """For every module of the timed programs: whether the PTX handed to the driver under the
    empty pipeline has the original's lines, comments and spacing aside (invariant 1)."""
    result = {"modules": 0, "identical": 0, "different": []}
    for p in check.programs:
        if not p.timed:
            continue
        for orig in sorted(glob.glob(os.path.join(check.dump_dir(p, EMPTY), "m*.orig.ptx"))):
            new = orig[: -len(".orig.ptx")] + ".ptx"
            if not os.path.exists(new):
                continue
            result["modules"] += 1
            a, b = _instructions(orig), _instructions(new)
            if a == b:
                result["identical"] += 1
            else:
                changed = sum(1 for x, y in zip(a, b) if x != y) + abs(len(a) - len(b))
                result["different"].append(
                    {"program": p.id, "module": os.path.basename(orig).split("-")[0],
                     "lines": len(a), "changed_lines": changed})
    return result
