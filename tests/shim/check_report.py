#!/usr/bin/env python3
"""Checks a shim report (CFRJIT_REPORT) for what a test expects of it.

usage: check_report.py REPORT.json [--kernels-rewritten] [--kernels-timed] [--outcome=NAME]...
                                   [--no-outcome=NAME]... [--graphs] [--captured]
                                   [--kernel=NAME]... [--ptx-target=NAME]

--kernels-rewritten  every launched kernel (directly or in a graph) comes from a rewritten module
--kernels-timed      every direct launch was timed (none lost)
--outcome=NAME       some module has this outcome (rewritten, no-ptx, ptx-missing-kernels, ...)
--no-outcome=NAME    no module has it
--graphs             some instantiated graph was launched and timed
--captured           some kernel launch was captured into a graph
--kernel=NAME        a kernel of this name was launched (directly or in a graph)
--ptx-target=NAME    every rewritten module was rewritten from this PTX (compute_75)
Prints one summary line; exits 1 with the failed check.
"""
import json
import sys


def fail(message):
    print(f"check_report: {message}")
    sys.exit(1)


def main():
    report = json.load(open(sys.argv[1]))
    kernels = report["kernels"]
    modules = report["modules"]
    graphs = report.get("graphs", [])
    ran = [k for k in kernels if k["launches"] > 0 or k.get("graph_runs", 0) > 0]
    outcomes = [m["outcome"] for m in modules]
    for arg in sys.argv[2:]:
        name, _, value = arg[2:].partition("=")
        if name == "kernels-rewritten":
            if not ran:
                fail("no kernel ran")
            for k in ran:
                if not k.get("rewritten"):
                    fail(f"{k['name']} ran from a module that was not rewritten")
        elif name == "kernels-timed":
            for k in kernels:
                if k["timed"] != k["launches"]:
                    fail(f"{k['name']}: {k['launches']} launches, {k['timed']} timed")
        elif name == "outcome":
            if value not in outcomes:
                fail(f"no module has outcome {value}: {outcomes}")
        elif name == "no-outcome":
            if value in outcomes:
                fail(f"a module has outcome {value}: {modules}")
        elif name == "graphs":
            if not any(g["launches"] > 0 and g["timed"] > 0 for g in graphs):
                fail(f"no graph launched and timed: {graphs}")
        elif name == "captured":
            if not any(k.get("captured", 0) > 0 for k in kernels):
                fail("no launch captured into a graph")
        elif name == "kernel":
            if not any(k["name"] == value for k in ran):
                fail(f"kernel {value} did not run: {[k['name'] for k in ran]}")
        elif name == "ptx-target":
            targets = [m["ptx_target"] for m in modules if m["outcome"] == "rewritten"]
            if not targets or any(t != value for t in targets):
                fail(f"rewritten from {targets}, not {value}")
        else:
            fail(f"unknown check {arg}")
    summary = ", ".join(f"{k['name']} x{k['launches'] + k.get('graph_runs', 0)}" for k in ran)
    print(f"modules {outcomes}; graphs {len(graphs)}; kernels {summary}")


if __name__ == "__main__":
    main()
