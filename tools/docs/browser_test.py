#!/usr/bin/env python3
"""The documentation site in a real browser (make test-docs).

Serves SITE with ``make docs-serve DOCS_PORT=0`` (``python3 -m http.server``
on 127.0.0.1, a port the system picks: the server's line says which, read
with a deadline), so that the target the front page names is the one
tested, then, in
headless Chromium driven by Selenium (Debian's chromium and
chromium-driver), opens the index, every operator page, the pages each
reference links for one operator (OPERATOR, in C, C++, Python, and Swift
when built), the benchmark page and every guide the index lists, and
checks for each page:

- it loads (HTTP 200) with no error in the browser's console (a SEVERE
  entry of its log);
- every <img> and <object> loaded (an image's naturalWidth > 0);
- every link to the site resolves (HTTP 200, fetched once per address);
- an operator page shows at least one marble picture (an SVG image), its
  description (a paragraph before its table), when to use it (a "When to
  use it" heading and its paragraph), its signatures (a
  "Signatures" heading with the Swift declaration, and the C one when the
  page names a C function) and its examples (an "Examples" heading, then a
  program and what it prints in each of C, C++, Swift and Python, each
  shown alone when its tab is clicked);
- no table is wider than the window (1280 px);
- every page (the site's, the guides, the references: C, C++, Python,
  Swift, Rust) has the site's bar (tools/docs/navigation.py): the way back
  to the front page and the search box;
- the search finds an operator's page by a name of another language
  (skip_while: the skipWhile page first) and a C function in the C reference;
- the front page opened from a file (file://) says to serve the site for
  the Swift reference, and served over HTTP it does not.

It saves a screenshot of each page but the operator pages (one of them
only) into OUT, for the eye. Any failure is listed, and fails the run.

Usage: browser_test.py SITE OUT [OPERATOR]
Run with the docs venv's Python (Selenium installed).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from urllib.parse import urldefrag, urljoin, urlparse

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service

CHROMIUM = os.environ.get("SIGNALKIT_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("SIGNALKIT_CHROMEDRIVER", "/usr/bin/chromedriver")
DEADLINE = 30.0  # seconds for the server to say its port
SCRIPT_SECONDS = 60  # for a page's images to finish loading


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


def check_search(driver: webdriver.Chrome, base: str, problems: list[str]) -> None:
    """The search finds an operator by a name of another language, first."""
    driver.get(base + "search.html?q=skip_while")
    hrefs = driver.execute_script("return Array.from(document.querySelectorAll('#results a')).map(a => a.href)")
    if not hrefs or not hrefs[0].endswith("/operators/skipWhile.html"):
        problems.append(f"search.html?q=skip_while: skipWhile's operator page is not the first result ({hrefs[:3]})")
    driver.get(base + "search.html?q=sk_signal_map")
    if not driver.execute_script("return Array.from(document.querySelectorAll('#results a'))"
                                 ".some(a => a.href.indexOf('/c/') >= 0)"):
        problems.append("search.html?q=sk_signal_map: no entry of the C reference")


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


def check_page(driver: webdriver.Chrome, base: str, path: str, cache: dict[str, int], problems: list[str],
               screenshot: str | None, operator_page: bool) -> list[str]:
    """Opens one page and checks it; returns its links to the site."""
    url = urljoin(base, path)
    if status(url, cache) != 200:
        problems.append(f"{path}: HTTP {status(url, cache)}")
        return []
    driver.get(url)
    driver.execute_script("return document.readyState")  # the load is over when get returns
    for entry in driver.get_log("browser"):
        if entry.get("level") == "SEVERE":
            problems.append(f"{path}: console: {entry.get('message')}")
    # A page's scripts may add images once it has loaded (Doxygen's search
    # box does): wait for each image still loading to load or fail, so that
    # a loaded machine does not turn a slow image into a broken one.
    try:
        images = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "const images = Array.from(document.images);"
            "Promise.all(images.filter(i => !i.complete).map(i => new Promise(r => {"
            "  i.addEventListener('load', r, {once: true}); i.addEventListener('error', r, {once: true}); })))"
            ".then(() => done(images.map(i => [i.getAttribute('src'), i.complete && i.naturalWidth > 0])));")
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
    if operator_page and not any(src and src.endswith(".svg") and loaded for src, loaded in images):
        problems.append(f"{path}: no marble picture")
    if operator_page:
        headings = driver.execute_script("return Array.from(document.querySelectorAll('h2, h3')).map(h => h.textContent)")
        names_c = driver.execute_script(
            "return Array.from(document.querySelectorAll('table a code')).some(c => c.textContent.startsWith('sk_'))")
        first = driver.execute_script("const p = document.querySelector('h1 + p'); return p ? p.textContent : ''")
        if len(first.split()) < 4:
            problems.append(f"{path}: no description before the table")
        use = driver.execute_script("const p = document.querySelector('p.use'); return p ? p.textContent : ''")
        if "When to use it" not in headings or len(use.split()) < 8:
            problems.append(f"{path}: no paragraph on when to use it")
        if "Signatures" not in headings or "Swift" not in headings:
            problems.append(f"{path}: no signatures (a Signatures heading with the Swift declaration)")
        if names_c and "C" not in headings:
            problems.append(f"{path}: it names a C function but shows no C signature")
        shown = driver.execute_script(
            "return Array.from(document.querySelectorAll('div.example')).map(d => [d.dataset.lang, "
            "(d.querySelector('pre code') || {}).textContent || '', "
            "(d.querySelector('pre.output') || {}).textContent || ''])")
        have = {lang for lang, program, output in shown if program.strip() and output.strip()}
        lacking = [lang for lang in ("c", "cpp", "swift", "python") if lang not in have]
        if "Examples" not in headings or lacking:
            problems.append(f"{path}: no example (a program and its output) in {', '.join(lacking) or 'an Examples section'}")
        # The examples are tabs: clicking a language's shows its example, and
        # only that one.
        for lang in ("cpp", "swift", "python", "c"):
            visible = driver.execute_script(
                "const tab = document.querySelector(\"label[for='tab-\" + arguments[0] + \"']\");"
                "if (!tab) return null; tab.click();"
                "return Array.from(document.querySelectorAll('div.example'))"
                ".filter(d => getComputedStyle(d).display !== 'none').map(d => d.dataset.lang)", lang)
            if visible != [lang]:
                problems.append(f"{path}: the {lang} tab shows {visible} (its example alone expected)")
        driver.execute_script("window.scrollTo(0, 0)")  # (a tab's focus scrolled the page: the screenshot's top)
    if not driver.execute_script(
            "return Array.from(document.querySelectorAll('.sk-way-back a')).some(a => "
            "a.textContent === 'SignalKit documentation' && a.href.endsWith('/index.html')) "
            "&& document.querySelector('.sk-way-back input[name=q]') !== null"):
        problems.append(f"{path}: no site bar (the way back to the front page, and the search box)")
    for width in driver.execute_script(
            "return Array.from(document.querySelectorAll('table')).map(t => t.getBoundingClientRect().right)"):
        if width > 1280:
            problems.append(f"{path}: a table {int(width)} px wide, wider than the 1280 px window")
    links = driver.execute_script("return Array.from(document.querySelectorAll('a[href]')).map(a => a.href)")
    site_links = [link for link in links if link.startswith(base)]
    for link in dict.fromkeys(urldefrag(link)[0] for link in site_links):
        if status(link, cache) != 200:
            problems.append(f"{path}: the link {link}: HTTP {status(link, cache)}")
    if screenshot:
        height = driver.execute_script("return Math.min(document.documentElement.scrollHeight, 4000)")
        driver.set_window_size(1280, max(800, int(height)))
        driver.save_screenshot(screenshot)
        driver.set_window_size(1280, 800)
    return site_links


def main() -> int:
    site, out = sys.argv[1], sys.argv[2]
    operator = sys.argv[3] if len(sys.argv) > 3 else "map"
    os.makedirs(out, exist_ok=True)
    server, base = serve(site)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,800", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    problems: list[str] = []
    cache: dict[str, int] = {}
    opened = 0
    try:
        driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
        driver.set_script_timeout(SCRIPT_SECONDS)
        try:
            links = check_page(driver, base, "index.html", cache, problems, os.path.join(out, "index.png"), False)
            opened += 1
            operator_pages = sorted({urlparse(link).path.lstrip("/") for link in links
                                     if urlparse(link).path.startswith("/operators/")})
            if not operator_pages:
                problems.append("index.html: no operator page")
            references: list[str] = []
            for page in operator_pages:
                name = page.rsplit("/", 1)[-1].removesuffix(".html")
                shot = os.path.join(out, f"operator-{name}.png") if name == operator else None
                page_links = check_page(driver, base, page, cache, problems, shot, True)
                opened += 1
                if name == operator:
                    references = [link for link in page_links
                                  if urlparse(link).path.split("/")[1] in ("c", "cpp", "python", "swift")]
            if not references:
                problems.append(f"operators/{operator}.html: no link to a reference")
            for link in dict.fromkeys(references):
                path = urlparse(link).path.lstrip("/") + (f"#{urlparse(link).fragment}" if urlparse(link).fragment else "")
                language = path.split("/")[0]
                check_page(driver, base, path, cache, problems, os.path.join(out, f"{language}-{operator}.png"), False)
                opened += 1
            check_page(driver, base, "bench.html", cache, problems, os.path.join(out, "bench.png"), False)
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
                check_page(driver, base, page, cache, problems, shot, False)
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
