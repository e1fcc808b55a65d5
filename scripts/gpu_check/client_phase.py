"""The client phase of gpu-check: real programs built on CUDA libraries (PyTorch with cuBLAS and
Triton, CuPy with NVRTC and cuRAND), natively and under the shim with its default settings, with
CFRJIT_IMAGES=jit-only and with the adaptive policy; each result compared with the native one.
A library that is not installed (or sees no GPU) is reported, not failed."""
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import runner
from configs import Config
from progress import say

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "clients")
CLIENTS = [("pytorch", "torch_client.py"), ("cupy", "cupy_client.py")]
UNAVAILABLE = 42  # the client's exit status when its library cannot be used here
CONFIGS = [
    Config("native", "native (no shim)", shim=False),
    Config("default", "shim, default settings", env={}),
    Config("jit-only", "shim, `CFRJIT_IMAGES=jit-only`", env={"CFRJIT_IMAGES": "jit-only"}),
    Config("adaptive", "shim, adaptive policy", env={"CFRJIT_POLICY": "adaptive"}),
]
RTOL, ATOL = 1e-5, 1e-6


class Clients:
    def __init__(self, platform, work, budget, jobs):
        self.platform, self.work, self.budget, self.jobs = platform, work, budget, jobs
        self.results = []  # one record per client and configuration
        self.unavailable = {}  # client -> why it could not run

    def _run(self, client, script, config):
        folder = os.path.join(self.work, "clients", client, config.key)
        os.makedirs(folder, exist_ok=True)
        caches = os.path.join(self.work, "clients", client, "library-cache")
        report = os.path.join(folder, "report.json") if config.shim else None
        env = self.platform.env_for(config, os.path.join(folder, "cfrjit-cache"), report, {
            "CUPY_CACHE_DIR": os.path.join(caches, "cupy"),
            "TORCHINDUCTOR_CACHE_DIR": os.path.join(caches, "inductor"),
            "TRITON_CACHE_DIR": os.path.join(caches, "triton"),
            "PYTHONUNBUFFERED": "1",
        })
        timeout = max(10.0, min(150.0, self.budget.phase_left()))
        r = runner.run((sys.executable, os.path.join(HERE, script), os.path.join(folder, "out")),
                       env, folder, "run", timeout)
        r.update(client=client, config=config.key, report=runner.read_report(report)
                 if report else None, log=runner.log_lines(r["err"]) if config.shim else [])
        status = _read_json(os.path.join(folder, "out.json"))
        r["parts"], r["ptx"] = status.get("parts", {}), status.get("ptx")
        r["npz"] = os.path.join(folder, "out.npz")
        return r

    def run(self):
        """Natively first (which also fills the libraries' kernel caches), then the shim's
        configurations in parallel."""
        natives = self._parallel([(c, s, CONFIGS[0]) for c, s in CLIENTS])
        later = []
        for r in natives:
            if r["rc"] == UNAVAILABLE:
                self.unavailable[r["client"]] = _first_line(r["out"], "unavailable")
            else:
                script = dict(CLIENTS)[r["client"]]
                later += [(r["client"], script, c) for c in CONFIGS[1:]]
        if self.unavailable:
            say("clients not run: " + "; ".join(f"{k}: {v}" for k, v in self.unavailable.items()))
        if later and self.budget.out_of_time():
            self.budget.cut(f"{len(later)} client run(s) under the shim")
            later = []
        self._parallel(later)
        for r in self.results:
            if r["config"] != "native":
                r["comparison"] = self._compare(r)
                if r["comparison"]["failed"]:
                    say(f"clients: FAILED {r['client']} under {r['config']}: "
                        + "; ".join(r["comparison"]["failed"]))

    def _parallel(self, jobs):
        if not jobs:
            return []
        say(f"clients: {len(jobs)} run(s)")
        with ThreadPoolExecutor(max_workers=max(1, min(self.jobs, len(jobs)))) as pool:
            done = list(pool.map(lambda j: self._run(*j), jobs))
        self.results += done
        return done

    def native(self, client):
        return next((r for r in self.results if r["client"] == client
                     and r["config"] == "native"), None)

    def _compare(self, r):
        """Per part: equal, equal within tolerance, or what differs; and the failures."""
        base = self.native(r["client"])
        parts, failed = {}, []
        if r["timed_out"] or r["rc"] != base["rc"]:
            failed.append(f"exit: native {base['rc']}, shim "
                          f"{'timed out' if r['timed_out'] else r['rc']}")
        try:
            import numpy as np
            want, got = np.load(base["npz"]), np.load(r["npz"])
        except Exception as e:  # no numpy, or a run that wrote nothing
            return {"parts": {}, "failed": failed + [f"results not readable: {e}"]}
        for name in sorted(set(want.files) | set(got.files)):
            if name not in got.files:
                parts[name] = "missing under the shim"
            elif name not in want.files:
                parts[name] = "not produced natively"
                continue
            else:
                a, b = want[name], got[name]
                if a.shape != b.shape:
                    parts[name] = f"shape {b.shape}, native {a.shape}"
                elif np.array_equal(a, b):
                    parts[name] = "equal"
                    continue
                else:
                    diff = float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))
                    close = np.allclose(a, b, rtol=RTOL, atol=ATOL)
                    parts[name] = f"{'equal within' if close else 'DIFFERS, max'} |d| {diff:.2e}"
                    if close:
                        continue
            failed.append(f"{name}: {parts[name]}")
        return {"parts": parts, "failed": failed}

    def failures(self):
        return [r for r in self.results if r.get("comparison", {}).get("failed")]


def _read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def _first_line(path, prefix):
    try:
        with open(path, errors="replace") as f:
            for line in f:
                if line.startswith(prefix):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "could not run (no reason printed)"
