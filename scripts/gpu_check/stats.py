"""Device times out of the shim's reports, and their ratios to the native time: per kernel and
per program, median over the timing rounds with the spread (lowest and highest round)."""
from collections import defaultdict

import compare
from configs import EMPTY


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    if n == 0:
        return None
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def kernel_times(run):
    """{kernel: (ns per timed launch, launches, total ns)} of one run, copies of a kernel in
    several modules added up."""
    totals = defaultdict(lambda: [0.0, 0, 0])
    for k in (run.get("report") or {}).get("kernels", []):
        if k.get("timed", 0) > 0:
            t = totals[k["name"]]
            t[0] += k.get("total_ns", 0.0)
            t[1] += k["timed"]
            t[2] += k.get("launches", 0)
    return {name: (total / timed, launches, total) for name, (total, timed, launches) in
            totals.items()}


def timing_runs(check, program_id, config_key):
    """{round: run} of the timing phase that ran to the end with the native output."""
    return {r["round"]: r for r in check.runs
            if r["phase"] == "time" and r["program"] == program_id and r["config"] == config_key
            and r.get("verdict") == compare.SAME}


def summary(values):
    """(median, lowest, highest, count) of a list, None when empty."""
    if not values:
        return None
    return median(values), min(values), max(values), len(values)


class Ratios:
    """Per kernel and per program of one timed program: the native (empty-pipeline) time and
    each configuration's ratio to it, pairing the runs of the same round."""

    def __init__(self, check, program_id):
        self.base = timing_runs(check, program_id, EMPTY)
        self.check, self.program_id = check, program_id
        self.base_kernels = {r: kernel_times(run) for r, run in self.base.items()}

    def kernels(self):
        names = set()
        for times in self.base_kernels.values():
            names.update(times)
        return sorted(names)

    def native_ns(self, kernel):
        return median([t[kernel][0] for t in self.base_kernels.values() if kernel in t])

    def launches(self, kernel):
        return max((t[kernel][1] for t in self.base_kernels.values() if kernel in t), default=0)

    def native_program_ns(self):
        return median([sum(v[2] for v in t.values()) for t in self.base_kernels.values()])

    def _pairs(self, config_key, rounds, value):
        out = []
        for r, run in timing_runs(self.check, self.program_id, config_key).items():
            if rounds and r not in rounds or r not in self.base_kernels:
                continue
            a, b = value(kernel_times(run)), value(self.base_kernels[r])
            if a is not None and b:
                out.append(a / b)
        return out

    def kernel(self, config_key, kernel, rounds=None):
        """Summary of the per-round ratios (ns per launch under the config / natively)."""
        pick = lambda times: times[kernel][0] if kernel in times else None  # noqa: E731
        return summary(self._pairs(config_key, rounds, pick))

    def program(self, config_key, rounds=None):
        """Summary of the per-round ratios of the program's whole device time."""
        total = lambda times: sum(v[2] for v in times.values()) or None  # noqa: E731
        return summary(self._pairs(config_key, rounds, total))


def cold_costs(check, program_id, config_key):
    """{module id: median pipeline_ms} over the timing runs of a fixed pipeline (cache off)."""
    by_module = defaultdict(list)
    for run in timing_runs(check, program_id, config_key).values():
        for m in (run.get("report") or {}).get("modules", []):
            if m.get("rewritten") and m.get("cache") == "off":
                by_module[m["id"]].append(m.get("pipeline_ms", 0.0))
    return {m: median(v) for m, v in by_module.items()}
