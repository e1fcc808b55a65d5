"""The time budget of a check: each phase's share of --time-limit, what each phase spent, and what
was cut to stay inside it. A phase stops starting runs once its share is spent (or the whole
limit); the timing rounds take what is left. The page and stderr say what was cut."""
from concurrent.futures import ThreadPoolExecutor

from progress import elapsed, say

# Seconds of each phase when --time-limit is 480 (other limits scale them), from what each took on
# an H100 with --jobs 12 (docs/results/gpu-2026-11-26.md: correctness 261 s, apps 15, clients 42,
# sanitizer 40, profilers 10, jit 3), with some room.
SHARES = [
    ("correctness", 270, "every program natively and under every configuration (never cut)"),
    ("apps", 20, "reset_app repeated under the shim"),
    ("clients", 60, "PyTorch and CuPy natively and under the shim"),
    ("sanitizer", 60, "compute-sanitizer memcheck, racecheck, synccheck"),
    ("profilers", 20, "ncu and nsys over a program under the shim"),
    ("jit", 15, "the driver's JIT cost of every timed module"),
]
REFERENCE_LIMIT = 480.0


class Budget:
    def __init__(self, time_limit):
        self.limit = time_limit
        scale = time_limit / REFERENCE_LIMIT
        self.shares = {name: seconds * scale for name, seconds, _ in SHARES}
        self.started = elapsed()
        self.spent = {}  # phase -> seconds
        self.cuts = []  # what was left out, in words
        self._phase = None
        self._phase_start = 0.0

    def announce(self, phases):
        """Prints the budget of the phases this check runs, and the timing's remainder."""
        parts = [f"{name} {self.shares[name]:.0f} s" for name, _, _ in SHARES if name in phases]
        say(f"time budget {self.limit:.0f} s: " + ", ".join(parts) + ", timing rounds the rest")

    def start(self, phase):
        self._phase, self._phase_start = phase, elapsed()

    def finish(self):
        if self._phase:
            self.spent[self._phase] = self.spent.get(self._phase, 0.0) + elapsed() - \
                self._phase_start
        self._phase = None

    def used(self):
        return elapsed() - self.started

    def phase_left(self):
        """Seconds left of the running phase's share (and of the whole limit)."""
        share = self.shares.get(self._phase, self.limit)
        return min(share - (elapsed() - self._phase_start), self.limit - self.used())

    def out_of_time(self):
        return self.phase_left() <= 0

    def cut(self, what):
        text = f"{self._phase or 'check'}: {what} (its budget of " \
               f"{self.shares.get(self._phase, self.limit):.0f} s was spent)"
        self.cuts.append(text)
        say("cut: " + text)

    def rows(self):
        """(phase, budget, spent) for the page."""
        out = [(name, f"{self.shares[name]:.0f} s", f"{self.spent[name]:.0f} s")
               for name, _, _ in SHARES if name in self.spent]
        if "timing" in self.spent:
            out.append(("timing", "the rest", f"{self.spent['timing']:.0f} s"))
        return out

    def parallel(self, jobs, run, workers, what):
        """run(job) for every job, `workers` at a time, while the running phase has time left;
        the results of those that ran, and one cut naming `what` for those that did not."""
        skipped = []

        def one(job):
            if self.out_of_time():
                skipped.append(job)
                return None
            return run(job)

        with ThreadPoolExecutor(max_workers=workers) as pool:
            done = [r for r in pool.map(one, jobs) if r is not None]
        if skipped:
            self.cut(f"{len(skipped)} of {len(jobs)} {what}")
        return done
