"""Check the built documentation site (scripts/build-docs): its links, and its pages in a browser.

1. Links: every ``href`` and ``src`` of every HTML page under the site that stays inside the
   site must name a file that exists, and a ``#fragment`` into a site page must name an
   element id of that page (rustdoc pages, whose fragments are partly made by script, are
   checked for the file only). The rustdoc index of each public crate must exist.
2. Browser: with ``--browser CHROMIUM``, the site is served on a local port and the home page,
   the Python API and a rustdoc page are loaded in headless Chromium; the DOM it dumps after
   the load must hold text each page renders (the home page's heading, a class of the API
   with its docstring, the crate's heading). ``--screenshots DIR`` also saves a screenshot of
   the home page and of the API page there.

Usage: ``python scripts/docs/check_site.py [SITE] [--browser PATH] [--screenshots DIR]``
(``SITE`` defaults to ``site``). Exits 1 naming every problem found.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import posixpath
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

RUST_CRATES = ("zkdv_protocol", "zkdv_hashing")
"""The crates whose rustdoc the site embeds under ``rust/``."""

# (page, texts its DOM must contain after the load). The API page is the one of the session
# configuration: a class heading (its id is the object's path) and its docstring's first line.
PAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("", ("ZKDV makes a training run auditable", "Quick start: PyTorch", "Python API")),
    (
        "api/config/",
        (
            'id="zkdv.config.ZKDVConfig"',
            "What a proof session records about itself in the transcript",
            'id="zkdv.config.SamplingPolicy"',
        ),
    ),
    ("rust/zkdv_protocol/index.html", ("zkdv_protocol", "Writer", "verify_path")),
)
SCREENSHOTS = (("home.png", ""), ("api.png", "api/config/"))

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,1000",
)


class _Page(HTMLParser):
    """The ids and the link targets of one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in ("id", "name") and (name == "id" or tag == "a"):
                self.ids.add(value)
            elif (name == "href" and tag in ("a", "link", "area")) or (
                name == "src" and tag in ("img", "script", "iframe", "source")
            ):
                self.links.append(value)


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def _internal(link: str) -> bool:
    parts = urlsplit(link)
    return not parts.scheme and not parts.netloc and not link.startswith("//")


def _target(page: str, link: str, dirs: set[str]) -> tuple[str, str]:
    """The file (relative to the site) that ``link`` on ``page`` names, and its fragment."""
    parts = urlsplit(link)
    if not parts.path:
        return page, unquote(parts.fragment)
    path = unquote(parts.path)
    base = "." if path.startswith("/") else posixpath.dirname(page) or "."
    target = posixpath.normpath(posixpath.join(base, path.lstrip("/")))
    if path.endswith("/") or target in dirs or target == ".":
        target = "index.html" if target == "." else f"{target}/index.html"
    return target, unquote(parts.fragment)


def check_links(site: Path) -> list[str]:
    """Every broken internal link of the site, as ``page: link (why)``."""
    files = {path.relative_to(site).as_posix() for path in site.rglob("*") if path.is_file()}
    dirs = {posixpath.dirname(file) for file in files}
    dirs |= {parent for d in list(dirs) for parent in _parents(d)}
    pages = {file: _parse(site / file) for file in sorted(files) if file.endswith(".html")}
    problems: list[str] = []
    for crate in RUST_CRATES:
        if f"rust/{crate}/index.html" not in files:
            problems.append(f"rust/{crate}/index.html: missing (the rustdoc of {crate})")
    for page, parsed in pages.items():
        for link in dict.fromkeys(parsed.links):
            if not _internal(link) or link.startswith(("mailto:", "javascript:", "data:")):
                continue
            target, fragment = _target(page, link, dirs)
            where = f"{page}: {link}"
            if target == ".." or target.startswith("../"):
                problems.append(f"{where} (leaves the site)")
            elif target not in files:
                problems.append(f"{where} (no file {target})")
            elif fragment and target in pages and not target.startswith("rust/"):
                if fragment not in pages[target].ids:
                    problems.append(f"{where} (no id {fragment!r} in {target})")
    return problems


def _parents(directory: str) -> Iterator[str]:
    while directory:
        directory = posixpath.dirname(directory)
        if directory:
            yield directory


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a browser that drops a connection it no longer needs (a broken pipe)


class _Server:
    """The site served on a free local port, in a thread."""

    def __init__(self, site: Path) -> None:
        handler = functools.partial(_QuietHandler, directory=str(site))
        self.httpd = _QuietServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def url(self, page: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/{page}"

    def __enter__(self) -> _Server:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _chromium(browser: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run headless Chromium once, with a fresh profile."""
    with tempfile.TemporaryDirectory(prefix="zkdv-docs-chromium-") as profile:
        return subprocess.run(
            [browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )


def check_browser(site: Path, browser: str, screenshots: Path | None) -> Iterator[str]:
    """Load the pages of ``PAGES`` in Chromium; yield a problem for each text not rendered."""
    with _Server(site) as server:
        for page, texts in PAGES:
            run = _chromium(browser, "--dump-dom", server.url(page))
            if run.returncode != 0 or "<html" not in run.stdout:
                yield f"/{page}: chromium failed (exit {run.returncode}): {run.stderr[-2000:]}"
                continue
            for text in texts:
                if text not in run.stdout:
                    yield f"/{page}: the rendered page lacks {text!r}"
        if screenshots is not None:
            screenshots.mkdir(parents=True, exist_ok=True)
            for name, page in SCREENSHOTS:
                shot = screenshots / name
                run = _chromium(browser, f"--screenshot={shot}", server.url(page))
                if run.returncode != 0 or not shot.is_file():
                    yield f"/{page}: no screenshot (exit {run.returncode}): {run.stderr[-2000:]}"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", default="site", type=Path, help="the built site")
    parser.add_argument("--browser", help="Chromium to load pages with (e.g. /usr/bin/chromium)")
    parser.add_argument("--screenshots", type=Path, help="save screenshots here (needs --browser)")
    args = parser.parse_args(argv)
    site: Path = args.site
    if not (site / "index.html").is_file():
        print(f"error: {site} holds no built site: run scripts/build-docs", file=sys.stderr)
        return 1
    if args.screenshots is not None and not args.browser:
        parser.error("--screenshots needs --browser")
    if args.browser and shutil.which(args.browser) is None:
        print(f"error: no browser at {args.browser} (Debian: apt-get install chromium)")
        return 1

    problems = check_links(site)
    pages = sum(1 for _ in site.rglob("*.html"))
    print(f"links: {pages} pages checked, {len(problems)} broken")
    if args.browser:
        found = list(check_browser(site, args.browser, args.screenshots))
        print(f"browser: {len(PAGES)} pages loaded in {args.browser}, {len(found)} problems")
        problems += found
    for problem in problems:
        print(f"  {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
