"""The phases of gpu-check: correctness (every program natively and under every configuration,
in parallel), timing (rounds of the timed programs under every configuration, one process at a
time), the driver's JIT cost of each module's PTX, and an optional compute-sanitizer pass."""
import glob
import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import compare
import runner
from configs import ADAPTIVE, DEFAULT, EMPTY, NATIVE
from progress import Progress, elapsed, say


class Check:
    def __init__(self, platform, programs, configs, options, work):
        self.platform, self.programs, self.configs = platform, programs, configs
        self.options, self.work = options, work
        self.runs = []  # every run's record
        self.native = {}  # program id -> its native run
        self.rounds_done = 0
        self.rounds_note = ""
        self.jit = None
        self.invariant1 = None
        self.sanitizer = []
        self.started = elapsed()  # the time limit counts from here, not from the build

    # ---- one run ---------------------------------------------------------------------------

    def _run(self, program, config, phase, round_no, extra=None, cache=None, prefix=()):
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

    def correctness(self):
        """Every program natively, then under every configuration once (fresh caches)."""
        native = next(c for c in self.configs if c.key == NATIVE)
        for r in self._parallel("native runs", [
                (lambda p=p: self._run(p, native, "check", 1)) for p in self.programs]):
            self.native[r["program"]] = r
        self._plant_mismatch()
        jobs = []
        for p in self.programs:
            if not compare.native_ok(self.native[p.id]):
                continue
            for c in self.configs:
                if c.shim:
                    jobs.append(lambda p=p, c=c: self._run(p, c, "check", 1, self._dump_env(p, c)))
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

    def timing(self):
        """Rounds of every timed program under every shim configuration, one process at a time,
        the configurations' order rotated each round. Fixed pipelines run with the cache off (so
        every run reports the pipeline's cold cost); the adaptive policy keeps one cache from its
        first round on (the first round decides, later ones start from the cache)."""
        timed = [p for p in self.programs if p.timed and compare.native_ok(self.native[p.id])]
        shim_configs = [c for c in self.configs if c.shim]
        if not timed or not shim_configs:
            return
        shutil.rmtree(os.path.join(self.work, "cache", "time-adaptive"), ignore_errors=True)
        last_round = 0.0
        for round_no in range(1, self.options.reps + 1):
            spent = elapsed() - self.started
            if round_no > 1 and spent + last_round > self.options.time_limit:
                self.rounds_note = (f"stopped after {round_no - 1} of {self.options.reps} rounds: "
                                    f"another round ({last_round:.0f} s) would end past the time "
                                    f"limit of {self.options.time_limit:.0f} s")
                say(self.rounds_note)
                break
            round_start = elapsed()
            shift = (round_no - 1) % len(shim_configs)
            order = shim_configs[shift:] + shim_configs[:shift]
            progress = Progress(f"timing round {round_no}/{self.options.reps}",
                                len(timed) * len(order), every=10.0)
            for p in timed:
                for c in order:
                    extra = None if c.adaptive else {"CFRJIT_CACHE": "0"}
                    r = self._run(p, c, "time", round_no, extra,
                                  cache="time-adaptive" if c.adaptive else None)
                    progress.step(self._judge(r))
                    self.runs.append(r)
            self.rounds_done = round_no
            last_round = elapsed() - round_start

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
                                  timeout=max(60, 30 * len(files)))
            self.jit = json.loads(done.stdout)
            if done.returncode != 0:
                self.jit["warning"] = (f"jit_cost exit status {done.returncode}: "
                                       f"{done.stderr[-300:]}")
        except (subprocess.TimeoutExpired, ValueError, OSError) as e:
            self.jit = {"error": f"jit_cost failed: {e}"}

    def sanitize(self, tool):
        """compute-sanitizer memcheck over each example's Driver-API program: natively, under the
        default pipeline and under the adaptive policy."""
        chosen = [c for c in self.configs if c.key in (NATIVE, DEFAULT, ADAPTIVE)]
        jobs = []
        for p in self.programs:
            if p.family == "example" and p.timed and compare.native_ok(self.native[p.id]):
                for c in chosen:
                    jobs.append(lambda p=p, c=c: self._sanitize_one(tool, p, c))
        progress = Progress("compute-sanitizer memcheck", len(jobs))

        def one(job):
            r = job()
            bad = r["errors"] != 0 or r["rc"] not in (0,)
            progress.step(f"{r['program']} under {r['config']}: {r['summary']}" if bad else None)
            return r

        with ThreadPoolExecutor(max_workers=self.options.jobs) as pool:
            self.sanitizer = list(pool.map(one, jobs))

    def _sanitize_one(self, tool, program, config):
        prefix = (tool, "--tool", "memcheck", "--error-exitcode", "99")
        r = self._run(program, config, "memcheck", 1, prefix=prefix)
        r["errors"], r["summary"] = sanitizer_summary(r["out"], r)
        return r


def sanitizer_summary(path, run):
    """(errors, text) from compute-sanitizer's "ERROR SUMMARY: N error(s)" line; -1 when
    missing."""
    try:
        with open(path, errors="replace") as f:
            for line in f:
                if "ERROR SUMMARY:" in line:
                    text = line.split("ERROR SUMMARY:", 1)[1].strip()
                    return int(text.split()[0]), text
    except (OSError, ValueError, IndexError):
        pass
    return -1, f"no error summary ({compare.describe_exit(run)})"


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
