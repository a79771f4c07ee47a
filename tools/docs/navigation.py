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
each of its names: C, C++, Swift, Python, Rust, RxJS/RxPY), and per name
each reference documents, read from what its generator wrote (Doxygen's
tag files, pdoc's pages, rustdoc's pages, DocC's data); search.html shows
the entries whose words hold every word asked, names first.
"""

from __future__ import annotations

import html
import json
import os
import re
import xml.etree.ElementTree as ET

# The class of the bar; a page that has it is not given it again.
MARK = "sk-way-back"

GUIDES = [("C", "guide/docs/c.html"), ("C++", "guide/docs/cpp.html"), ("Swift", "guide/docs/swift.html"),
          ("Python", "guide/docs/python.html"), ("Rust", "guide/docs/rust.html"),
          ("Concepts", "guide/docs/concepts.html")]
REFERENCES = [("C", "c/index.html"), ("C++", "cpp/index.html"), ("Python", "python/pysignalkit.html"),
              ("Swift", "swift/documentation/swiftsignalkit/"), ("Rust", "rust/rsignalkit/index.html")]

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
            for level, anchor, inner in re.findall(r"<h([1-6]) id=\"([^\"]+)\">(.*?)</h\1>", text, flags=re.S):
                heading = html.unescape(re.sub(r"<[^>]+>", "", inner)).strip()
                entries.append({"name": heading, "where": f"guide: {title}",
                                "url": page if level == "1" else f"{page}#{anchor}"})
    return entries


def entry(name: str, where: str, url: str) -> dict[str, str]:
    return {"name": name, "where": where, "url": url}


def doxygen_entries(site: str, folder: str, tag: str, where: str) -> list[dict[str, str]]:
    """Every name a Doxygen reference documents, from its tag file: the
    members of its files (functions, types, enumerators, macros), its
    classes and structs, and their members (qualified: sk_value.kind,
    signalkit::signal::map)."""
    path = os.path.join(site, folder, tag)
    if not os.path.exists(path):
        return []
    entries = []
    for compound in ET.parse(path).getroot().findall("compound"):
        kind, scope = compound.get("kind"), compound.findtext("name") or ""
        if kind not in ("file", "class", "struct", "union", "namespace"):
            continue  # (groups and pages repeat the files' members)
        if kind != "file":
            entries.append(entry(scope, f"{where} ({kind})", f"{folder}/{compound.findtext('filename')}"))
        separator = "." if folder == "c" else "::"
        for member in compound.findall("member"):
            name = member.findtext("name") or ""
            qualified = name if kind == "file" else f"{scope}{separator}{name}"
            entries.append(entry(qualified, f"{where} ({member.get('kind')})",
                                 f"{folder}/{member.findtext('anchorfile')}#{member.findtext('anchor')}"))
    return entries


def pdoc_entries(site: str, folder: str) -> list[dict[str, str]]:
    """Every name pdoc documents: each has a heading link (its id, as
    Signal.map) on its module's page (pysignalkit/testing.html is
    pysignalkit.testing)."""
    entries = []
    for directory, _, files in os.walk(os.path.join(site, folder)):
        for name in sorted(files):
            path = os.path.join(directory, name)
            page = os.path.relpath(path, site).replace(os.sep, "/")
            if not name.endswith(".html") or name == "index.html":
                continue
            module = page.removeprefix(f"{folder}/").removesuffix(".html").replace("/", ".")
            with open(path, encoding="utf-8") as f:
                for anchor in dict.fromkeys(re.findall(r'<a class="headerlink" href="#([^"]+)"', f.read())):
                    entries.append(entry(f"{module}.{anchor}", "Python reference", f"{page}#{anchor}"))
    return entries


# rustdoc: an item's page is KIND.NAME.html (a module's, its folder's
# index.html); its own members' ids are KIND.NAME, those before the
# sections of trait implementations (which name std's methods: clone, fmt).
RUST_KINDS = {"struct", "enum", "union", "trait", "traitalias", "fn", "type", "constant", "static", "macro", "attr",
              "derive"}
RUST_MEMBERS = r'\bid="((?:method|tymethod|variant|structfield|associatedconstant|associatedtype)\.(\w+)[^"]*)"'
RUST_NOT_OWN = re.compile(r'id="(?:trait-implementations|synthetic-implementations|blanket-implementations|'
                          r'implementors|foreign-impls|deref-methods[^"]*)"')


def rustdoc_entries(site: str, folder: str) -> list[dict[str, str]]:
    """Every item of each crate rustdoc documented (its modules, types,
    traits, functions, constants and macros) and their own members
    (rsignalkit::Signal::map), skipping redirects and the source pages."""
    entries = []
    top = os.path.join(site, folder)
    crates = sorted(name for name in os.listdir(top) if os.path.isfile(os.path.join(top, name, "index.html"))
                    and name not in ("src", "static.files")) if os.path.isdir(top) else []
    for crate in crates:
        for directory, _, files in os.walk(os.path.join(top, crate)):
            module = os.path.relpath(directory, top).replace(os.sep, "::")
            for name in sorted(files):
                kind, _, rest = name.partition(".")
                item = rest.removesuffix(".html")
                if name != "index.html" and (kind not in RUST_KINDS or not name.endswith(".html") or "." in item):
                    continue
                path = os.path.join(directory, name)
                page = os.path.relpath(path, site).replace(os.sep, "/")
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                if 'http-equiv="refresh"' in text or "<main" not in text:
                    continue  # a redirect
                qualified = module if name == "index.html" else f"{module}::{item}"
                entries.append(entry(qualified, f"Rust reference ({'mod' if name == 'index.html' else kind})", page))
                own = RUST_NOT_OWN.search(text)
                for anchor, member in dict.fromkeys(re.findall(RUST_MEMBERS, text[:own.start() if own else None])):
                    entries.append(entry(f"{qualified}::{member}", f"Rust reference ({anchor.split('.')[0]})",
                                         f"{page}#{anchor}"))
    return entries


def docc_entries(site: str, folder: str) -> list[dict[str, str]]:
    """Every page of DocC's (each symbol, its module and its articles),
    from the data it draws them from: its title, after its parent's
    (Signal.start(next:error:completed:)), and its role (Instance Method)."""
    entries = []
    data = os.path.join(site, folder, "data")
    for directory, _, files in os.walk(data):
        for name in sorted(files):
            if not name.endswith(".json"):
                continue
            with open(os.path.join(directory, name), encoding="utf-8") as f:
                page = json.load(f)
            title = page.get("metadata", {}).get("title")
            if not title:
                continue
            parents = page.get("hierarchy", {}).get("paths", [[]])
            parent = page.get("references", {}).get(parents[0][-1], {}) if parents and parents[0] else {}
            above = parent.get("title", "")
            qualified = title if len(parents[0]) < 2 or title.startswith(f"{above}.") else f"{above}.{title}"
            role = page.get("metadata", {}).get("roleHeading", "")
            address = os.path.relpath(os.path.join(directory, name), data).replace(os.sep, "/").removesuffix(".json")
            entries.append(entry(qualified, f"Swift reference ({role})" if role else "Swift reference",
                                 f"{folder}/{address}/"))
    return entries


def reference_entries(site: str) -> list[dict[str, str]]:
    """The names of the five references, for the search."""
    return (doxygen_entries(site, "c", "signalkit-c.tag", "C reference")
            + doxygen_entries(site, "cpp", "signalkit-cpp.tag", "C++ reference")
            + pdoc_entries(site, "python") + rustdoc_entries(site, "rust") + docc_entries(site, "swift"))


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
RxJS/RxPY), and every name the references document: C functions, types, enumerators, macros and fields; C++
classes and their members; Python modules, classes, functions and attributes; Rust items and their members;
Swift symbols. Each reference has its own search too (Doxygen's, pdoc's, DocC's, rustdoc's) over its full
text.</p>
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
  // The name itself first, then a name whose last part it is (map:
  // pysignalkit.Signal.map, rsignalkit::Signal::map, map(_:)), then the
  // names that hold every word, then the rest.
  function last(name) {
    return name.toLowerCase().split('(')[0].split(/::|\\./).filter(function (p) { return p; }).pop() || '';
  }
  function rank(e) {
    var name = e.name.toLowerCase();
    if (words.length === 1 && name === words[0]) return 0;
    if (words.length === 1 && last(e.name) === words[0]) return 1;
    return words.every(function (w) { return name.indexOf(w) >= 0; }) ? 2 : 3;
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
