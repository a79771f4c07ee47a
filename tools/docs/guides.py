#!/usr/bin/env python3
"""Renders the guides (README.md, docs/, and the other documents they link
to) into the documentation site, as SITE/guide/PATH.html (make docs,
mk/docs.mk; site.py then links them from the index and checks every link).

Each Markdown document keeps its path under SITE/guide (docs/c.md becomes
guide/docs/c.html), so a link from one document to another (`c.md`,
`../README.md#install`) becomes the same relative link to the rendered
page. A heading's id is GitHub's (lower case, punctuation dropped, spaces
made dashes, a repeated one numbered), so the anchors that work on the
repository's pages work here. A link to a file that is not a rendered
document (a header, an example, LICENSE) is kept as text: the site holds
the references, not the sources. Fenced blocks stay code; the marker
comments of tools/check/check-readme.py stay comments.

Usage: guides.py SITE   (from the repository's root; markdown2, pdoc's own
Markdown renderer, comes with the documentation venv)
"""

from __future__ import annotations

import glob
import html
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import navigation  # noqa: E402  (tools/docs/navigation.py: the site's bar)
# The documents rendered: the guides, and the maintainers' documents the
# guides link to.
DOCUMENTS = ["README.md", "CHANGELOG.md", "Sources/python/README.md", "Tests/README.md",
             "Tests/marbles/README.md", "Sources/SwiftSignalKit/INTERNALS.md", "Benchmarks/README.md",
             "examples/README.md"]
DOCUMENTS += sorted(glob.glob("docs/*.md") + glob.glob("docs/*/*.md"))

STYLE = ("body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;max-width:60em;margin:1em auto;padding:0 1em;"
         "line-height:1.45}pre{background:#f5f5f5;padding:.6em;overflow-x:auto}code{background:#f5f5f5}"
         "table{border-collapse:collapse;font-size:90%;display:block;max-width:100%;overflow-x:auto}"
         "td,th{border:1px solid #ccc;padding:.2em .4em;vertical-align:top}"
         ".sk-way-back a{margin-right:.4em}")


def slug(text: str, seen: dict[str, int]) -> str:
    """GitHub's anchor for a heading's text."""
    base = re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")
    count = seen.get(base, 0)
    seen[base] = count + 1
    return base if count == 0 else f"{base}-{count}"


# The public headers' pages in the references of the site (Doxygen's file
# pages; signalkit.hpp's contract is the C++ reference's front page).
HEADER_PAGES = {
    "include/signalkit.h": "c/signalkit_8h.html",
    "include/signalkit_ffi.h": "c/signalkit__ffi_8h.html",
    "include/signalkit_test.h": "c/signalkit__test_8h.html",
    "include/signalkit.hpp": "cpp/index.html",
    "include/signalkit_test.hpp": "cpp/signalkit__test_8hpp.html",
}


def rewrite_links(body: str, source: str, rendered: set[str]) -> str:
    """Links to rendered documents point at their pages, links to a public
    header at its page in the reference; links to other files of the tree
    become their text."""
    def link(match: re.Match[str]) -> str:
        href, text = html.unescape(match.group(1)), match.group(2)
        if re.match(r"[a-z]+:", href) or href.startswith("#"):
            return match.group(0)
        path, _, anchor = href.partition("#")
        target = os.path.normpath(os.path.join(os.path.dirname(source), path))
        if target in rendered:
            page = os.path.relpath(target, os.path.dirname(source) or ".")
            page = page[:-3] + ".html"
            return f"<a href=\"{html.escape(page)}{'#' + anchor if anchor else ''}\">{text}</a>"
        if target in HEADER_PAGES:
            root = "../" * (source.count("/") + 1)  # out of guide/ and the document's folders
            return f"<a href=\"{root}{HEADER_PAGES[target]}\">{text}</a>"
        return text
    return re.sub(r'<a href="([^"]*)">(.*?)</a>', link, body, flags=re.S)


def table_code_breaks(body: str) -> str:
    """The names in a table's cells may break between their words only:
    after an underscore, a colon, a comma, an opening parenthesis or a dot
    (`distinct_<wbr>until_<wbr>changed`), never inside a word, as
    `overflow-wrap: anywhere` broke them (issue 80); a cell too narrow for
    its longest word widens the table, which then scrolls."""
    def code(match: re.Match[str]) -> str:
        return match.group(1) + re.sub(r"([_:,(.])(?=\w)", r"\1<wbr>", match.group(2)) + match.group(3)

    def cell(match: re.Match[str]) -> str:
        return re.sub(r"(<code>)(.*?)(</code>)", code, match.group(0), flags=re.S)
    return re.sub(r"<td[^>]*>.*?</td>", cell, body, flags=re.S)


def add_ids(body: str) -> str:
    seen: dict[str, int] = {}

    def heading(match: re.Match[str]) -> str:
        level, inner = match.group(1), match.group(2)
        text = html.unescape(re.sub(r"<[^>]+>", "", inner))
        return f"<h{level} id=\"{slug(text, seen)}\">{inner}</h{level}>"
    return re.sub(r"<h([1-6])>(.*?)</h\1>", heading, body, flags=re.S)


def render(source: str, site: str, rendered: set[str]) -> str:
    # In DOCS_VENV only: imported here, so that the self-test
    # (tools/docs/selftest.py) reads this file without it.
    import markdown2  # type: ignore[import-not-found, import-untyped, unused-ignore]
    with open(source, encoding="utf-8") as f:
        text = f.read()
    body = markdown2.markdown(text, extras=["fenced-code-blocks", "tables", "code-friendly", "cuddled-lists"])
    body = table_code_breaks(add_ids(rewrite_links(body, source, rendered)))
    title = re.search(r"<h1[^>]*>(.*?)</h1>", body, flags=re.S)
    name = html.unescape(re.sub(r"<[^>]+>", "", title.group(1))) if title else source
    depth = source.count("/") + 1  # guide/ plus the document's folders
    root = "../" * depth
    page = (f"<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>{html.escape(name)}</title>"
            f"<link rel='icon' href='data:,'><style>{STYLE}</style></head>\n<body>{navigation.bar(root)}\n"
            f"<p><small>Rendered from <code>{html.escape(source)}</code>.</small></p>\n{body}\n</body></html>\n")
    out = os.path.join(site, "guide", source[:-3] + ".html")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        f.write(page)
    return out


def main() -> int:
    site = sys.argv[1]
    rendered = {os.path.normpath(path) for path in DOCUMENTS if os.path.exists(path)}
    for source in sorted(rendered):
        render(source, site, rendered)
    print(f"the guides: {len(rendered)} documents rendered into {site}/guide")
    return 0


if __name__ == "__main__":
    sys.exit(main())
