#!/usr/bin/env python3
"""The site's one navigation bar and its search (make docs).

Every page of the site carries the same bar: the pages site.py makes, the
guides guides.py renders, and (as their way back) the references' pages
that Doxygen, pdoc, DocC and rustdoc wrote. It links the front page, the
guides, the operators, each reference, the benchmarks, and a search box
that opens SITE/search.html?q=WORDS.

The search is the site's own, with no server and no generator: site.py
writes SITE/search-index.js (a script, so that it loads from file:// as
well as over HTTP) with one entry per guide heading, per operator (under
each of its names: C, C++, Swift, Python, Rust, RxJS/RxPY), per C function
and per C++ member of the references; search.html shows the entries whose
words hold every word asked, names first.
"""

from __future__ import annotations

import html
import json
import os
import re

# The class of the bar; a page that has it is not given it again.
MARK = "sk-way-back"

GUIDES = [("C", "guide/docs/c.html"), ("C++", "guide/docs/cpp.html"), ("Swift", "guide/docs/swift.html"),
          ("Python", "guide/docs/python.html"), ("Rust", "guide/docs/rust.html"),
          ("Concepts", "guide/docs/concepts.html")]
REFERENCES = [("C", "c/index.html"), ("C++", "cpp/index.html"), ("Python", "python/pysignalkit.html"),
              ("Swift", "swift/documentation/swiftsignalkit/"), ("Rust", "rust/signalkit/index.html")]

STYLE = ("font:14px system-ui,sans-serif;padding:4px 8px;background:#f3f3f3;border-bottom:1px solid #ddd;"
         "line-height:1.8")


def bar(root: str) -> str:
    """The bar for a page `root` ('../' per folder) below the site's top."""
    def links(items: list[tuple[str, str]]) -> str:
        return " ".join(f"<a href='{root}{href}'>{html.escape(name)}</a>" for name, href in items)
    return (f"<div class='{MARK}' style='{STYLE}'><a href='{root}index.html'>SignalKit documentation</a>"
            f" &middot; Guides: {links(GUIDES)} &middot; <a href='{root}index.html#operators'>Operators</a>"
            f" &middot; Reference: {links(REFERENCES)} &middot; <a href='{root}bench.html'>Benchmarks</a>"
            f" &middot; <form action='{root}search.html' method='get' style='display:inline'>"
            "<input type='search' name='q' placeholder='Search' aria-label='Search the site' size='14'></form>"
            "</div>")


# Where the bar goes on a page: first in its <body>, a strip across the
# top; but rustdoc lays its <body> out as a flex row (its sidebar, then its
# <main>), where a child of the body becomes a full-height column that
# squeezes the content, so on rustdoc's pages the bar opens its <main>: a
# strip above the content, beside rustdoc's own sidebar. (A page of theirs
# without a <main>, a redirect, takes it in its body.)
INSIDE = {"rust": r"<main[^>]*>"}


def add_to_page(text: str, root: str, inside: str | None = None) -> str | None:
    """The page with the bar opening the first element `inside` matches,
    else its <body>; None when it has it (or no body)."""
    place = (re.search(inside, text) if inside else None) or re.search(r"<body[^>]*>", text)
    if place is None or MARK in text:
        return None
    return text[:place.end()] + bar(root) + text[place.end():]


def add_to_references(site: str, folders: tuple[str, ...]) -> int:
    """The bar on every page of the references; how many pages got it."""
    count = 0
    for folder in folders:
        for directory, _, files in os.walk(os.path.join(site, folder)):
            for name in files:
                if not name.endswith(".html"):
                    continue
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as f:
                    text = add_to_page(f.read(), "../" * os.path.relpath(path, site).count(os.sep), INSIDE.get(folder))
                if text is None:
                    continue
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
                count += 1
    return count


def guide_entries(site: str) -> list[dict[str, str]]:
    """One entry per heading (with an id) of every rendered guide."""
    entries = []
    guide = os.path.join(site, "guide")
    for directory, _, files in os.walk(guide):
        for name in sorted(files):
            if not name.endswith(".html"):
                continue
            path = os.path.join(directory, name)
            page = os.path.relpath(path, site).replace(os.sep, "/")
            with open(path, encoding="utf-8") as f:
                text = f.read()
            title_match = re.search(r"<title>(.*?)</title>", text, flags=re.S)
            title = html.unescape(title_match.group(1)) if title_match else page
            for level, anchor, inner in re.findall(r"<h([1-3]) id=\"([^\"]+)\">(.*?)</h\1>", text, flags=re.S):
                heading = html.unescape(re.sub(r"<[^>]+>", "", inner)).strip()
                entries.append({"name": heading, "where": f"guide: {title}",
                                "url": page if level == "1" else f"{page}#{anchor}"})
    return entries


def write_search(site: str, entries: list[dict[str, str]], page: str) -> int:
    """SITE/search-index.js and SITE/search.html (its body in `page`, a
    whole HTML page made by the caller around SEARCH_BODY); the count of
    entries."""
    unique = list({(e["name"], e["url"]): e for e in entries}.values())
    with open(os.path.join(site, "search-index.js"), "w", encoding="utf-8") as f:
        f.write("var SIGNALKIT_SEARCH = " + json.dumps(unique, ensure_ascii=False, separators=(",", ":")) + ";\n")
    with open(os.path.join(site, "search.html"), "w", encoding="utf-8") as f:
        f.write(page)
    return len(unique)


SEARCH_BODY = """<p>Every guide's headings, every operator under each of its names (C, C++, Swift, Python, Rust,
RxJS/RxPY), and the C functions and C++ members of the references. Each reference has its own search too
(Doxygen's, pdoc's, DocC's, rustdoc's) over its full text.</p>
<form method='get'><input type='search' name='q' id='q' size='40' aria-label='Search the site' autofocus>
<button>Search</button></form>
<p id='count'></p>
<ul id='results'></ul>
<script src='search-index.js'></script>
<script>
(function () {
  var query = new URLSearchParams(location.search).get('q') || '';
  document.getElementById('q').value = query;
  var words = query.toLowerCase().split(/\\s+/).filter(function (w) { return w; });
  if (!words.length) return;
  var found = SIGNALKIT_SEARCH.filter(function (e) {
    var text = (e.name + ' ' + e.where).toLowerCase();
    return words.every(function (w) { return text.indexOf(w) >= 0; });
  });
  function rank(e) {
    var name = e.name.toLowerCase();
    if (words.length === 1 && name === words[0]) return 0;
    return words.every(function (w) { return name.indexOf(w) >= 0; }) ? 1 : 2;
  }
  found.sort(function (a, b) { return rank(a) - rank(b) || a.name.length - b.name.length; });
  document.getElementById('count').textContent = found.length + ' found for \\u201c' + query + '\\u201d';
  var list = document.getElementById('results');
  found.slice(0, 200).forEach(function (e) {
    var item = document.createElement('li');
    var link = document.createElement('a');
    link.href = e.url;
    link.textContent = e.name;
    item.appendChild(link);
    item.appendChild(document.createTextNode(' \\u2014 ' + e.where));
    list.appendChild(item);
  });
})();
</script>"""
