"""Running one program under one configuration: the environment (native, or the shim preloaded;
NVIDIA's driver, or cfrjit's emulated one), the process with a time limit, and what came back
(exit status, output files, the shim's JSON report, log lines)."""
import json
import os
import re
import subprocess
import time
from dataclasses import dataclass

LOG_LINE = re.compile(r"^cfrjit (warning|error|critical): (.*)$")


@dataclass(frozen=True)
class Platform:
    build: str
    emulated: bool

    @property
    def shim(self):
        return os.path.join(self.build, "lib", "libcfrjit.so")

    @property
    def cfrjit(self):
        return os.path.join(self.build, "tools", "cfrjit")

    @property
    def emulator_dir(self):
        return os.path.join(self.build, "emulator", "driver", "lib")

    def base_env(self):
        """The caller's environment without its CFRJIT_* settings; on the emulated driver its
        library first on LD_LIBRARY_PATH, in strict mode."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("CFRJIT_")}
        cudart = os.path.join(self.build, "lib", "cudart")
        if os.path.isdir(cudart):
            old = env.get("LD_LIBRARY_PATH")
            env["LD_LIBRARY_PATH"] = (old + ":" if old else "") + cudart
        if self.emulated:
            old = env.get("LD_LIBRARY_PATH")
            env["LD_LIBRARY_PATH"] = self.emulator_dir + (":" + old if old else "")
            env["CFRJIT_EMULATOR_STRICT"] = "1"
        return env

    def env_for(self, config, cache_dir=None, report=None, extra=None):
        env = self.base_env()
        if config.shim:
            old = env.get("LD_PRELOAD")
            env["LD_PRELOAD"] = self.shim + (":" + old if old else "")
            env.update(config.env)
            if cache_dir:
                env["CFRJIT_CACHE_DIR"] = cache_dir
            if report:
                env["CFRJIT_REPORT"] = report
        env.update(extra or {})
        return env


def _kernel_entry(k):
    keep = ("name", "module", "launches", "timed", "untimed", "total_ns", "min_ns", "max_ns",
            "rewritten", "cache", "pipeline_ms", "changed_by", "variant", "variants", "decision")
    return {key: k[key] for key in keep if key in k}


def _module_entry(m):
    keep = ("id", "api", "image", "rewritten", "outcome", "reason", "cache", "pipeline_ms",
            "kernels")
    return {key: m[key] for key in keep if key in m}


def read_report(path):
    """The parts of the shim's JSON report the page uses; None when there is none."""
    try:
        with open(path) as f:
            r = json.load(f)
    except (OSError, ValueError):
        return None
    return {
        "version": r.get("version"),
        "pipeline": r.get("pipeline"),
        "kernels": [_kernel_entry(k) for k in r.get("kernels", [])],
        "modules": [_module_entry(m) for m in r.get("modules", [])],
    }


def log_lines(path):
    try:
        with open(path, errors="replace") as f:
            return [line.rstrip("\n") for line in f if LOG_LINE.match(line)]
    except OSError:
        return []


def run(argv, env, folder, stem, timeout, prefix=()):
    """Runs argv (after prefix, e.g. a sanitizer) with stdout and stderr in folder/stem.out and
    .err; the record of the run."""
    os.makedirs(folder, exist_ok=True)
    out, err = os.path.join(folder, stem + ".out"), os.path.join(folder, stem + ".err")
    start = time.monotonic()
    timed_out = False
    with open(out, "wb") as o, open(err, "wb") as e:
        try:
            rc = subprocess.run([*prefix, *argv], env=env, stdout=o, stderr=e,
                                stdin=subprocess.DEVNULL, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            rc, timed_out = None, True
        except OSError as exc:
            e.write(f"gpu-check: cannot run {argv[0]}: {exc}\n".encode())
            rc = 127
    return {"argv": [*prefix, *argv], "rc": rc, "timed_out": timed_out,
            "seconds": time.monotonic() - start, "out": out, "err": err}
