#!/usr/bin/env python3
"""Checks a self-contained HTML page (scripts/html_page.py: the divergence suite's and the GPU
check's pages): well-formed, nothing loaded from the network, no script, and a chart where
matplotlib is there to draw it, or the line that says how to get one. Prints "html page: OK".

As a module: page_problems(text) -> (problems, tag counts, the page's text)."""
import html.parser
import importlib.util
import sys


class _Checker(html.parser.HTMLParser):
    VOID = {"meta", "br", "img", "hr", "input", "link", "path", "use", "stop", "rect", "line",
            "circle", "polyline", "polygon", "ellipse"}

    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.counts, self.text = [], [], {}, []

    def handle_starttag(self, tag, attrs):
        self.counts[tag] = self.counts.get(tag, 0) + 1
        for name, value in attrs:
            if name in ("src", "href") and value and value.startswith(("http:", "https:", "//")):
                self.errors.append(f"<{tag}> loads {value} from the network")
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.counts[tag] = self.counts.get(tag, 0) + 1

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
            return
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def can_draw():
    return importlib.util.find_spec("matplotlib") is not None


def page_problems(page, charts=1):
    """What is wrong with the page; `charts` is how many charts it draws with matplotlib."""
    checker = _Checker()
    checker.feed(page)
    checker.close()
    problems = list(checker.errors)
    if checker.stack:
        problems.append(f"unclosed: {checker.stack}")
    if checker.counts.get("script"):
        problems.append("the page has a script")
    expected = charts if can_draw() else 0
    if checker.counts.get("svg", 0) != expected:
        problems.append(f"{checker.counts.get('svg', 0)} charts, expected {expected}")
    if not can_draw() and charts and "python3-matplotlib" not in page:
        problems.append("no chart and no word on how to get one")
    return problems, checker.counts, " ".join(checker.text)


def main():
    problems, _, _ = page_problems(open(sys.argv[1]).read())
    for p in problems:
        print("FAILED:", p)
    print("html page: OK" if not problems else "html page: FAILED")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
