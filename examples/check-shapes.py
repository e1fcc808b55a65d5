#!/usr/bin/env python3
"""Reports the control-flow shape of each kernel in PTX files: whether its CFG reduces to a single
node by collapsing sequences, if-thens, if-then-elses and single-exit loops (structured), whether
it has a cycle with more than one entry (irreducible), and its loops' exit counts.

usage: check-shapes.py file.ptx...
"""
import re
import sys

LABEL = re.compile(r"^\s*(\$?[\w$]+):")
BRA = re.compile(r"^\s*(@!?%\w+\s+)?bra(\.uni)?\s+(\$?[\w$]+)\s*;")
BRX = re.compile(r"^\s*(@!?%\w+\s+)?brx\.idx(\.uni)?\s+%\w+\s*,\s*(\$?[\w$]+)\s*;")
TARGETS = re.compile(r"^\s*(\$?[\w$]+):\s*\.branchtargets\s+(.*?);", re.S)
RET = re.compile(r"^\s*(@!?%\w+\s+)?(ret|exit)\s*;")
ENTRY = re.compile(r"\.entry\s+(\w+)")


def functions(text):
    for m in ENTRY.finditer(text):
        start = text.index("{", m.end())
        depth, i = 0, start
        while True:
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        yield m.group(1), text[start + 1 : i]


def cfg(body):
    tables = {m.group(1): [t.strip() for t in m.group(2).split(",")] for m in TARGETS.finditer(body)}
    blocks, succ, cur = [], {}, None

    def new(name):
        nonlocal cur
        cur = name
        blocks.append(name)
        succ[name] = []

    new("entry")
    ended = False
    for line in body.split(";"):
        line = line.strip()
        while True:
            m = LABEL.match(line)
            if not m or line.startswith("@"):
                break
            if m.group(1) in tables:
                line = ""
                break
            if not ended:
                succ[cur].append(m.group(1))
            new(m.group(1))
            ended = False
            line = line[m.end():].strip()
        if not line or line.startswith("//") and "\n" not in line:
            continue
        line += ";"
        line = "\n".join(l for l in line.split("\n") if not l.strip().startswith("//")).strip()
        b, x, r = BRA.match(line), BRX.match(line), RET.match(line)
        if ended and (b or x or r or line.strip(";")):
            new(f"{cur}+")
            ended = False
        if b:
            succ[cur].append(b.group(3))
        elif x:
            succ[cur].extend(tables[x.group(3)])
        elif r:
            succ[cur].append("EXIT")
        else:
            continue
        if (b or x or r).group(1):  # predicated: falls through too
            new(f"{cur}'")
            succ[blocks[-2]].append(cur)
        else:
            ended = True
    if not ended:
        succ[cur].append("EXIT")
    succ["EXIT"] = []
    return succ


def reachable(succ):
    seen, stack = set(), ["entry"]
    while stack:
        n = stack.pop()
        if n not in seen:
            seen.add(n)
            stack.extend(succ[n])
    return {n: sorted(set(s) & seen, key=list(succ).index) for n, s in succ.items() if n in seen}


def dominators(succ):
    nodes = list(succ)
    preds = {n: [p for p in nodes if n in succ[p]] for n in nodes}
    dom = {n: set(nodes) for n in nodes}
    dom["entry"] = {"entry"}
    changed = True
    while changed:
        changed = False
        for n in nodes:
            if n == "entry":
                continue
            d = set.intersection(*(dom[p] for p in preds[n])) if preds[n] else set()
            d = d | {n}
            if d != dom[n]:
                dom[n], changed = d, True
    return dom


def retreating(succ):
    edges, state = [], {}

    def dfs(n):
        state[n] = 1
        for s in succ[n]:
            if state.get(s) == 1:
                edges.append((n, s))
            elif s not in state:
                dfs(s)
        state[n] = 2

    sys.setrecursionlimit(10000)
    dfs("entry")
    return edges


def loops(succ, dom):
    """Natural loops of the back edges (target dominates source), merged per header."""
    preds = {n: [p for p in succ if n in succ[p]] for n in succ}
    body = {}
    for a, h in retreating(succ):
        if h not in dom[a]:
            continue
        nodes, stack = {h}, [a]
        while stack:
            n = stack.pop()
            if n not in nodes:
                nodes.add(n)
                stack.extend(preds[n])
        body.setdefault(h, set()).update(nodes)
    return body


def reduces(succ):
    g = {n: set(s) for n, s in succ.items()}
    changed = True
    while changed and len(g) > 1:
        changed = False
        preds = {n: {p for p in g if n in g[p]} for n in g}
        for a in list(g):
            s = g[a] - {a}
            if a in g[a] and len(s) <= 1:  # self loop with one exit
                g[a].discard(a)
                changed = True
                break
            if len(g[a]) == 1:
                (b,) = g[a]
                if b != a and preds[b] == {a} and b != "entry":  # sequence
                    g[a] = g.pop(b)
                    changed = True
                    break
            if len(g[a]) == 2:
                b, c = sorted(g[a])
                for x, y in ((b, c), (c, b)):
                    if preds[x] == {a} and x != a and g[x] == {y}:  # if-then
                        del g[x]
                        g[a] = {y}
                        changed = True
                        break
                    if preds[x] == {a} and x != a and g[x] == {a}:  # while body
                        del g[x]
                        g[a] = {a, y}
                        changed = True
                        break
                if changed:
                    break
                if (preds[b] == {a} and preds[c] == {a} and len(g[b]) == 1 and g[b] == g[c]
                        and a not in (b, c)):  # if-then-else
                    (d,) = g[b]
                    del g[b], g[c]
                    g[a] = {d}
                    changed = True
                    break
    return len(g) == 1


def shape(name, body):
    succ = reachable(cfg(body))
    dom = dominators(succ)
    irreducible = [(a, h) for a, h in retreating(succ) if h not in dom[a]]
    out = []
    for h, nodes in sorted(loops(succ, dom).items()):
        exits = {s for n in nodes for s in succ[n] if s not in nodes}
        out.append(f"loop@{h}:{len(exits)}-exit")
    kind = "structured" if reduces(succ) else "UNSTRUCTURED"
    if irreducible:
        kind += " IRREDUCIBLE(" + ",".join(f"{a}->{h}" for a, h in irreducible) + ")"
    return f"{name}: {len(succ) - 1} blocks, {kind}" + (" " + " ".join(out) if out else "")


def main():
    for path in sys.argv[1:]:
        text = open(path).read()
        for name, body in functions(text):
            print(f"{path}: {shape(name, body)}")


if __name__ == "__main__":
    main()
