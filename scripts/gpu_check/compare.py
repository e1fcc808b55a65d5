"""Comparing a run with the program's native run: the verdict of each run under the shim."""
import filecmp

SAME = "same"
DIFFERS = "output differs"
NOT_COMPARED = "not compared"


def describe_exit(run):
    if run["timed_out"]:
        return "timed out"
    rc = run["rc"]
    if rc is None:
        return "did not run"
    if rc < 0:
        return f"killed by signal {-rc}"
    return f"exit status {rc}"


def native_ok(native):
    return native is not None and not native["timed_out"] and native["rc"] == 0


def verdict(run, native):
    """SAME, DIFFERS, NOT_COMPARED (the native run failed), or what went wrong."""
    if not native_ok(native):
        return NOT_COMPARED
    if run["timed_out"] or run["rc"] != native["rc"]:
        return describe_exit(run)
    if not filecmp.cmp(run["out"], native["out"], shallow=False):
        return DIFFERS
    return SAME


def first_difference(run, native, limit=3):
    """A few lines of `native | shim` where the outputs part, for the page."""
    try:
        with open(native["out"], errors="replace") as f:
            a = f.read().splitlines()
        with open(run["out"], errors="replace") as f:
            b = f.read().splitlines()
    except OSError:
        return []
    out = []
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else "(nothing)"
        y = b[i] if i < len(b) else "(nothing)"
        if x != y:
            out.append(f"line {i + 1}: native `{x[:80]}`, shim `{y[:80]}`")
            if len(out) == limit:
                break
    return out
