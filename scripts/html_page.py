"""Self-contained HTML pages beside the Markdown that the divergence suite (bench/divergence/run.py)
and the GPU check (scripts/gpu-check.sh) write: the same text and tables, read from that Markdown
so that no figure is computed twice, with charts drawn by matplotlib and inlined as SVG. Nothing
is loaded from the network: the page opens from disk and prints.

The Markdown read is the subset those pages write: '#' headings, tables, '-' lists, fenced code
blocks, paragraphs, and in text `code`, **bold** and [links](url).
"""
import html
import io
import re

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 78em; color: #222;
       padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; margin-top: 1.6em; } h3 { font-size: 1.1em; }
table { border-collapse: collapse; margin: 0.6em 0 1.2em; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 2px 7px; }
th { background: #f2f2f2; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { background: #f4f4f4; padding: 0 3px; }
pre { background: #f4f4f4; padding: 0.6em; overflow-x: auto; }
figure { margin: 1em 0; } figcaption { color: #555; font-size: 13px; }
@media print { body { max-width: none; } }
"""


def inline(text):
    """Markdown inline markup to HTML, the text escaped."""
    parts = re.split(r"(`[^`]*`)", text)
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) >= 2:
            out.append("<code>" + html.escape(part[1:-1]) + "</code>")
            continue
        s = html.escape(part, quote=False)
        s = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", s)
        s = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)",
                   lambda m: f'<a href="{html.escape(m.group(2))}">{m.group(1)}</a>', s)
        out.append(s)
    return "".join(out)


def _cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _table(rows):
    """A Markdown table (header, separator, rows) as HTML; columns the separator right-aligns
    are numeric."""
    header, separator, body = _cells(rows[0]), _cells(rows[1]), [_cells(r) for r in rows[2:]]
    numeric = [c.endswith(":") and not c.startswith(":") for c in separator]
    out = ["<table><thead><tr>" + "".join(f"<th>{inline(h)}</th>" for h in header)
           + "</tr></thead><tbody>"]
    for row in body:
        cells = []
        for i, cell in enumerate(row):
            cls = ' class="num"' if i < len(numeric) and numeric[i] else ""
            cells.append(f"<td{cls}>{inline(cell)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def markdown_to_html(text):
    """The page's Markdown as HTML."""
    lines = text.splitlines()
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append("<pre>" + html.escape("\n".join(lines[i + 1:j])) + "</pre>")
            i = j + 1
        elif m := re.match(r"(#{1,6}) (.*)", line):
            level = len(m.group(1))
            out.append(f"<h{level}>{inline(m.group(2))}</h{level}>")
            i += 1
        elif line.startswith("|") and i + 1 < len(lines) and re.match(r"\|[\s:|-]+\|$",
                                                                      lines[i + 1].strip()):
            j = i + 2
            while j < len(lines) and lines[j].startswith("|"):
                j += 1
            out.append(_table(lines[i:j]))
            i = j
        elif line.startswith("- "):
            items = []
            while i < len(lines) and lines[i].startswith("- "):
                items.append(f"<li>{inline(lines[i][2:])}</li>")
                i += 1
            out.append("<ul>" + "".join(items) + "</ul>")
        elif line.startswith("<!--"):
            i += 1
        elif line.strip():
            j = i
            while (j < len(lines) and lines[j].strip() and not lines[j].startswith(("#", "|", "- ",
                                                                                    "```"))):
                j += 1
            out.append("<p>" + inline(" ".join(lines[i:j])) + "</p>")
            i = j
        else:
            i += 1
    return "\n".join(out)


def svg_of(figure):
    """A matplotlib figure as inline SVG (no XML prologue), closed afterwards."""
    import matplotlib.pyplot as plt
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(figure)
    svg = buffer.getvalue()
    return svg[svg.find("<svg"):]


def figure(svg, caption):
    return f"<figure>{svg}<figcaption>{inline(caption)}</figcaption></figure>"


def ratio_chart(groups, series, caption, xlabel="ratio to the original (log scale)"):
    """Horizontal grouped bars of ratios to a baseline of 1: `groups` names the rows (programs),
    `series` is [(name, [ratio or None per group])]. Returns the figure's HTML, or "" without
    matplotlib or without a ratio."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "<p>(No chart: matplotlib is not installed; <code>apt-get install " \
               "python3-matplotlib</code>.)</p>"
    if not groups or not any(v for _, values in series for v in values):
        return ""
    height = 0.8 / max(len(series), 1)
    fig, ax = plt.subplots(figsize=(8, 0.5 + 0.32 * len(groups) * max(len(series), 1) ** 0.5))
    for k, (name, values) in enumerate(series):
        ys = [g + k * height for g in range(len(groups))]
        xs = [v if v else 0 for v in values]
        ax.barh(ys, [x - 1 if x else 0 for x in xs], left=1, height=height, label=name)
    ax.axvline(1, color="black", linewidth=0.8)
    ax.set_yticks([g + 0.4 - height / 2 for g in range(len(groups))])
    ax.set_yticklabels(groups)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.legend(fontsize=8, loc="best")
    return figure(svg_of(fig), caption)


def page(title, body, subtitle=""):
    """A whole document: inline style, no script, nothing from the network."""
    sub = f"<p>{inline(subtitle)}</p>" if subtitle else ""
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>\n<body>"
            f"<h1>{html.escape(title)}</h1>{sub}\n{body}\n</body></html>\n")
