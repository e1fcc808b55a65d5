"""The configurations gpu-check runs every program under: natively, and under the shim with each
pipeline (fixed policy) and with the adaptive policy."""
from dataclasses import dataclass, field

NATIVE = "native"
EMPTY = "empty"
DEFAULT = "default"
ADAPTIVE = "adaptive"


@dataclass(frozen=True)
class Config:
    key: str  # short name used in file names and tables
    label: str  # what the page shows
    shim: bool = True
    env: dict = field(default_factory=dict)  # CFRJIT_* set for the run ("" is set-but-empty)

    @property
    def adaptive(self):
        return self.env.get("CFRJIT_POLICY") == "adaptive"

    @property
    def pipeline(self):
        """The pipeline spelled as CFRJIT_PASSES, None for the default one."""
        return self.env.get("CFRJIT_PASSES")


# Fixed-policy pipelines after the empty and the default one, in the page's column order.
# "name=pipeline"; the name is the column's.
PIPELINES = [
    "loops+branches=restructure-loops,restructure-branches",
    "loop-copy+branches=restructure-loops-copy,restructure-branches",
    "linearize=linearize",
    "linearize-merge=linearize<merge-loops=on>",
    "fuse=fuse-branches",
]
QUICK_PIPELINES = [
    "loops+branches=restructure-loops,restructure-branches",
    "linearize-merge=linearize<merge-loops=on>",
    "fuse=fuse-branches",
]


def passes_of(pipeline):
    """The pass names a pipeline spelling uses (options in <...> dropped)."""
    names, depth, current = [], 0, ""
    for c in pipeline:
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == "," and depth == 0:
            names.append(current.strip())
            current = ""
        elif depth == 0:
            current += c
    if current.strip():
        names.append(current.strip())
    return names


def parse_pipelines(specs):
    """["name=pipeline", "pipeline", ...] -> [(name, pipeline)]; an unnamed one is named by
    itself."""
    out = []
    for spec in specs:
        spec = spec.strip()
        if not spec:
            continue
        name, sep, pipeline = spec.partition("=")
        if not sep or "<" in name or "," in name:
            name, pipeline = spec, spec
        out.append((name.strip(), pipeline.strip()))
    return out


def make_configs(pipelines, registered, adaptive=True):
    """The configurations to run, and the pipelines left out because a pass is not registered
    ([(name, pipeline, missing passes)])."""
    configs = [
        Config(NATIVE, "native (no shim)", shim=False),
        Config(EMPTY, "empty pipeline", env={"CFRJIT_PASSES": "", "CFRJIT_POLICY": "fixed"}),
        Config(DEFAULT, "default pipeline", env={"CFRJIT_POLICY": "fixed"}),
    ]
    skipped = []
    for name, pipeline in pipelines:
        missing = [p for p in passes_of(pipeline) if p not in registered]
        if missing:
            skipped.append((name, pipeline, missing))
            continue
        configs.append(
            Config(name, f"`{pipeline}`", env={"CFRJIT_PASSES": pipeline, "CFRJIT_POLICY": "fixed"})
        )
    if adaptive:
        configs.append(Config(ADAPTIVE, "adaptive policy", env={"CFRJIT_POLICY": "adaptive"}))
    return configs, skipped
