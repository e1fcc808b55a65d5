"""Progress lines on stderr: one when a phase starts, then at most one every few seconds, and
one for every run that fails."""
import sys
import threading
import time

_START = time.monotonic()


def elapsed():
    return time.monotonic() - _START


def say(text):
    print(f"[gpu-check {elapsed():6.1f}s] {text}", file=sys.stderr, flush=True)


class Progress:
    def __init__(self, phase, total, every=5.0):
        self.phase, self.total, self.every = phase, total, every
        self.done = self.failed = 0
        self.last = 0.0
        self.lock = threading.Lock()
        say(f"{phase}: {total} run(s)")

    def step(self, failure=None):
        with self.lock:
            self.done += 1
            if failure:
                self.failed += 1
                say(f"{self.phase}: FAILED {failure}")
            now = time.monotonic()
            if now - self.last >= self.every or self.done == self.total:
                self.last = now
                failed = f", {self.failed} failed" if self.failed else ""
                say(f"{self.phase}: {self.done}/{self.total}{failed}")
