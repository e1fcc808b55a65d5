#!/usr/bin/env python3
"""The divergence suite's HTML page (bench/divergence/run.py, scripts/html_page.py) on synthetic
results: a well-formed, self-contained document holding the Markdown's tables (every program,
every configuration, the same figures) and one chart; a failed run is shown as FAIL."""
import argparse
import os
import sys
import tempfile

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(SOURCE, "bench", "divergence"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402
from check_page_html import page_problems  # noqa: E402


def kernel(ms, warps):
    return {"emulated_ms": ms, "warp_instructions": warps, "thread_instructions": warps * 20}


def results():
    out = {}
    for k, program in enumerate(["bvh_raycast", "trie_match", "queens_stack"]):
        out[program] = {}
        for c, config in enumerate(run.PIPELINES):
            ok = not (program == "trie_match" and config.name == "blockip")
            out[program][config.name] = {
                "ok": ok, "error": "" if ok else "output differs from the native run",
                "kernels": {"walk": kernel(1.0 + 0.1 * k - 0.05 * c, 1000 + 10 * c)},
                "seconds": 0.1, "output": "ok"}
    return out


def main():
    res = results()
    args = argparse.Namespace(size="tiny", iterations=None, warmup=0, api="drv")
    text = run.markdown(res, run.PIPELINES, args)
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "suite.html")
        run.write_html(path, res, run.PIPELINES, text)
        page = open(path).read()
    problems, counts, body = page_problems(page, charts=1)
    for program in res:
        if program not in body:
            problems.append(f"{program} missing")
    for config in run.PIPELINES:
        if config.name not in body:
            problems.append(f"configuration {config.name} missing")
    # A figure of the Markdown is on the page as it is there: the summary's geometric mean.
    for line in text.splitlines():
        if line.startswith("| default |"):
            gmean = line.split("|")[3].strip()
            if gmean not in body:
                problems.append(f"the summary's geometric mean {gmean} is not on the page")
    if "FAIL" not in body:
        problems.append("the failed run is not shown")
    if counts.get("table", 0) < 4:
        problems.append(f"{counts.get('table', 0)} tables, expected the Markdown's 4")
    for p in problems:
        print("FAILED:", p)
    print("suite page: OK" if not problems else "suite page: FAILED")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
