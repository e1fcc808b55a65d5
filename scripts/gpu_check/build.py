"""Configuring and building what gpu-check needs, with CMake and Ninja."""
import json
import os
import shutil
import subprocess
import sys

from progress import say

# What the check runs: the shim and its command-line tool, the programs (the examples, the suite,
# the driver end-to-end apps of the tests), the JIT-cost tool; the emulated driver only for
# --emulated. Targets this build does not define are left out.
TARGETS = ["cfrjit", "cfrjit_shim", "examples-drv", "examples-rt", "divergence-suite", "jit_cost",
           "cfrjit_driver_apps", "cfrjit_driver_lifetime_apps", "cfrjit_driver_attribute_apps",
           "cfrjit_image_apps"]
EMULATOR_TARGETS = ["cfrjit_cuda"]


def _defined_targets(build):
    done = subprocess.run(["ninja", "-C", build, "-t", "targets", "all"], capture_output=True,
                          text=True)
    return {line.split(":", 1)[0] for line in done.stdout.splitlines()}


def configure(root, build):
    if os.path.exists(os.path.join(build, "build.ninja")):
        return True
    cmd = ["cmake", "-S", root, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo"]
    if os.path.isdir("/usr/local/cuda"):
        cmd.append("-DCUDAToolkit_ROOT=/usr/local/cuda")
    if shutil.which("ccache"):
        cmd += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
    say("configuring: " + " ".join(cmd))
    return _quiet(cmd)


def build(root, build_dir, emulated, jobs):
    """Configures (once) and builds; False when either fails."""
    for tool in ("cmake", "ninja"):
        if not shutil.which(tool):
            say(f"{tool} not found: build elsewhere and pass --build DIR --no-build")
            return False
    if not configure(root, build_dir):
        return False
    defined = _defined_targets(build_dir)
    wanted = TARGETS + (EMULATOR_TARGETS if emulated else [])
    targets = [t for t in wanted if t in defined]
    missing = [t for t in wanted if t not in defined]
    if missing:
        say(f"not defined in this build (left out): {', '.join(missing)}")
    say(f"building {', '.join(targets)}")
    return _quiet(["ninja", "-C", build_dir, f"-j{jobs}", *targets])


def _quiet(cmd):
    """Runs a build command; its output is shown only when it fails."""
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        say(f"failed: {' '.join(cmd)}")
        print("\n".join(done.stdout.splitlines()[-40:]), file=sys.stderr)
    return done.returncode == 0


# What a run needs from a build folder, relative to it (a bundle keeps the same layout).
BUNDLE = ["lib/libcfrjit.so", "tools/cfrjit", "bench/gpu/jit_cost", "examples/bin/*",
          "examples/ptx/*.ptx", "bench/divergence/bin/*", "bench/divergence/ptx/*.ptx",
          "emulator/driver/lib/libcuda.so*", "tests/driver/apps/*_static",
          "tests/driver/apps/*_shared"]


# Written into a bundle: the commit its build was made from, read back on the GPU machine, where
# the tree the check runs in need not be that commit.
BUNDLE_IDENTITY = "cfrjit-bundle.json"
SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def source_identity(root):
    """The source tree's commit, with " with local changes" where tracked files differ from it."""
    done = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        return "unknown commit"
    dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout
    return done.stdout.strip() + (" with local changes" if dirty.strip() else "")


def bundled_identity(build_dir):
    """The commit a bundle was made from (None for a build folder that is no bundle)."""
    try:
        with open(os.path.join(build_dir, BUNDLE_IDENTITY)) as f:
            return json.load(f).get("commit")
    except (OSError, ValueError):
        return None


def _is_elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def bundle(build_dir, dest):
    """Copies what a run needs from build_dir into dest (same layout), ELF files stripped of
    symbols and debug information: the folder to carry to a GPU machine. Its size in bytes, or
    None when the build lacks the shim."""
    import glob

    if not os.path.exists(os.path.join(build_dir, "lib", "libcfrjit.so")):
        say(f"{build_dir} has no lib/libcfrjit.so: build first")
        return None
    shutil.rmtree(dest, ignore_errors=True)
    strip = shutil.which("strip")
    total = 0
    for pattern in BUNDLE:
        for src in sorted(glob.glob(os.path.join(build_dir, pattern))):
            if os.path.isdir(src):
                continue
            rel = os.path.relpath(src, build_dir)
            target = os.path.join(dest, rel)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            if os.path.islink(src):
                os.symlink(os.readlink(src), target)
                continue
            shutil.copy2(src, target)
            if strip and _is_elf(target):
                subprocess.run([strip, "--strip-unneeded", target], check=False)
            total += os.path.getsize(target)
    total += _bundle_cudart(build_dir, dest)
    with open(os.path.join(dest, BUNDLE_IDENTITY), "w") as f:
        json.dump({"commit": source_identity(SOURCE_ROOT)}, f)
    say(f"bundle {dest}: {total / 2**20:.1f} MiB")
    return total


def _bundle_cudart(build_dir, dest):
    """The shared cudart the -cudart shared programs were linked with, into dest/lib/cudart (the
    runs put it last on LD_LIBRARY_PATH, for a machine without the toolkit)."""
    import glob

    programs = glob.glob(os.path.join(build_dir, "examples", "bin", "*_rt_shared"))
    if not programs or not shutil.which("ldd"):
        return 0
    done = subprocess.run(["ldd", programs[0]], capture_output=True, text=True)
    for line in done.stdout.splitlines():
        name, _, rest = line.strip().partition(" => ")
        if name.startswith("libcudart.so") and rest.startswith("/"):
            target = os.path.join(dest, "lib", "cudart", name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(os.path.realpath(rest.split(" (")[0]), target)
            return os.path.getsize(target)
    return 0
