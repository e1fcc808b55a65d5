#!/usr/bin/env python3
"""nvcc_cache.py CACHE_DIR NVCC ARG...: runs NVCC ARG..., or copies its output from CACHE_DIR.

The build directories of one checkout (plain, ASan, TSan) compile the same example and test
programs with nvcc, which none of them instruments. This launcher lets them share the results.
A compile is cached when it has one source file and one output (-o); anything else runs as is.

An entry is found in two steps, as in ccache's direct mode:
  1. the compile's key: the toolkit, the host compiler, the NVCC_* environment, the arguments
     (the output named by its file name only) and the source file's content;
  2. under that key, the entries recorded with the files the compile read (nvcc's -MD list,
     system headers included) and their contents; an entry whose files all still hold the same
     content is a hit.
A hit copies the output and replays the compile's messages; a miss compiles with -MD and stores
the output, the messages and the file list. Entries are written whole (a rename) so that
concurrent builds can share the directory. Beyond CFRJIT_NVCC_CACHE_MAX_MB (default 2048) of
outputs, the least recently used entries are removed.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

SOURCE_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c")
UNCACHEABLE_FLAGS = {"-M", "-MM", "-MD", "-MMD", "-MF", "-MT", "-E", "--run", "-run", "-keep",
                     "--keep", "-lib", "--lib", "-dlink", "--device-link"}


def file_digest(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def parse_command(args):
    """(output path, source path) of a cacheable compile, or None."""
    output = None
    sources = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in UNCACHEABLE_FLAGS:
            return None
        if arg in ("-o", "--output-file"):
            if output is not None or i + 1 == len(args):
                return None
            output = args[i + 1]
            i += 2
            continue
        if not arg.startswith("-") and arg.endswith(SOURCE_SUFFIXES) and os.path.isfile(arg):
            sources.append(arg)
        i += 1
    if output is None or len(sources) != 1:
        return None
    return output, sources[0]


def toolchain_identity(nvcc, args):
    """What, besides the arguments and the files read, decides nvcc's output."""
    parts = []
    host = host_compiler(args)
    for tool in (nvcc, shutil.which(host) or host):
        real = os.path.realpath(tool)
        stat = os.stat(real) if os.path.exists(real) else None
        parts.append(f"{real}:{stat.st_size if stat else 0}:{stat.st_mtime_ns if stat else 0}")
    version_file = os.path.join(os.path.dirname(os.path.realpath(nvcc)), "..", "version.json")
    if os.path.isfile(version_file):
        parts.append(file_digest(version_file))
    parts += sorted(f"{k}={v}" for k, v in os.environ.items() if k.startswith("NVCC_"))
    return parts


def host_compiler(args):
    for flag in ("-ccbin", "--compiler-bindir"):
        if flag in args and args.index(flag) + 1 < len(args):
            return args[args.index(flag) + 1]
    return os.environ.get("NVCC_CCBIN", "g++")


def compile_key(nvcc, args, output, source):
    digest = hashlib.sha256()
    normalized = [os.path.basename(a) if a == output else a for a in args]
    relative_paths = any(not a.startswith("-") and not os.path.isabs(a) and os.path.exists(a)
                         for a in args)
    fields = toolchain_identity(nvcc, args) + normalized + [file_digest(source)]
    if relative_paths:
        fields.append(os.getcwd())
    for field in fields:
        digest.update(field.encode() + b"\0")
    return digest.hexdigest()


def read_depfile(path):
    """The files a make-style dependency file lists, as absolute paths."""
    with open(path) as f:
        text = f.read().replace("\\\n", " ")
    _, _, deps = text.partition(": ")
    files = []
    current = ""
    for token in deps.split(" "):
        if token.endswith("\\"):
            current += token[:-1] + " "
            continue
        current += token
        if current.strip():
            files.append(os.path.abspath(current.strip()))
        current = ""
    return files


def entry_matches(entry):
    try:
        with open(os.path.join(entry, "inputs.json")) as f:
            inputs = json.load(f)
        return all(os.path.isfile(p) and file_digest(p) == d for p, d in inputs.items())
    except (OSError, ValueError):
        return False


def replay(entry, output):
    tmp = output + ".nvcc-cache.tmp"
    shutil.copyfile(os.path.join(entry, "output"), tmp)
    shutil.copymode(os.path.join(entry, "output"), tmp)
    os.replace(tmp, output)
    with open(os.path.join(entry, "messages"), "rb") as f:
        sys.stderr.buffer.write(f.read())
    os.utime(entry)


def compile_and_store(nvcc, args, output, key_dir):
    os.makedirs(key_dir, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".staging-", dir=key_dir)
    try:
        depfile = os.path.join(staging, "deps.d")
        run = subprocess.run([nvcc, *args, "-MD", "-MF", depfile], stderr=subprocess.PIPE)
        sys.stderr.buffer.write(run.stderr)
        if run.returncode != 0:
            return run.returncode
        inputs = {p: file_digest(p) for p in read_depfile(depfile)}
        with open(os.path.join(staging, "inputs.json"), "w") as f:
            json.dump(inputs, f)
        with open(os.path.join(staging, "messages"), "wb") as f:
            f.write(run.stderr)
        shutil.copy2(output, os.path.join(staging, "output"))
        inputs_key = hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()
        try:
            os.rename(staging, os.path.join(key_dir, inputs_key))
        except OSError:
            pass  # the same entry, stored meanwhile by another build
        return 0
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def prune(cache_dir):
    limit = int(os.environ.get("CFRJIT_NVCC_CACHE_MAX_MB", "2048")) << 20
    entries = []
    for key in os.scandir(cache_dir):
        if key.is_dir():
            for entry in os.scandir(key.path):
                if entry.is_dir() and not entry.name.startswith(".staging-"):
                    output = os.path.join(entry.path, "output")
                    size = os.path.getsize(output) if os.path.exists(output) else 0
                    entries.append((entry.stat().st_mtime, size, entry.path))
    total = sum(size for _, size, _ in entries)
    for _, size, path in sorted(entries):
        if total <= limit:
            break
        shutil.rmtree(path, ignore_errors=True)
        total -= size


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        print(__doc__, file=sys.stderr)
        return 2
    cache_dir, nvcc, args = argv[1], argv[2], argv[3:]
    parsed = parse_command(args)
    if parsed is None:
        return subprocess.run([nvcc, *args]).returncode
    output, source = parsed
    key_dir = os.path.join(cache_dir, compile_key(nvcc, args, output, source))
    if os.path.isdir(key_dir):
        for entry in os.scandir(key_dir):
            if not entry.name.startswith(".staging-") and entry_matches(entry.path):
                replay(entry.path, output)
                return 0
    status = compile_and_store(nvcc, args, output, key_dir)
    if status == 0:
        prune(cache_dir)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
