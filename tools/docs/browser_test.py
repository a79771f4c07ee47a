#!/usr/bin/env python3
"""The documentation site in a real browser (make test-docs).

Serves SITE with ``make docs-serve DOCS_PORT=0`` (``python3 -m http.server``
on 127.0.0.1, a port the system picks: the server's line says which, read
with a deadline), so that the target the front page names is the one
tested, then, in
headless Chromium driven by Selenium (Debian's chromium and
chromium-driver), in a window of 1280 by 900, opens the index, every
operator page, the pages each reference links for one operator (OPERATOR,
in C, C++, Python, Rust and Swift), each reference's front page, a sample
of the Rust reference (the crate's root, the struct Signal, a trait, each
module and a source page), the benchmark page and every guide the index
lists, and checks for each page:

- it loads (HTTP 200) with no error in the browser's console (a SEVERE
  entry of its log);
- every <img> and <object> loaded (an image's naturalWidth > 0);
- every link to the site resolves (HTTP 200, fetched once per address);
- an operator page shows at least one marble picture (an SVG image), its
  description (a paragraph before its table), when to use it (a "When to
  use it" heading and its paragraph), and, in each language whose binding
  has the operator (tools/api/operators.py's binding_languages, from
  api.json and the operator table), a link to its entry in that language's
  reference, its signature (a heading of the language under "Signatures")
  and its example (a program and what it prints, shown alone when its tab
  is clicked);
- no table is wider than the window;
- the main content (the page's <main>, else Doxygen's div.contents, else
  the body) is at least MIN_WIDTH (900) px wide; on a reference's page
  whose own layout gives it less (DocC's beside its 400 px navigator),
  the site's bar takes none of it (as wide with the bar as without);
- every page (the site's, the guides, the references: C, C++, Python,
  Swift, Rust) has the site's bar (tools/docs/navigation.py), its way back:
  a strip across the top of the content, not a column, in view when the
  page opens, with the front page, the operators and the search box;
- each page of a reference that holds an operator's entry (the pages the
  operator pages link; of DocC's, OPERATOR's) links back to that
  operator's page;
- the search finds an operator's page by a name of another language
  first (skip_while: the skipWhile page), and, among its first results,
  a name of each kind that each reference documents (a C function, type
  and enumerator, a C++ class, a Python class, a Rust method and trait, a
  Swift class) and a guide's section (SEARCHES);
- the front page opened from a file (file://) says to serve the site for
  the Swift reference, and served over HTTP it does not.

It saves a screenshot of each page but the operator pages (one of them
only) into OUT, for the eye. Any failure is listed, and fails the run.

Usage: browser_test.py SITE OUT [OPERATOR] --api API_JSON
Run with the docs venv's Python (Selenium installed).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import cast
from urllib.parse import urldefrag, urljoin, urlparse

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import navigation  # noqa: E402  (tools/docs/navigation.py: the bar's class and the references' front pages)

CHROMIUM = os.environ.get("SIGNALKIT_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("SIGNALKIT_CHROMEDRIVER", "/usr/bin/chromedriver")
DEADLINE = 30.0  # seconds for the server to say its port
SCRIPT_SECONDS = 60  # for a page's images to finish loading, and for DocC to draw a page
WINDOW = (1280, 900)
MIN_WIDTH = 900  # px of main content, at WINDOW's width
BAR_HEIGHT = 120  # px: the bar is a strip across the top; taller, it has become a column
# Each language of an operator page: its reference's folder and its example's tab.
LANGUAGES = {"C": ("c", "c"), "C++": ("cpp", "cpp"), "Python": ("python", "python"), "Rust": ("rust", "rust"),
             "Swift": ("swift", "swift")}
ROOT = os.path.dirname(os.path.dirname(HERE))
OPERATORS_PY = os.path.join(ROOT, "tools", "api", "operators.py")


def binding_languages(api_json: str) -> dict[str, list[str]]:
    """Each marble operator -> the languages whose binding has it
    (tools/api/operators.py, from the operator table and api.json)."""
    spec = importlib.util.spec_from_file_location("api_operators", OPERATORS_PY)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with open(api_json, encoding="utf-8") as f:
        api = json.load(f)
    _, _, rows = module.read_table(os.path.join(ROOT, module.TABLE))
    return {name.rstrip("*"): list(module.binding_languages(row, api))
            for row in rows for name in module.names(row["marble"])}


def serve(site: str) -> tuple[subprocess.Popen[str], str]:
    """`make docs-serve` on SITE (in a process group of its own, stopped
    whole by stop()), and its base address once the server said its port."""
    server = subprocess.Popen(
        [os.environ.get("MAKE", "make"), "-s", "--no-print-directory", "docs-serve", "DOCS_PORT=0",
         f"SITE={os.path.abspath(site)}", f"PYTHON={sys.executable}"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    assert server.stdout is not None
    start = time.monotonic()
    # The first line: "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ...". readline
    # blocks until it comes; the deadline is checked between lines.
    while time.monotonic() - start < DEADLINE:
        line = server.stdout.readline()
        if not line:
            break
        if " port " in line:
            port = int(line.split(" port ")[1].split()[0])
            return server, f"http://127.0.0.1:{port}/"
    stop(server)
    raise SystemExit("make docs-serve did not say its port")


def stop(server: subprocess.Popen[str]) -> None:
    """Stops make and the server it started (one process group)."""
    try:
        os.killpg(server.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    server.wait(timeout=30)


# What the search must find among its first results: a query, and the end
# of an address one of them has. An operator by a name of another language
# comes first; then a name of each kind each reference documents, and a
# guide's section.
SEARCHES = [("skip_while", "/operators/skipWhile.html", 1),
            ("sk_signal_map", "/c/", 3),
            ("sk_value", "/c/structsk__value.html", 3),
            ("SK_ERR_BUSY", "/c/", 3),
            ("signalkit::queue", "/cpp/classsignalkit_1_1queue.html", 3),
            ("pysignalkit.Pipe", "/python/pysignalkit.html#Pipe", 3),
            ("rsignalkit::Signal::map", "/rust/rsignalkit/struct.Signal.html#method.map", 3),
            ("rsignalkit::Value", "/rust/rsignalkit/trait.Value.html", 3),
            ("SignalPipe", "/swift/documentation/swiftsignalkit/signalpipe/", 3),
            ("main queue on Linux", "/guide/docs/concepts.html#the-main-queue-on-linux", 3)]


def check_search(driver: webdriver.Chrome, base: str, problems: list[str]) -> None:
    """The search finds each of SEARCHES among its first results."""
    for query, address, first in SEARCHES:
        driver.get(base + "search.html?" + urllib.parse.urlencode({"q": query}))
        hrefs: list[str] = driver.execute_script(
            "return Array.from(document.querySelectorAll('#results a')).map(a => a.href)")
        if not any(href.endswith(address) or (address.endswith(("#", "/")) and address in href)
                   for href in hrefs[:first]):
            problems.append(f"search.html?q={query}: no result at ...{address} among the first {first} "
                            f"({hrefs[:3]})")


def check_file_note(driver: webdriver.Chrome, site: str, base: str, problems: list[str]) -> None:
    """The front page's note for a site opened from a file shows there,
    and only there."""
    for address, shown in (("file://" + os.path.abspath(os.path.join(site, "index.html")), True),
                           (base + "index.html", False)):
        driver.get(address)
        notes = driver.find_elements("id", "served-from-file")
        if not notes:
            problems.append("index.html: no note for a site opened from a file")
            return
        if notes[0].is_displayed() != shown:
            problems.append(f"index.html at {address}: the note to serve the site is "
                            f"{'hidden' if shown else 'shown'}")


def status(url: str, cache: dict[str, int]) -> int:
    """The HTTP status of a site address (its fragment dropped)."""
    url = urldefrag(url)[0]
    if url not in cache:
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                cache[url] = response.status
        except urllib.error.HTTPError as error:
            cache[url] = error.code
    return cache[url]


# The width of the main content, with the site's bar and without it.
WIDTHS = """
const main = document.querySelector('main') || document.querySelector('div.contents') || document.body;
const bar = document.querySelector('.%s');
const withBar = main.getBoundingClientRect().width;
if (!bar) return [withBar, withBar];
const display = bar.style.display;
bar.style.display = 'none';
const withoutBar = main.getBoundingClientRect().width;
bar.style.display = display;
return [withBar, withoutBar];
""" % navigation.MARK

# Scrolls to the top at once (smooth scrolling off); true once there.
TO_TOP = """
for (const e of [document.documentElement, document.body]) { if (e) e.style.scrollBehavior = 'auto'; }
window.scrollTo(0, 0);
return window.scrollY === 0 && window.scrollX === 0;
"""

# The bar's box, and whether it links the front page and the operators and
# has the search box, each in view when the page opens.
WAY_BACK = """
const bar = document.querySelector('.%s');
if (!bar) return null;
const shown = e => { const r = e.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth
    && getComputedStyle(e).visibility !== 'hidden'; };
const links = Array.from(bar.querySelectorAll('a')).filter(shown);
const box = bar.getBoundingClientRect();
return {height: box.height, width: box.width,
  home: links.some(a => a.textContent === 'SignalKit documentation' && a.href.endsWith('/index.html')),
  operators: links.some(a => a.href.endsWith('/index.html#operators')),
  search: Array.from(bar.querySelectorAll('input[name=q]')).some(shown)};
""" % navigation.MARK


def check_layout(driver: webdriver.Chrome, path: str, problems: list[str]) -> None:
    """The page's main content is wide enough, and its way back is a strip
    in view with the front page, the operators and the search."""
    with_bar, without_bar = driver.execute_script(WIDTHS)
    reference = path.split("/")[0] in {folder for folder, _ in LANGUAGES.values()}
    if with_bar < MIN_WIDTH and (not reference or with_bar < without_bar - 1):
        problems.append(f"{path}: the main content is {with_bar:.0f} px wide in a {WINDOW[0]} px window "
                        f"({without_bar:.0f} px without the site's bar; at least {MIN_WIDTH} expected)")
    # The page as it opens at its top, not at an anchor: opened again
    # without its fragment (the browser's scroll to an anchor may come after
    # any script's jump to the top: pdoc's page at #Signal.map showed its
    # bar out of view one run in two on a loaded machine), then, smooth
    # scrolling off, at the top.
    address, fragment = urldefrag(driver.current_url)
    if fragment:
        open_page(driver, address, path, problems)
    try:
        WebDriverWait(driver, SCRIPT_SECONDS).until(lambda d: d.execute_script(TO_TOP))
    except TimeoutException:
        problems.append(f"{path}: the page does not stay at its top when scrolled there")
        return
    way_back = driver.execute_script(WAY_BACK)
    if way_back is None:
        problems.append(f"{path}: no site bar (the way back to the front page and the operators, and the search)")
        return
    if way_back["height"] > BAR_HEIGHT:
        problems.append(f"{path}: the site bar is a column ({way_back['width']:.0f} by {way_back['height']:.0f} "
                        f"px), not a strip at most {BAR_HEIGHT} px high")
    lacking = [what for what in ("home", "operators", "search") if not way_back[what]]
    if lacking:
        problems.append(f"{path}: the site bar shows no {', '.join(lacking)} link in view "
                        "(the front page, the operators, the search box)")


def check_operator_page(driver: webdriver.Chrome, path: str, languages: list[str], problems: list[str]) -> None:
    """An operator page's description, when to use it, and, in each language
    whose binding has the operator, its reference link, its signature and
    its example."""
    first = driver.execute_script("const p = document.querySelector('h1 + p'); return p ? p.textContent : ''")
    if len(first.split()) < 4:
        problems.append(f"{path}: no description before the table")
    headings = driver.execute_script("return Array.from(document.querySelectorAll('h2')).map(h => h.textContent)")
    use = driver.execute_script("const p = document.querySelector('p.use'); return p ? p.textContent : ''")
    if "When to use it" not in headings or len(use.split()) < 8:
        problems.append(f"{path}: no paragraph on when to use it")
    # The reference table: a row per language, its cell linking the entry.
    linked = driver.execute_script(
        "return Array.from(document.querySelectorAll('tr')).filter(r => r.querySelector('th') && r.querySelector('td a'))"
        ".map(r => [r.querySelector('th').textContent, Array.from(r.querySelectorAll('td a')).map(a => a.href)])")
    # Each h3 of the section under the heading "Signatures".
    signed = driver.execute_script(
        "const found = []; let h = Array.from(document.querySelectorAll('h2')).find(h => h.textContent === 'Signatures');"
        "for (let e = h && h.nextElementSibling; e && e.tagName !== 'H2'; e = e.nextElementSibling)"
        "  if (e.tagName === 'H3') found.push(e.textContent);"
        "return found")
    shown = driver.execute_script(
        "return Array.from(document.querySelectorAll('div.example')).map(d => [d.dataset.lang, "
        "(d.querySelector('pre code') || {}).textContent || '', "
        "(d.querySelector('pre.output') || {}).textContent || ''])")
    examples = {lang for lang, program, output in shown if program.strip() and output.strip()}
    for language in languages:
        folder, tab = LANGUAGES[language]
        lacking = []
        if not any(name == language and any(f"/{folder}/" in href for href in hrefs) for name, hrefs in linked):
            lacking.append("a link to its reference entry")
        if language not in signed:
            lacking.append("a signature")
        if tab not in examples:
            lacking.append("an example (a program and its output)")
        if lacking:
            problems.append(f"{path}: its binding in {language} has it, and the page lacks "
                            f"{', '.join(lacking)} in {language}")
    # The examples are tabs: clicking a language's shows its example, and
    # only that one.
    for tab in driver.execute_script(
            "return Array.from(document.querySelectorAll('.tabs > input[type=radio]')).map(i => i.id.slice(4))"):
        visible = driver.execute_script(
            "const tab = document.querySelector(\"label[for='tab-\" + arguments[0] + \"']\");"
            "if (!tab) return null; tab.click();"
            "return Array.from(document.querySelectorAll('div.example'))"
            ".filter(d => getComputedStyle(d).display !== 'none').map(d => d.dataset.lang)", tab)
        if visible != [tab]:
            problems.append(f"{path}: the {tab} tab shows {visible} (its example alone expected)")
    driver.execute_script("window.scrollTo(0, 0)")  # (a tab's focus scrolled the page: the screenshot's top)


def open_page(driver: webdriver.Chrome, url: str, path: str, problems: list[str]) -> None:
    """Opens a page; DocC's, once its script has drawn it from its data."""
    driver.get(url)
    if path.startswith("swift/"):
        try:
            WebDriverWait(driver, SCRIPT_SECONDS).until(
                lambda d: d.execute_script("return document.querySelector('main h1') !== null"))
        except TimeoutException:
            problems.append(f"{path}: DocC drew no page in {SCRIPT_SECONDS} s")


def check_page(driver: webdriver.Chrome, base: str, path: str, cache: dict[str, int], problems: list[str],
               screenshot: str | None, languages: list[str] | None = None) -> list[str]:
    """Opens one page and checks it (an operator page, given the languages
    whose binding has its operator, as one); returns its links to the site."""
    url = urljoin(base, path)
    if status(url, cache) != 200:
        problems.append(f"{path}: HTTP {status(url, cache)}")
        return []
    open_page(driver, url, path, problems)
    for entry in driver.get_log("browser"):  # type: ignore[no-untyped-call]
        if entry.get("level") == "SEVERE":
            problems.append(f"{path}: console: {entry.get('message')}")
    # A page's scripts may add images once it has loaded (Doxygen's search
    # box does): wait for each image still loading to load or fail, so that
    # a loaded machine does not turn a slow image into a broken one.
    images: list[tuple[str, bool]]
    try:
        # (Selenium's stubs type the script's result as a dict.)
        images = cast(list[tuple[str, bool]], driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "const images = Array.from(document.images);"
            "Promise.all(images.filter(i => !i.complete).map(i => new Promise(r => {"
            "  i.addEventListener('load', r, {once: true}); i.addEventListener('error', r, {once: true}); })))"
            ".then(() => done(images.map(i => [i.getAttribute('src'), i.complete && i.naturalWidth > 0])));"))
    except TimeoutException:
        problems.append(f"{path}: images still loading after {SCRIPT_SECONDS} s")
        images = []
    for src, loaded in images:
        if not loaded:
            problems.append(f"{path}: the image {src} did not load")
    for data in driver.execute_script(
            "return Array.from(document.querySelectorAll('object[data]')).map(o => o.data)"):
        if data.startswith(base) and status(data, cache) != 200:
            problems.append(f"{path}: the object {data}: HTTP {status(data, cache)}")
    if languages is not None:
        if not any(src and src.endswith(".svg") and loaded for src, loaded in images):
            problems.append(f"{path}: no marble picture")
        check_operator_page(driver, path, languages, problems)
    check_layout(driver, path, problems)
    for width in driver.execute_script(
            "return Array.from(document.querySelectorAll('table')).map(t => t.getBoundingClientRect().right)"):
        if width > WINDOW[0]:
            problems.append(f"{path}: a table {int(width)} px wide, wider than the {WINDOW[0]} px window")
    links: list[str] = driver.execute_script("return Array.from(document.querySelectorAll('a[href]')).map(a => a.href)")
    site_links = [link for link in links if link.startswith(base)]
    for link in dict.fromkeys(urldefrag(link)[0] for link in site_links):
        if status(link, cache) != 200:
            problems.append(f"{path}: the link {link}: HTTP {status(link, cache)}")
    if screenshot:
        height = driver.execute_script("return Math.min(document.documentElement.scrollHeight, 4000)")
        driver.set_window_size(WINDOW[0], max(WINDOW[1], int(height)))
        driver.save_screenshot(screenshot)
        driver.set_window_size(*WINDOW)
    return site_links


def reference_entries(driver: webdriver.Chrome, base: str) -> list[str]:
    """The links of the operator page open in the browser to its entries
    in the references (its table's cells)."""
    links: list[str] = driver.execute_script(
        "return Array.from(document.querySelectorAll('tr > td a')).map(a => a.href)")
    folders = {folder for folder, _ in LANGUAGES.values()}
    return [link for link in links if link.startswith(base) and urlparse(link).path.split("/")[1] in folders
            and (urlparse(link).fragment or urlparse(link).path.startswith("/swift/documentation/swiftsignalkit/"))]


def check_way_back_to_operators(driver: webdriver.Chrome, base: str, entries: dict[str, list[str]],
                                problems: list[str]) -> None:
    """Each page of a reference that holds operators' entries links back to
    each of those operators' pages."""
    for page, operators in sorted(entries.items()):
        path = urlparse(page).path.lstrip("/")
        open_page(driver, page, path, problems)
        linked = set(driver.execute_script(
            "return Array.from(document.querySelectorAll('a[href]')).map(a => a.href)"
            ".filter(h => h.indexOf('/operators/') >= 0).map(h => h.split('#')[0])"))
        lacking = [op for op in dict.fromkeys(operators) if urljoin(base, f"operators/{op}.html") not in linked]
        if lacking:
            problems.append(f"{path}: holds the entries of {len(set(operators))} operators and links back to the "
                            f"pages of {len(set(operators)) - len(lacking)}; none to {', '.join(lacking[:6])}"
                            f"{' ...' if len(lacking) > 6 else ''}")


def rust_sample(driver: webdriver.Chrome, base: str, root: str) -> list[str]:
    """Pages of the Rust reference beside its crate's root: the struct
    Signal, a trait, each module the root lists, and a source page."""
    driver.get(urljoin(base, root))
    found: list[str] = driver.execute_script(
        "const main = document.querySelector('#main-content') || document;"
        "const first = s => { const a = main.querySelector(s); return a ? [a.href] : []; };"
        "return [].concat(Array.from(main.querySelectorAll('a.struct')).filter(a => a.textContent === 'Signal')"
        "  .slice(0, 1).map(a => a.href), first('a.trait'), Array.from(main.querySelectorAll('a.mod')).map(a => a.href),"
        "  Array.from(document.querySelectorAll('a.src')).slice(0, 1).map(a => a.href))")
    return [urlparse(link).path.lstrip("/") for link in dict.fromkeys(found) if link.startswith(base)]


def main() -> int:
    parser = argparse.ArgumentParser(description="the documentation site in headless Chromium")
    parser.add_argument("site")
    parser.add_argument("out", help="where the screenshots go")
    parser.add_argument("operator", nargs="?", default="map", help="the operator whose reference pages are opened")
    parser.add_argument("--api", required=True, help="api.json: which operators the C binding has")
    args = parser.parse_args()
    site, out, operator = args.site, args.out, args.operator
    languages = binding_languages(args.api)
    os.makedirs(out, exist_ok=True)
    server, base = serve(site)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={WINDOW[0]},{WINDOW[1]}", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    problems: list[str] = []
    cache: dict[str, int] = {}
    opened = 0
    try:
        driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
        driver.set_script_timeout(SCRIPT_SECONDS)
        driver.set_window_size(*WINDOW)
        try:
            links = check_page(driver, base, "index.html", cache, problems, os.path.join(out, "index.png"))
            opened += 1
            operator_pages = sorted({urlparse(link).path.lstrip("/") for link in links
                                     if urlparse(link).path.startswith("/operators/")})
            if not operator_pages:
                problems.append("index.html: no operator page")
            references: list[str] = []
            # The reference pages that hold operators' entries -> those operators.
            entries: dict[str, list[str]] = {}
            for page in operator_pages:
                name = page.rsplit("/", 1)[-1].removesuffix(".html")
                if name not in languages:
                    problems.append(f"{page}: no operator of that marble name in the operator table")
                    continue
                shot = os.path.join(out, f"operator-{name}.png") if name == operator else None
                check_page(driver, base, page, cache, problems, shot, languages[name])
                opened += 1
                found = reference_entries(driver, base)
                for link in found:
                    # DocC's pages are one per symbol: OPERATOR's is checked.
                    if name == operator or not urlparse(link).path.startswith("/swift/"):
                        entries.setdefault(urldefrag(link)[0], []).append(name)
                if name == operator:
                    references = found
            if not references:
                problems.append(f"operators/{operator}.html: no link to a reference")
            for link in dict.fromkeys(references):
                path = urlparse(link).path.lstrip("/") + (f"#{urlparse(link).fragment}" if urlparse(link).fragment else "")
                language = path.split("/")[0]
                check_page(driver, base, path, cache, problems, os.path.join(out, f"{language}-{operator}.png"))
                opened += 1
            check_way_back_to_operators(driver, base, entries, problems)
            opened += len(entries)
            # Each reference's front page, and the Rust reference's sample.
            for name, page in navigation.REFERENCES:
                check_page(driver, base, page, cache, problems, os.path.join(out, f"reference-{name}.png"))
                opened += 1
                if page.startswith("rust/"):
                    for item in rust_sample(driver, base, page):
                        shot = os.path.join(out, "rust-" + item.rsplit("/", 2)[-2] + "-"
                                            + item.rsplit("/", 1)[-1].removesuffix(".html") + ".png")
                        check_page(driver, base, item, cache, problems, shot)
                        opened += 1
            check_page(driver, base, "bench.html", cache, problems, os.path.join(out, "bench.png"))
            opened += 1
            check_file_note(driver, site, base, problems)
            check_search(driver, base, problems)
            opened += 1
            guides = sorted({urlparse(link).path.lstrip("/") for link in links
                             if urlparse(link).path.startswith("/guide/")})
            if not guides:
                problems.append("index.html: no guide")
            for page in guides:
                shot = os.path.join(out, "guide-operators.png") if page == "guide/docs/operators.html" else None
                check_page(driver, base, page, cache, problems, shot)
                opened += 1
        finally:
            driver.quit()
    finally:
        stop(server)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{len(problems)} problems in the browser (above)", file=sys.stderr)
        return 1
    print(f"{opened} pages opened in Chromium, {len(cache)} addresses fetched; screenshots in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
