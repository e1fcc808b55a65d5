#!/usr/bin/env python3
"""Loads an HTML report in headless Chromium, from disk, and takes a screenshot.

  browser_check.py PAGE.html SCREENSHOT.png [--chromium PATH] [--render-bound-ms MS]
                   [--sorted-first KERNEL]

Fails when Chromium does not load the page, when the page writes anything to the console (a
script error among it), or when Chromium requests anything but the file itself (its network log
must show no request that the page started for a URL other than file:, data: or about:). Chromium
starts requests of its own (clock, component updates, accounts) even with its background services
off: the log says of those that their initiator is "not an origin", and they are not the page's.
Host names resolve to nothing, so no request leaves the machine.

With --render-bound-ms, a copy of the page is loaded with a script that logs the time from the
start of navigation to the first frame after the load event (performance.now()), which must be
under MS; the time is printed. With --sorted-first, that script then clicks the kernel table's
"Total (ns)" head twice (ascending, then descending), and the first row must be KERNEL's.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

LOCAL = ("file:", "data:", "about:", "chrome:", "chrome-error:", "blob:")
TIMER = ('<script>window.addEventListener("load", function () { requestAnimationFrame(function '
         '() { setTimeout(function () { console.log("cfrjit-rendered " + '
         'performance.now().toFixed(0)); SORT }, 0); }); });</script>')
SORT = ('var th = Array.prototype.filter.call(document.querySelectorAll("table.kernels th"), '
        'function (h) { return h.textContent === "Total (ns)"; })[0]; th.click(); th.click(); '
        'console.log("cfrjit-sorted " + document.querySelector("table.kernels tbody tr")'
        '.dataset.kernel);')


def page_requests(log):
    """The URLs of the requests the page started (URL_REQUEST_START_JOB with an origin)."""
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    urls = []
    for e in log.get("events", []):
        p = e.get("params", {})
        if e.get("type") == start and "url" in p and p.get("initiator") != "not an origin":
            urls.append(p["url"])
    return urls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("screenshot")
    ap.add_argument("--chromium", default="chromium")
    ap.add_argument("--render-bound-ms", type=float)
    ap.add_argument("--sorted-first")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="cfrjit-browser.") as work:
        page = os.path.abspath(args.page)
        if args.render_bound_ms:
            with open(page, encoding="utf-8") as f:
                timer = TIMER.replace("SORT", SORT if args.sorted_first else "")
                text = f.read().replace("<body>", "<body>" + timer, 1)
            page = os.path.join(work, "timed.html")
            with open(page, "w", encoding="utf-8") as f:
                f.write(text)
        netlog = os.path.join(work, "net.json")
        command = [args.chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
                   "--disable-background-networking", "--disable-component-update",
                   "--disable-sync", "--disable-default-apps", "--no-first-run",
                   "--disable-extensions", f"--user-data-dir={work}/profile",
                   "--host-resolver-rules=MAP * ~NOTFOUND",
                   "--enable-logging=stderr", "--log-level=0", f"--log-net-log={netlog}",
                   "--window-size=1280,1600", f"--screenshot={os.path.abspath(args.screenshot)}",
                   "file://" + page]
        run = subprocess.run(command, capture_output=True, text=True, timeout=120)
        problems = []
        if run.returncode != 0:
            problems.append(f"chromium exited with {run.returncode}")
        if not os.path.exists(args.screenshot) or os.path.getsize(args.screenshot) < 10000:
            problems.append("no screenshot, or an empty one")
        console = [l for l in run.stderr.splitlines() if re.search(r":CONSOLE[:(]\d+", l)]
        rendered = [re.search(r'"cfrjit-rendered (\d+)"', l) for l in console]
        rendered = [float(m.group(1)) for m in rendered if m]
        sorted_first = [re.search(r'"cfrjit-sorted (\S+)"', l) for l in console]
        sorted_first = [m.group(1) for m in sorted_first if m]
        problems += [f"console: {l}" for l in console
                     if "cfrjit-rendered" not in l and "cfrjit-sorted" not in l]
        if args.sorted_first and sorted_first != [args.sorted_first]:
            problems.append(f"sorted by total time, the first row is {sorted_first}, not "
                            f"{args.sorted_first}")
        timing = ""
        if args.render_bound_ms:
            if not rendered:
                problems.append("the page did not finish rendering")
            elif rendered[0] > args.render_bound_ms:
                problems.append(f"rendered in {rendered[0]:.0f} ms, over {args.render_bound_ms} ms")
            else:
                timing = f"; rendered in {rendered[0]:.0f} ms"
        if args.sorted_first and not any(p.startswith("sorted") for p in problems):
            timing += "; sorts by total time"
        try:
            with open(netlog) as f:
                text = f.read()
            # Chromium may end the log without closing its event list.
            try:
                log = json.loads(text)
            except json.JSONDecodeError:
                log = json.loads(text.rstrip().rstrip(",") + "]}")
            urls = page_requests(log)
            problems += [f"request to {u}" for u in sorted(set(urls)) if not u.startswith(LOCAL)]
        except (OSError, ValueError, KeyError) as e:
            problems.append(f"no readable network log: {e}")
    for p in problems:
        print("FAILED:", p)
    if problems:
        print(run.stderr[-3000:])
        return 1
    print(f"browser: loaded, no console message, no request outside the file{timing}; "
          f"screenshot {args.screenshot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
