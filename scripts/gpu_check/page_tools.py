"""The page's sections on what runs beside the examples and the suite: the driver end-to-end apps
(device resets, graphs, -rdc, images), the builds with machine code, PyTorch and CuPy,
compute-sanitizer, ncu and nsys, and the time budget."""
from collections import Counter, defaultdict

import compare
from configs import ADAPTIVE, DEFAULT, NATIVE
from programs import APP, EXAMPLE


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out) + "\n"


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def verdict_lines(pg):
    """Lines for the verdict: client and profiler failures, crashed phases, cuts."""
    out = []
    for r in pg.client_failures():
        out.append(f"**{r['client']} differs under the shim ({r['config']})**: "
                   + "; ".join(r["comparison"]["failed"]) + ".\n")
    for r in pg.profiler_failures():
        out.append(f"**{r['tool']} with the shim: {r['verdict']}** ({r['program']}).\n")
    for name, error in pg.meta.get("crashes") or []:
        out.append(f"**The {name} phase stopped with an error**: `{_cell(error)[:200]}`.\n")
    if pg.clients and pg.clients.unavailable:
        out.append("Not run here (not a failure): " + "; ".join(
            f"{k}: {v}" for k, v in sorted(pg.clients.unavailable.items())) + ".\n")
    if pg.meta.get("cuts"):
        out.append("Cut to stay in the time budget: " + "; ".join(pg.meta["cuts"]) + ".\n")
    return out


def _module_outcomes(runs):
    """'rewritten from <image>' or '<outcome>: <reason>' of the modules of some runs, counted."""
    seen = Counter()
    for r in runs:
        for m in (r.get("report") or {}).get("modules", []):
            outcome = m.get("outcome", "?")
            what = m.get("image") if outcome == "rewritten" else m.get("reason")
            seen[f"{outcome}: {what}" if what else outcome] += 1
    return "; ".join(f"{_cell(k)[:110]} ({n})" for k, n in seen.most_common(4)) or "no report"


def _verdicts(runs):
    bad = Counter(r.get("verdict") for r in runs
                  if r.get("verdict") not in (compare.SAME, compare.NOT_COMPARED))
    if not runs:
        return "-"
    if not bad:
        return f"ok ({len(runs)})"
    return "; ".join(f"**{v.upper()}** ({n})" for v, n in bad.items()) + f" of {len(runs)}"


def _program_table(pg, chosen):
    rows = []
    for p in chosen:
        runs = defaultdict(list)
        for r in pg.check.runs:
            if r["program"] == p.id:
                runs[r["config"]].append(r)
        native = pg.check.native.get(p.id)
        rows.append([p.id, native["verdict"] if native else "-",
                     _verdicts(runs[DEFAULT]), _verdicts(runs[ADAPTIVE]),
                     _module_outcomes(runs[DEFAULT][:1])])
    return table(["program", "native", "default", "adaptive",
                  "modules under the default pipeline (first run)"], rows)


def apps(pg):
    chosen = [p for p in pg.check.programs if p.family == APP]
    if not chosen:
        return ""
    out = ["## Device resets, graphs, -rdc and images of several architectures\n",
           "The driver end-to-end apps of the tests (`tests/driver/apps`), static and shared "
           "cudart, natively and under every configuration (the Correctness runs table counts "
           "them too). An image with no PTX the device can take is passed through by design.\n",
           _program_table(pg, chosen)]
    repeats = pg.check.repeats
    if repeats:
        per = defaultdict(list)
        for r in repeats:
            per[r["program"]].append(r)
        out.append("`reset_app` again and again under the default pipeline (it once crashed at "
                   "exit in 1 run of 10 on a GPU): " + "; ".join(
                       f"{k}: {_verdicts(v)}" for k, v in sorted(per.items())) + ".\n")
    return "\n".join(out)


def builds(pg):
    chosen = [p for p in pg.check.programs if p.family == EXAMPLE
              and p.form in ("rt_sm90", "rt_multiarch")]
    if not chosen:
        return ""
    return "\n".join([
        "## Builds with machine code\n",
        "Examples built as users ship them: `nvcc -arch=sm_90` (sm_90 machine code and "
        "compute_90 PTX) and a fatbin for several architectures (sm_80 and sm_90 machine code, "
        "compute_75 and compute_90 PTX). Under the default image policy the shim rewrites the "
        "newest PTX not above the device's architecture.\n",
        _program_table(pg, chosen)])


def clients(pg):
    c = pg.clients
    out = ["## PyTorch and CuPy\n"]
    if pg.meta.get("clients_skipped") or c is None:
        out.append("Not run (`--no-clients`).\n")
        return "\n".join(out)
    out.append("`scripts/gpu_check/clients/`: PyTorch (a matrix product through cuBLAS, a "
               "softmax, a `torch.where`, a `torch.compile`d function where Triton is there) and "
               "CuPy (an NVRTC `RawKernel` with a divergent loop, `cupy.random` through cuRAND, an "
               "`ElementwiseKernel` with branches, a scan), natively and under the shim; each "
               "result compared with the native one (equal, or within a relative 1e-5). CuPy's "
               "kernels are compiled to PTX (its switch for GPUs newer than NVRTC knows), so that "
               "the shim sees them; the native row says whether that switch was there.\n")
    for name, why in sorted(c.unavailable.items()):
        out.append(f"- **{name}**: not run: {why}.")
    if c.unavailable:
        out.append("")
    rows = []
    for r in c.results:
        parts = r.get("comparison", {}).get("parts") if r["config"] != NATIVE else {
            k: ("ok" if v.get("ok") else v.get("skipped") or v.get("error"))
            for k, v in r["parts"].items()}
        if r["config"] == NATIVE and r.get("ptx") is not None:
            parts = {"compiled to": "PTX" if r["ptx"] else "machine code (no PTX switch)",
                     **(parts or {})}
        exit_text = "timed out" if r["timed_out"] else str(r["rc"])
        outcomes = Counter(m.get("outcome", "?") for m in (r.get("report") or {})
                           .get("modules", []))
        rows.append([r["client"], r["config"], exit_text,
                     "; ".join(f"{k}: {_cell(v)[:80]}" for k, v in (parts or {}).items()) or "-",
                     ", ".join(f"{k} {n}" for k, n in outcomes.most_common()) or "-",
                     len(r.get("log") or [])])
    if rows:
        out.append(table(["client", "config", "exit", "results", "modules", "log lines"], rows))
    return "\n".join(out)


def sanitizer(pg):
    tool = (pg.meta.get("tools") or {}).get("compute-sanitizer")
    if tool is None:
        return ""
    out = ["## compute-sanitizer\n"]
    runs = pg.tools.sanitizer if pg.tools else []
    if not runs:
        out.append(f"Not run: {tool}.\n")
        return "\n".join(out)
    out.append(f"`{tool} --tool memcheck|racecheck|synccheck`, the shim preloaded into the "
               "sanitizer (the way a user would run it), on each example's Driver-API program "
               "(one launch): natively, under the default pipeline and under the adaptive "
               "policy. A cell is compute-sanitizer's error summary.\n")
    order = [c.key for c in pg.check.configs]
    columns = sorted({(r["tool"], r["config"]) for r in runs},
                     key=lambda tc: (tc[0], order.index(tc[1])))
    by = {(r["program"], r["tool"], r["config"]): r for r in runs}
    rows = []
    for program in sorted({r["program"] for r in runs}):
        rows.append([program] + [by[(program, t, k)]["summary"] if (program, t, k) in by else "-"
                                 for t, k in columns])
    out.append(table(["program"] + [f"{t} {k}" for t, k in columns], rows))
    return "\n".join(out)


def profilers(pg):
    tools = pg.meta.get("tools") or {}
    if "ncu" not in tools:
        return ""
    out = ["## ncu and nsys with the shim\n",
           "One example's Driver-API program under the default pipeline, run by the profiler "
           "with the shim preloaded: the program's output must be the native one and the "
           "profile must be there.\n"]
    ran = {r["tool"]: r for r in (pg.tools.profilers if pg.tools else [])}
    for name in ("ncu", "nsys"):
        path = tools.get(name)
        r = ran.get(name)
        if r is None:
            out.append(f"- **{name}**: not run ({path}).")
            continue
        out.append(f"- **{name}** (`{path}`) over {r['program']}: {r['verdict']}")
        if r["profile"]:
            out.append("\n  ```\n" + "\n".join("  " + line for line in r["profile"]) + "\n  ```")
    return "\n".join(out) + "\n"


def budget(pg):
    rows = pg.meta.get("budget") or []
    if not rows:
        return ""
    out = ["## Time budget\n", table(["phase", "budget", "spent"], rows)]
    cuts = pg.meta.get("cuts") or []
    out.append("Cut: " + "; ".join(cuts) + ".\n" if cuts else "Nothing was cut.\n")
    return "\n".join(out)
