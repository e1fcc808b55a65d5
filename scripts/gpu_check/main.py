"""gpu-check: builds cfrjit (or takes a build), runs every example and divergence-suite program
natively and under the shim with every pipeline and policy, compares the outputs, reads the
shim's reports and writes the results page. See docs/gpu-check.md; scripts/gpu-check.sh runs
this."""
import argparse
import datetime
import os
import platform as host
import re
import shlex
import shutil
import subprocess
import sys
import traceback

import build
import configs
import page

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import html_page  # noqa: E402  (scripts/html_page.py)
import programs
import replay
import tools
from budget import Budget
from client_phase import Clients
from phases import Check
from progress import elapsed, say
from runner import Platform

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXIT_OK, EXIT_WRONG, EXIT_SETUP, EXIT_INCOMPLETE = 0, 1, 2, 3


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="scripts/gpu-check.sh",
        description="Run every example and divergence-suite program natively and under "
        "libcfrjit.so with every pipeline and policy, compare the outputs, and write the "
        "results page (device-time ratios to native, cold cost beside the driver's JIT, "
        "correctness). On a GPU box without package registries: build elsewhere, carry the "
        "build folder, and pass --build DIR --no-build (docs/gpu-check.md).",
        epilog="exit status: 0 all runs correct; 1 a run under the shim differs from the native "
        "run (or crashed, or compute-sanitizer found errors the native run has not); 2 setup "
        "failed (build, nothing to run); 3 correct but incomplete (a program failed natively, "
        "a module was not rewritten, a run left no report, or the shim logged a warning).")
    p.add_argument("--build", metavar="DIR",
                   default=os.environ.get("CFRJIT_BUILD_DIR", os.path.join(ROOT, "build")),
                   help="build folder (default: $CFRJIT_BUILD_DIR or build/)")
    p.add_argument("--no-build", action="store_true",
                   help="use the build folder as it is (a build carried from another machine)")
    p.add_argument("--bundle", metavar="DIR",
                   help="copy what a run needs from the build folder into DIR, stripped (the "
                   "folder to carry to a GPU machine; run there with --build DIR --no-build), "
                   "and stop")
    p.add_argument("--page-from", metavar="RUNS_JSON",
                   help="run nothing: write the page again from a finished check's runs.json "
                   "(BUILD/gpu-check/work/runs.json, or gzipped as .json.gz), e.g. one brought "
                   "back from a GPU machine (docs/results/gpu-records); "
                   "--out names the page (default as for a run)")
    p.add_argument("--emulated", action="store_true",
                   help="run on cfrjit's emulated driver instead of NVIDIA's (no GPU needed); the "
                   "page goes to BUILD/gpu-check/gpu.md unless --out says otherwise")
    p.add_argument("--out", metavar="FILE",
                   help="the page (default: docs/results/gpu.md; BUILD/gpu-check/gpu.md with "
                   "--emulated)")
    p.add_argument("--work", metavar="DIR",
                   help="where the runs' outputs and reports are kept (default: "
                   "BUILD/gpu-check/work, emptied first)")
    p.add_argument("--quick", action="store_true",
                   help="2 timing rounds, fewer pipelines, no -O0 runs, 3 JIT loads per module")
    p.add_argument("--reps", type=int, help="timing rounds (default 5, --quick 2)")
    p.add_argument("--time-limit", type=float, default=480, metavar="SECONDS",
                   help="start no timing round that would end later than this many seconds after "
                   "the first run; the build is not counted (default 480)")
    p.add_argument("--run-timeout", type=float, default=60, metavar="SECONDS",
                   help="a run taking longer is stopped and counted as a failure (default 60)")
    p.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2),
                   help="parallel runs in the correctness phase (default: half the cores)")
    p.add_argument("--examples", metavar="LIST",
                   help="comma-separated examples to run (default: every one built; 'none')")
    p.add_argument("--suite", metavar="LIST",
                   help="comma-separated suite programs (default: every one built; 'none')")
    p.add_argument("--suite-size", metavar="SIZE",
                   help="size argument of the suite programs (default gpu; tiny with --emulated)")
    p.add_argument("--example-repeat", type=int, metavar="N",
                   help="launches per run of an example's Driver-API program, where it takes "
                   "--repeat (default 20; 1 with --emulated)")
    p.add_argument("--pipelines", metavar="LIST",
                   help="';'-separated [name=]pipeline list run beside the empty and the default "
                   "pipeline (default: " + "; ".join(configs.PIPELINES) + ")")
    p.add_argument("--no-adaptive", action="store_true", help="leave out CFRJIT_POLICY=adaptive")
    p.add_argument("--no-o0", action="store_true",
                   help="leave out the Driver-API programs' runs on -O0 PTX")
    p.add_argument("--jit-runs", type=int, help="loads per module for the JIT cost (default 5, "
                   "--quick 3)")
    p.add_argument("--apps", metavar="LIST",
                   help="comma-separated driver end-to-end apps of the tests (device resets, "
                   "graphs, -rdc, images; default: every one built; 'none')")
    p.add_argument("--reset-runs", type=int, default=10, metavar="N",
                   help="runs of each form of reset_app under the default pipeline, beside the "
                   "correctness runs (default 10; 0 leaves them out)")
    p.add_argument("--timing-only", action="store_true",
                   help="after a campaign with the same build on the same machine: run each "
                   "timed program natively once (the output every timing run is compared with), "
                   "then only the timing rounds; no correctness runs under the shim, no other "
                   "programs, no reset_app repetitions, clients or JIT cost")
    p.add_argument("--no-clients", action="store_true",
                   help="leave out PyTorch and CuPy (run where they import)")
    p.add_argument("--sanitizer", action="store_true",
                   help="also run compute-sanitizer memcheck, racecheck and synccheck over every "
                   "example's Driver-API program, natively, under the default pipeline and under "
                   "the adaptive policy (off by default)")
    p.add_argument("--compute-sanitizer", metavar="PATH",
                   help="the compute-sanitizer to use (default: PATH, then /usr/local/cuda/bin)")
    p.add_argument("--profilers", action="store_true",
                   help="also profile one example under the shim with ncu (one kernel launch) "
                   "and nsys, each where found (off by default)")
    p.add_argument("--ncu", metavar="PATH", help="the ncu to use (default: PATH, /usr/local/"
                   "cuda/bin)")
    p.add_argument("--nsys", metavar="PATH", help="the nsys to use (default: PATH, /usr/local/"
                   "cuda/bin, Nsight Systems' and Nsight Compute's folders under /opt/nvidia)")
    p.add_argument("--campaign", action="store_true",
                   help="everything a GPU run should do: --sanitizer --profilers (and the "
                   "clients and apps, on by default)")
    p.add_argument("--inject-mismatch", action="append", default=[], metavar="PROGRAM",
                   help="(tests) plant a line in the native output of PROGRAM (e.g. "
                   "short_circuit_drv), so that its runs under the shim must be reported as "
                   "different")
    a = p.parse_args(argv)
    a.reps = a.reps or (2 if a.quick else 5)
    a.jit_runs = a.jit_runs or (3 if a.quick else 5)
    a.suite_size = a.suite_size or ("tiny" if a.emulated else "gpu")
    a.example_repeat = a.example_repeat or (1 if a.emulated else 20)
    if a.timing_only and (a.campaign or a.sanitizer or a.profilers):
        p.error("--timing-only runs the timing rounds alone: leave out --campaign, --sanitizer "
                "and --profilers (run them in the campaign before it)")
    if a.campaign:
        a.sanitizer = a.profilers = True
    if a.timing_only:
        a.no_clients, a.reset_runs = True, 0
    a.build = os.path.abspath(a.build)
    gpu_check = os.path.join(a.build, "gpu-check")
    a.out = os.path.abspath(a.out or (os.path.join(gpu_check, "gpu.md") if a.emulated else
                                      os.path.join(ROOT, "docs", "results", "gpu.md")))
    a.work = os.path.abspath(a.work or os.path.join(gpu_check, "work"))
    if a.reps < 1 or a.jobs < 1 or a.jit_runs < 1 or a.reset_runs < 0:
        p.error("--reps, --jobs and --jit-runs take positive numbers, --reset-runs zero or more")
    return a


def names(text):
    if text is None:
        return None
    return [] if text.strip() == "none" else [n.strip() for n in text.split(",") if n.strip()]


def registered_passes(cfrjit):
    done = subprocess.run([cfrjit, "passes"], capture_output=True, text=True)
    return {line.split()[0] for line in done.stdout.splitlines()
            if line and not line[0].isspace() and not line.startswith("default")}


def gpu_identity(plat, jit):
    """(GPU, driver) for the page: nvidia-smi's words on a GPU, the emulated device otherwise."""
    device = (jit or {}).get("device")
    version = (jit or {}).get("driver_version")
    cuda = f"CUDA {version // 1000}.{version % 1000 // 10}" if version else None
    if plat.emulated:
        return ("cfrjit emulated driver" + (f" ({device})" if device else ""),
                (f"{cuda} API, " if cuda else "") + plat.emulator_dir)
    smi = shutil.which("nvidia-smi")
    if not smi:
        return device or "?", f"{cuda or 'CUDA ?'} (nvidia-smi not found)"
    q = subprocess.run([smi, "--query-gpu=name,driver_version", "--format=csv,noheader"],
                       capture_output=True, text=True)
    head = subprocess.run([smi], capture_output=True, text=True).stdout
    m = re.search(r"CUDA Version:\s*([\d.]+)", head)
    first = (q.stdout.strip().splitlines() or ["?, ?"])[0]
    name, _, driver = first.partition(",")
    return name.strip(), f"{driver.strip()} (CUDA {m.group(1) if m else '?'})"


def cfrjit_identity(check, build_dir):
    """The commit the build was made from: a bundle's (made elsewhere), else the tree's."""
    bundled = build.bundled_identity(build_dir)
    commit = f"{bundled} (bundled)" if bundled else build.source_identity(ROOT)
    version = next((r["report"].get("version") for r in check.runs if r.get("report")
                    and r["report"].get("version")), None)
    return f"commit {commit}" + (f", shim {version}" if version else "")


def choose_programs(a):
    examples = names(a.examples)
    suite = names(a.suite)
    found = []
    if examples != []:
        found += programs.examples(a.build, examples or (), with_o0=not (a.quick or a.no_o0),
                                   repeat=a.example_repeat)
    if suite != []:
        found += programs.suite(a.build, a.suite_size, suite or (),
                                with_o0=not (a.quick or a.no_o0))
    apps = names(a.apps)
    if apps != []:
        found += programs.apps(a.build, apps or ())
    return found


def exit_status(pg, check):
    if pg.failures() or pg.sanitizer_findings() or pg.client_failures() or \
            pg.profiler_failures():
        return EXIT_WRONG
    if pg.native_failures() or pg.fallbacks() or pg.log_lines() or pg.missing_reports() or \
            pg.meta.get("crashes"):
        return EXIT_INCOMPLETE
    return EXIT_OK


def run_phases(phases, budget):
    """Runs each phase inside its budget. A phase that raises is reported on the page and the
    check goes on with the next one: a campaign on a lent GPU must not lose its other results."""
    crashes = []
    for name, phase in phases:
        budget.start(name)
        try:
            phase()
        except KeyboardInterrupt:  # SIGINT (a `timeout -s INT` around the check): write the page
            say(f"interrupted in phase {name}: writing the page with what has run")
            crashes.append((name, "interrupted (SIGINT); later phases not run"))
            budget.finish()
            break
        except Exception:  # noqa: BLE001 - reported, and the check goes on
            text = traceback.format_exc()
            say(f"phase {name} failed:\n{text}")
            crashes.append((name, text.strip().splitlines()[-1]))
        budget.finish()
    return crashes


def main(argv):
    a = parse_args(argv)
    if a.page_from:
        return page_again(a, argv)
    if not a.no_build and not build.build(ROOT, a.build, a.emulated, max(2, os.cpu_count() or 2)):
        return EXIT_SETUP
    if a.bundle:
        return EXIT_OK if build.bundle(a.build, os.path.abspath(a.bundle)) else EXIT_SETUP
    plat = Platform(a.build, a.emulated)
    for need in (plat.shim, plat.cfrjit) + ((os.path.join(plat.emulator_dir, "libcuda.so.1"),)
                                            if a.emulated else ()):
        if not os.path.exists(need):
            say(f"missing {need}: build first (or pass the right --build)")
            return EXIT_SETUP
    if not a.emulated and not (os.path.exists("/proc/driver/nvidia/version")
                               or shutil.which("nvidia-smi")):
        say("no NVIDIA driver here (no /proc/driver/nvidia/version, no nvidia-smi): use "
            "--emulated to run on cfrjit's emulated driver")
        return EXIT_SETUP
    chosen = choose_programs(a)
    if a.timing_only:
        chosen = [p for p in chosen if p.timed]
    if not chosen:
        say(f"no program found under {a.build}/examples/bin or {a.build}/bench/divergence/bin")
        return EXIT_SETUP
    pipelines = configs.parse_pipelines(
        a.pipelines.split(";") if a.pipelines is not None else
        configs.QUICK_PIPELINES if a.quick else configs.PIPELINES)
    cfgs, skipped = configs.make_configs(pipelines, registered_passes(plat.cfrjit),
                                         adaptive=not a.no_adaptive)
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    say(f"{len(chosen)} program(s), {len(cfgs)} configuration(s): "
        + ", ".join(c.key for c in cfgs) + (" (emulated driver)" if a.emulated else ""))

    budget = Budget(a.time_limit)
    check = Check(plat, chosen, cfgs, a, a.work, budget)
    clients = Clients(plat, a.work, budget, max(a.jobs, 4))
    extra = tools.Tools(check, budget)
    found = {}
    if a.sanitizer:
        found["compute-sanitizer"] = tools.find_tool(a.compute_sanitizer, "compute-sanitizer")
    if a.profilers:
        found["ncu"] = tools.find_tool(a.ncu, "ncu")
        found["nsys"] = tools.find_nsys(a.nsys)
    if a.timing_only:
        phases = [("correctness", lambda: check.correctness(under_shim=False)),
                  ("timing", check.timing)]
    else:
        phases = full_phases(a, check, clients, extra, found)
    budget.announce([name for name, _ in phases])
    for name, tool in found.items():
        say(f"{name}: {tool or 'not found'}")
    crashes = run_phases(phases, budget)

    gpu, driver = gpu_identity(plat, check.jit)
    seconds = elapsed()
    total_runs = (len(check.runs) + len(extra.sanitizer) + len(extra.profilers)
                  + len(clients.results))
    meta = {
        "emulated": a.emulated, "gpu": gpu, "driver": driver,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "host": f"{host.node()}, {os.cpu_count()} cores",
        "cfrjit": cfrjit_identity(check, a.build) + f", build {a.build}",
        "command": shlex.join(["scripts/gpu-check.sh", *argv]),
        "runs": f"{total_runs} program runs in "
                f"{int(seconds // 60)} min {seconds % 60:.0f} s; {check.rounds_done} timing "
                f"round(s)",
        "jobs": a.jobs, "jit_runs": a.jit_runs, "skipped_pipelines": skipped,
        "tools": {k: v or "not found" for k, v in found.items()},
        "budget": budget.rows(), "cuts": budget.cuts, "crashes": crashes,
        "clients_skipped": a.no_clients, "timing_only": a.timing_only,
    }
    # The record first, whatever the page does: --page-from can write the page again from it.
    replay.save(os.path.join(a.work, "runs.json"), meta, check, clients, extra)
    return write_page(a, check, clients, extra, meta, f"runs in {a.work}")


def full_phases(a, check, clients, extra, found):
    """The phases of a check in their order: correctness, the apps' repetitions, the clients, the
    tools found, the JIT cost, and last the timing rounds, which take the time left."""
    phases = [("correctness", check.correctness)]
    if a.reset_runs:
        phases.append(("apps", lambda: check.repeat_apps(a.reset_runs)))
    if not a.no_clients:
        phases.append(("clients", clients.run))
    if found.get("compute-sanitizer"):
        phases.append(("sanitizer", lambda: extra.sanitize(found["compute-sanitizer"])))
    if found.get("ncu") or found.get("nsys"):
        phases.append(("profilers", lambda: extra.profile(found.get("ncu"), found.get("nsys"))))
    phases += [("jit", lambda: check.jit_cost(os.path.join(a.build, "bench", "gpu",
                                                            "jit_cost"))),
               ("timing", check.timing)]  # last: its rounds take the time left
    return phases


def write_html(pg, text, path):
    """The page beside the Markdown: the chart of device time per configuration, then the
    Markdown's sections and tables."""
    names, series = pg.program_ratios()
    chart = html_page.ratio_chart(
        names, series, "Device time of each timed program (all kernels) under each configuration, "
        "relative to native: the median of the rounds; a bar left of 1 is faster.",
        xlabel="ratio to native (log scale)")
    with open(path, "w") as f:
        f.write(html_page.page("cfrjit: the GPU check", chart + html_page.markdown_to_html(text)))


def write_page(a, check, clients, extra, meta, where):
    pg = page.Page(check, meta, clients, extra)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    text = pg.text()
    with open(a.out, "w") as f:
        f.write(text)
    write_html(pg, text, os.path.splitext(a.out)[0] + ".html")
    status = exit_status(pg, check)
    say(f"wrote {a.out} ({where}); "
        + {EXIT_OK: "all correct", EXIT_WRONG: "CORRECTNESS FAILURE",
           EXIT_INCOMPLETE: "correct, but incomplete (see the page)"}[status])
    return status


def page_again(a, argv):
    """--page-from: the page of a finished check, written again from its record."""
    try:
        check, clients, extra, meta = replay.load(a.page_from, a.build)
    except (OSError, ValueError, KeyError) as e:
        say(f"--page-from {a.page_from}: not a gpu-check record ({e})")
        return EXIT_SETUP
    meta["rerendered"] = shlex.join(["scripts/gpu-check.sh", *argv])
    return write_page(a, check, clients, extra, meta, f"from {a.page_from}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
