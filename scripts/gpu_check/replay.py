"""Writing the page again from a finished check's runs.json (--page-from): a check on a lent GPU
is rare, so its records are kept and the page can be rendered anew once the page's code is
improved, without running anything. What the record lacks (files the runs wrote on the GPU
machine) is not needed: every verdict, report and summary is in the record."""
import dataclasses
import gzip
import json
from types import SimpleNamespace

import configs
import programs
import tools
from client_phase import UNAVAILABLE, Clients
from configs import Config, NATIVE


def save(path, meta, check, clients, extra):
    """Everything the page needs, in one JSON file."""
    with open(path, "w") as f:
        json.dump({"meta": meta, "programs": [dataclasses.asdict(p) for p in check.programs],
                   "configs": [dataclasses.asdict(c) for c in check.configs],
                   "invariant1": check.invariant1, "rounds_done": check.rounds_done,
                   "rounds_note": check.rounds_note, "runs": check.runs,
                   "sanitizer": extra.sanitizer, "profilers": extra.profilers,
                   "clients": clients.results, "clients_unavailable": clients.unavailable,
                   "jit": check.jit}, f, indent=1, default=str)


def _programs(record, build):
    """The record's programs; a record written before they were saved gets them from the build
    folder's listing (the same bundle), keeping those its runs name."""
    if "programs" in record:
        return [programs.Program(**{**p, "argv": tuple(p["argv"])}) for p in record["programs"]]
    named = {r["program"] for r in record["runs"]}
    found = (programs.examples(build, with_o0=True) + programs.suite(build, "gpu", with_o0=True)
             + programs.apps(build))
    return [p for p in found if p.id in named]


def _configs(record):
    if "configs" in record:
        return [Config(**c) for c in record["configs"]]
    keys = []
    for r in record["runs"]:
        if r["config"] not in keys:
            keys.append(r["config"])
    every_pass = {p for _, pipeline in configs.parse_pipelines(configs.PIPELINES)
                  for p in configs.passes_of(pipeline)}
    made, _ = configs.make_configs(configs.parse_pipelines(configs.PIPELINES), every_pass)
    return [c for c in made if c.key in keys]


def load(path, build):
    """(check, clients, tools, meta) standing in for a finished check's objects."""
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        record = json.load(f)
    runs = record["runs"]
    rounds = sorted({r["round"] for r in runs if r["phase"] == "time"})
    check = SimpleNamespace(
        runs=runs, programs=_programs(record, build), configs=_configs(record),
        native={r["program"]: r for r in runs if r["config"] == NATIVE and r["phase"] == "check"},
        invariant1=record.get("invariant1"), jit=record.get("jit"),
        rounds_done=record.get("rounds_done", len(rounds)),
        rounds_note=record.get("rounds_note", ""),
        repeats=[r for r in runs if r["phase"] == "repeat"])
    clients = Clients(None, None, None, 1)
    clients.results = record.get("clients", [])
    clients.unavailable = record.get("clients_unavailable") or {
        r["client"]: "could not run here" for r in clients.results
        if r["config"] == NATIVE and r["rc"] == UNAVAILABLE}
    extra = tools.Tools(check, None)
    extra.sanitizer, extra.profilers = record.get("sanitizer", []), record.get("profilers", [])
    return check, clients, extra, record["meta"]
