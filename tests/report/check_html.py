#!/usr/bin/env python3
"""Checks an HTML report of cfrjit against the run's JSON report.

  check_html.py PAGE.html REPORT.json [--cfgs drawn|noted] [--source]

The page must be well-formed HTML (every element closed, in order), load nothing from elsewhere
(no src or href outside the page, no url() in styles, no <link>), name every kernel of the JSON
report in its kernel table with the same figures (total, average, minimum and maximum device time
and launches; grid and block; under the adaptive policy the variant, the decision and each
variant's launches and median), link only to ids it holds, and hold one figure with SVG drawings
per changed kernel, and for a kernel the adaptive policy had variants of one drawing per variant
(--cfgs drawn; a graph over the page's block limit counts as drawn when the
page says so) or say how to get them (--cfgs noted). With --source, the
divergence map must show CUDA source lines with counts.
"""
import argparse
import json
import math
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
# SVG elements dot writes without children are written as <x/>: handled by handle_startendtag.


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.ids, self.links = [], [], set(), []
        self.rows = {}  # kernel name -> {field: data-v or text}
        self.row = None
        self.cell = None
        self.variant = None
        # kernel -> drawings inside its figure: SVGs, and notes that a graph is too large to draw
        self.figures = {}
        self.figure = None
        self.text = []
        self.source_hits = 0
        self.external = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.check_attrs(tag, a)
        if tag not in VOID:
            self.stack.append((tag, a))
        if tag == "tr" and "data-kernel" in a:
            self.row = self.rows.setdefault(a["data-kernel"], {"variants": []})
        if tag == "tr" and "hit" in a.get("class", "").split() and self.inside("table", "source"):
            self.source_hits += 1
        if tag == "td" and self.row is not None:
            field = a.get("class", "").split()
            field = [f for f in field if f not in ("n", "mono")]
            self.cell = field[0] if field else None
            if self.cell and "data-v" in a:
                self.row[self.cell] = float(a["data-v"])
            self.text = []
        if tag == "span" and self.row is not None and "data-name" in a:
            self.row["variants"].append({"name": a["data-name"],
                                         "launches": float(a["data-launches"]),
                                         "median_ms": float(a["data-median-ms"])})
        if tag == "figure" and "data-kernel" in a:
            self.figure = a["data-kernel"]
            self.figures.setdefault(self.figure, 0)
        if self.figure is not None and (tag == "svg" or (
                tag == "p" and "capped" in a.get("class", "").split())):
            self.figures[self.figure] += 1

    def handle_startendtag(self, tag, attrs):
        self.check_attrs(tag, dict(attrs))

    def check_attrs(self, tag, a):
        if "id" in a:
            if a["id"] in self.ids:
                self.errors.append(f"duplicate id {a['id']}")
            self.ids.add(a["id"])
        for key in ("src", "href", "xlink:href"):
            v = a.get(key)
            if v is None:
                continue
            if v.startswith("#"):
                self.links.append(v[1:])
            else:
                self.external.append(f"<{tag} {key}={v}>")
        if tag == "link":
            self.external.append("<link>")
        if "url(" in a.get("style", ""):
            self.external.append(f"<{tag} style=url(...)>")

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1][0] != tag:
            self.errors.append(f"line {self.getpos()[0]}: </{tag}> closes "
                               f"<{self.stack[-1][0] if self.stack else 'nothing'}>")
            return
        self.stack.pop()
        if tag == "td" and self.row is not None and self.cell:
            self.row.setdefault(self.cell, "".join(self.text).strip())
            self.cell = None
        if tag == "tr":
            self.row = None
        if tag == "figure":
            self.figure = None

    def handle_data(self, data):
        self.text.append(data)
        if self.stack and self.stack[-1][0] == "style" and "url(" in data:
            self.external.append("url() in a style sheet")

    def inside(self, tag, cls):
        return any(t == tag and cls in a.get("class", "").split() for t, a in self.stack)


def close(x, y):
    return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-6)


def dims(v):
    return "x".join(str(d) for d in v)


def check_kernels(page, report, problems):
    adaptive = report.get("policy") == "adaptive"
    for k in report["kernels"]:
        row = page.rows.get(k["name"])
        if row is None:
            problems.append(f"kernel {k['name']} is not in the kernel table")
            continue
        for field in ("total_ns", "avg_ns", "min_ns", "max_ns", "launches"):
            if not isinstance(row.get(field), float) or not close(row[field], float(k[field])):
                problems.append(f"{k['name']}: {field} {row.get(field)} != report's {k[field]}")
        star = "*" if k.get("sizes_varied") else ""
        for field in ("grid", "block"):
            if row.get(field) != dims(k[field]) + star:
                problems.append(f"{k['name']}: {field} {row.get(field)} != {dims(k[field])}")
        if adaptive:
            for field in ("variant", "decision"):
                if row.get(field) != k[field]:
                    problems.append(f"{k['name']}: {field} {row.get(field)} != {k[field]}")
            want = [(v["name"], float(v["launches"]), v["median_ms"]) for v in k["variants"]]
            got = [(v["name"], v["launches"], v["median_ms"]) for v in row["variants"]]
            if len(want) != len(got) or any(w[0] != g[0] or w[1] != g[1] or not close(w[2], g[2])
                                            for w, g in zip(want, got)):
                problems.append(f"{k['name']}: variants {got} != report's {want}")
    extra = set(page.rows) - {k["name"] for k in report["kernels"]}
    if extra:
        problems.append(f"kernels not in the report: {sorted(extra)}")


def changed(k):
    return k.get("rewritten") and k.get("selected") and bool(k.get("changed_by"))


def has_variants(k):
    return len(k.get("variants") or []) > 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("report")
    ap.add_argument("--cfgs", choices=["drawn", "noted"], default="drawn")
    ap.add_argument("--source", action="store_true")
    args = ap.parse_args()
    text = open(args.page, encoding="utf-8").read()
    report = json.load(open(args.report))
    page = Page()
    page.feed(text)
    page.close()
    problems = list(page.errors)
    if page.stack:
        problems.append(f"unclosed elements: {[t for t, _ in page.stack]}")
    if not text.startswith("<!DOCTYPE html>"):
        problems.append("no <!DOCTYPE html>")
    problems += [f"loads from elsewhere: {e}" for e in page.external]
    problems += [f"link to a missing id #{i}" for i in page.links if i not in page.ids]
    check_kernels(page, report, problems)
    want = {k["name"] for k in report["kernels"] if changed(k) or has_variants(k)}
    drawn = {k for k, n in page.figures.items() if n >= 2}
    if args.cfgs == "drawn" and drawn != want:
        problems.append(f"CFG drawings for {sorted(drawn)}, changed kernels {sorted(want)}")
    for k in report["kernels"]:
        # the original and each variant
        if args.cfgs == "drawn" and has_variants(k) and \
                page.figures.get(k["name"], 0) < len(k["variants"]):
            problems.append(f"{k['name']}: {page.figures.get(k['name'], 0)} drawings for "
                            f"{len(k['variants'])} variants (the original among them)")
    if args.cfgs == "noted" and want and not ("apt-get install graphviz" in text
                                              or "--dump-dir" in text):
        problems.append("no CFG drawings and no word on how to get them")
    if "divergence_map" in report and 'id="divergence"' not in text:
        problems.append("the report has a divergence map, the page none")
    if args.source and page.source_hits == 0:
        problems.append("no CUDA source line with counts in the divergence map")
    for p in problems:
        print("FAILED:", p)
    if problems:
        return 1
    print(f"html: {len(report['kernels'])} kernel(s) with the report's figures, "
          f"{len(drawn)} CFG figure(s) for {len(want)} changed kernel(s), "
          f"{page.source_hits} source line(s) with counts, {len(text)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
