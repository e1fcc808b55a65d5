"""The programs gpu-check runs, found in a build directory: the examples (examples/bin:
<name>_drv, <name>_rt, <name>_rt_shared, and for some <name>_rt_sm90 and <name>_rt_multiarch,
built with machine code as users ship them), the divergence suite (bench/divergence/bin: every
executable there, grouped by the name before its last _drv/_rt/_rt_shared suffix), and the
driver end-to-end apps of the tests (tests/driver/apps, tests/driver/images: device resets,
graphs, -rdc, images of several architectures)."""
import os
import re
from dataclasses import dataclass

EXAMPLE = "example"
SUITE = "suite"
APP = "app"
FORMS = ("drv", "rt", "rt_shared", "rt_sm90", "rt_multiarch")
_FORM_SUFFIX = re.compile(r"^(?P<name>.+?)_(?P<form>drv|rt_shared|rt_sm90|rt_multiarch|rt)$")

# The driver end-to-end apps of the tests (tests/driver/apps in the build), built with static
# and, most of them, shared cudart (<app>_static, <app>_shared): the programs behind the fixes for
# device resets, stream capture and graphs (conditional nodes among them), -rdc, images of several
# architectures, and the modern CUDA the emulator runs (tensor cores, asynchronous copies,
# grid-wide synchronisation, clusters, Thrust and CUB, the occupancy calculator, a shared address
# that wraps around), and the convergence tests' kernels (convergent_app: warp operations, tensor
# cores and barriers in the loop nests and branches the transforms rewrite): on a GPU each shows
# the emulated driver's behaviour is NVIDIA's.
APPS_DIR = "tests/driver/apps"
APPS = ("reset_app", "graph_capture_app", "graph_nodes_app", "conditional_graph_app", "rdc_app",
        "rdc_template_app", "runtime_app", "texture_app", "image_older_ptx",
        "image_older_ptx_sm90", "image_newer_ptx", "tensor_app", "coop_app", "cluster_app",
        "thrust_app", "cub_app", "occupancy_app", "shared_wrap_app", "convergent_app")
APP_VARIANTS = {"reset_app": [(), ("thread",)]}


@dataclass(frozen=True)
class Program:
    family: str  # EXAMPLE or SUITE
    name: str  # the example or suite program, e.g. short_circuit
    form: str  # drv, drv-O0, rt, rt_shared (or the file name for a suite binary without suffix)
    argv: tuple  # the command line
    timed: bool  # one of the programs whose device time is measured

    @property
    def id(self):
        return f"{self.name}_{self.form}"


def _executables(folder):
    if not os.path.isdir(folder):
        return []
    out = []
    for entry in sorted(os.listdir(folder)):
        path = os.path.join(folder, entry)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            out.append(path)
    return out


def _split(path):
    base = os.path.basename(path)
    m = _FORM_SUFFIX.match(base)
    return (m["name"], m["form"]) if m else (base, base)


def _accepts(binary, flag):
    """Whether a program's usage text names a flag (its binary holds the string)."""
    try:
        with open(binary, "rb") as f:
            return flag.encode() in f.read()
    except OSError:
        return False


def _selected(name, only):
    return not only or name in only


def examples(build, only=(), with_o0=True, repeat=1):
    """The example programs of a build: every form of every example; the Driver-API program is
    timed, and also run on its -O0 PTX when with_o0."""
    ptx_dir = os.path.join(build, "examples", "ptx")
    out = []
    for path in _executables(os.path.join(build, "examples", "bin")):
        name, form = _split(path)
        if form not in FORMS or not _selected(name, only):
            continue
        if form != "drv":
            out.append(Program(EXAMPLE, name, form, (path,), timed=False))
            continue
        extra = ("--repeat", str(repeat)) if repeat > 1 and _accepts(path, "--repeat") else ()
        o3 = os.path.join(ptx_dir, f"{name}.O3.ptx")
        out.append(Program(EXAMPLE, name, "drv", (path, *extra, o3), timed=True))
        o0 = os.path.join(ptx_dir, f"{name}.O0.ptx")
        if with_o0 and os.path.exists(o0):
            out.append(Program(EXAMPLE, name, "drv-O0", (path, o0), timed=False))
    return out


def suite(build, size, only=(), with_o0=True):
    """The divergence suite's programs: each binary run at SIZE (tiny, gpu or a number); a
    Driver-API program is given its PTX from bench/divergence/ptx and timed."""
    ptx_dir = os.path.join(build, "bench", "divergence", "ptx")
    out = []
    for path in _executables(os.path.join(build, "bench", "divergence", "bin")):
        name, form = _split(path)
        if not _selected(name, only):
            continue
        args = (path, size) if size else (path,)
        if form != "drv":
            out.append(Program(SUITE, name, form, args, timed=False))
            continue
        o3 = os.path.join(ptx_dir, f"{name}.O3.ptx")
        ptx = ("--ptx", o3) if os.path.exists(o3) and _accepts(path, "--ptx") else ()
        out.append(Program(SUITE, name, "drv", (*args, *ptx), timed=True))
        o0 = os.path.join(ptx_dir, f"{name}.O0.ptx")
        if with_o0 and os.path.exists(o0) and _accepts(path, "--ptx"):
            out.append(Program(SUITE, name, "drv-O0", (*args, "--O0", "--ptx", o0), timed=False))
    return out


def apps(build, only=()):
    """The driver end-to-end apps found in the build (static and shared cudart), each variant of
    its arguments a form of its own (reset_app: plain and "thread")."""
    out = []
    for name in APPS:
        if not _selected(name, only):
            continue
        for mode in ("static", "shared"):
            path = os.path.join(build, APPS_DIR, f"{name}_{mode}")
            if not (os.path.isfile(path) and os.access(path, os.X_OK)):
                continue
            for args in APP_VARIANTS.get(name, [()]):
                form = "-".join((mode, *args))
                out.append(Program(APP, name, form, (path, *args), timed=False))
    return out
