"""A web nobody here wrote: four real documentation sets on four loopback hosts.

Debian's documentation packages (PostgreSQL, Django, Flask, git) served by
Debian's nginx, one documentation set per loopback address (127.0.0.21-24,
one port), plus a portal page on the fast host linking to each set's index.
Each host pushes back in its own way, as real sites do:

* **slow** (PostgreSQL): every page costs the server its own time before
  nginx sends it -- lognormal across pages, median 120 ms -- slept by
  ``echo_sleep`` (Debian's ``libnginx-mod-http-echo``) inside nginx's event
  loop, so concurrent requests wait side by side (see model_fidelity.py);
* **fast** (Django): plain static files, and the portal;
* **crawl-delay** (Flask): ``Crawl-delay: 0.3`` in its robots.txt;
* **pushback** (git): about 8% of its pages, chosen by a hash of the path,
  answer their first request ``429`` with ``Retry-After: 1``, and their
  next request (the retry) with the page.  nginx keeps that memory in a
  ``limit_req`` zone keyed by the path (one request a minute: the first
  passes and is answered 429, a retry within the minute is "limited" and
  that refusal is turned into the page), so :meth:`Web.restart` gives
  every crawl the same server.

A documentation set is cut to its first ``pages_per_host`` pages in
breadth-first order from its index (Flask has 77 in all), copied into a
temporary folder, and every link that leaves the copy (to a page not copied,
a stylesheet, another site) is disabled (``href`` becomes ``data-cut``), so
a crawl with ``--scope any`` from the portal fetches exactly the copied
pages, whichever crawler runs it.  At the default 200 pages a host, a crawl
at 4 workers, 1 fetch per host, takes about 25-35 s: the slow host and the
Crawl-delay host each hold it for over 20 s.

    python benchmarks/docs_web.py --serve [--pages-per-host 200] [--port N]

serves the web until interrupted and prints the start URL, the hosts and a
crawl command; from Python::

    with docs_web(pages_per_host=200) as web:
        web.start        # the portal's URL
        web.hosts        # each host's facts (see Host)
        web.restart()    # before each crawl: the pushback host answers 429 again

Needs ``/usr/sbin/nginx``, its echo module and the four doc packages
(``postgresql-doc-15 python-django-doc python-flask-doc git-doc``); no root.
"""

from __future__ import annotations

import argparse
import posixpath
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import zlib
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple
from urllib.parse import unquote, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from model_fidelity import ECHO_MODULE, NGINX, free_port, think_times  # noqa: E402

from crawlsim.words import counted  # noqa: E402

DOCS = Path("/usr/share/doc")
ACCESS_LOG = "access.log"
"""nginx's record of each request, one line each: the host's address, when the answer
was done (epoch seconds), the server's own time for it, the status, the path
(:meth:`Web.served`): the ground truth a recorder's server times are checked against."""
PORTAL = "portal.html"
"""The portal's file on the fast host: a page linking to each host's index."""


@dataclass(frozen=True)
class Role:
    """How one host serves its documentation set."""

    name: str
    address: str
    docs: Path
    think: float = 0.0
    """Median server time per page, seconds (0: static files, nothing delayed)."""
    crawl_delay: float | None = None
    pushback: float = 0.0
    """Share of pages answered ``429`` with ``Retry-After`` on their first request."""
    retry_after: int = 1


ROLES = (
    Role("slow", "127.0.0.21", DOCS / "postgresql-doc-15/html", think=0.12),
    Role("fast", "127.0.0.22", DOCS / "python-django-doc/html"),
    Role("crawl-delay", "127.0.0.23", DOCS / "python-flask-doc/html", crawl_delay=0.3),
    Role("pushback", "127.0.0.24", DOCS / "git-doc", pushback=0.08),
)


@dataclass(frozen=True)
class Host:
    """One served host's facts, for a benchmark to check a crawl or a model against."""

    role: Role
    url: str
    """The host's root URL, ``http://ADDRESS:PORT``."""
    pages: tuple[str, ...]
    """Paths of the pages served (``/index.html`` first), breadth-first order."""
    pushed_back: tuple[str, ...] = ()
    """Paths answered ``429`` on their first request."""

    @property
    def host(self) -> str:
        """The host as a crawl's trace and ``run`` name it (``ADDRESS:PORT``)."""
        return urlsplit(self.url).netloc


class Served(NamedTuple):
    """One request as nginx logged it (see :data:`ACCESS_LOG`)."""

    address: str
    done: float
    """When nginx finished answering, epoch seconds (millisecond resolution)."""
    took: float
    """nginx's own time for the request, first byte read to last byte written (ms resolution)."""
    status: int
    path: str


@dataclass
class Web:
    """The served web: its start URL, its hosts, and the nginx serving them."""

    start: str
    hosts: list[Host]
    folder: Path
    _nginx: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def pages(self) -> int:
        """Every page a full crawl fetches: each host's pages and the portal."""
        return 1 + sum(len(host.pages) for host in self.hosts)

    def host(self, role: str) -> Host:
        return next(host for host in self.hosts if host.role.name == role)

    def restart(self) -> None:
        """Stop nginx and start it again, so the pushback host has forgotten which
        paths it answered 429: call before each crawl that must see the same server."""
        self.stop()
        (self.folder / ACCESS_LOG).unlink(missing_ok=True)
        conf = self.folder / "nginx.conf"
        self._nginx = subprocess.Popen([NGINX, "-c", str(conf), "-p", str(self.folder)])
        port = urlsplit(self.start).port
        for _ in range(100):
            if all(_answers(host.role.address, port) for host in self.hosts):  # type: ignore[arg-type]
                return
            time.sleep(0.05)
        self.stop()
        raise SystemExit(f"nginx did not start; see {self.folder / 'error.log'}")

    def served(self) -> list[Served]:
        """Every request nginx answered since the last :meth:`restart`, in the order it
        finished them (nginx writes each line as the answer is done)."""
        log = self.folder / ACCESS_LOG
        rows = [line.split(" ", 4) for line in log.read_text().splitlines()] if log.exists() else []
        return [Served(address, float(done), float(took), int(status), path)
                for address, done, took, status, path in rows]

    def stop(self) -> None:
        if self._nginx is not None:
            self._nginx.terminate()
            self._nginx.wait(timeout=10)
            self._nginx = None


def _answers(address: str, port: int) -> bool:
    try:
        socket.create_connection((address, port), timeout=0.1).close()
        return True
    except OSError:
        return False


HREF = re.compile(rb"""<(\w+)[^>]*?\s(href\s*=\s*)(?:"([^"]*)"|'([^']*)'|([^\s>"']+))""", re.IGNORECASE)
"""An ``href`` and its tag's name (the tag's other attributes are not parsed)."""


def target(page: str, href: str) -> str | None:
    """The site-relative file ``href`` on ``page`` points to (``a/`` means
    ``a/index.html``), or None when it leaves the site or asks a query."""
    if href.startswith("#") or not href:
        return page
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or parts.query:
        return None
    path = posixpath.normpath(posixpath.join(posixpath.dirname(page), unquote(parts.path)))
    if path.startswith(".."):
        return None
    if parts.path.endswith("/") or path == ".":
        path = posixpath.join(path, "index.html")
    return path.removeprefix("./")


def href_of(match: re.Match[bytes]) -> str:
    return next(value for value in match.groups()[2:] if value is not None).decode("utf-8", "replace")


def links(page: str, html: bytes) -> Iterator[tuple[re.Match[bytes], str | None]]:
    """Each ``href`` on ``page`` and the site file it points to: None unless it is an
    ``<a>`` link (the only links a crawler follows) to a file in the site."""
    for match in HREF.finditer(html):
        yield match, target(page, href_of(match)) if match.group(1).lower() == b"a" else None


def first_pages(docs: Path, cap: int) -> list[str]:
    """The first ``cap`` HTML pages breadth-first from ``docs/index.html``."""
    order, queue, seen = [], deque(["index.html"]), {"index.html"}
    while queue and len(order) < cap:
        page = queue.popleft()
        order.append(page)
        for _, path in links(page, (docs / page).read_bytes()):
            if path and path.endswith(".html") and path not in seen and (docs / path).is_file():
                seen.add(path)
                queue.append(path)
    return order


def closed_copy(docs: Path, pages: list[str], dest: Path) -> None:
    """Copy ``pages`` into ``dest`` with every link to a file not copied disabled;
    a link to a folder names its index.html, so each page has one URL."""
    kept = set(pages)

    def relink(match: re.Match[bytes], path: str | None) -> bytes:
        if path not in kept:
            return b'data-cut=""'
        raw = href_of(match)
        folder = urlsplit(raw).path
        if folder.endswith("/") or posixpath.basename(folder) in (".", ".."):
            raw = raw.replace(folder, folder.rstrip("/") + "/index.html", 1)
        return b'href="' + raw.replace('"', "%22").encode() + b'"'

    for page in pages:
        html = (docs / page).read_bytes()
        out, end = [], 0
        for match, path in links(page, html):
            out += [html[end : match.start(2)], relink(match, path)]
            end = match.end()
        (dest / page).parent.mkdir(parents=True, exist_ok=True)
        (dest / page).write_bytes(b"".join(out) + html[end:])


def pushed_back(pages: list[str], share: float) -> list[str]:
    """The pages answered 429 first: a hash of each path, so the same pages every time."""
    return [page for page in pages if zlib.crc32(page.encode()) % 1000 < share * 1000]


def server_block(role: Role, root: Path, port: int, pushback: list[str]) -> str:
    """One host's nginx ``server`` block: static files, each delayed by its own think
    time (slow), the first request of each pushback path answered 429."""
    lines = [f"  server {{ listen {role.address}:{port}; root {root};"]
    if role.think:
        table = "".join(f"      {path} {delay};\n" for path, delay in think_times(root, role.think).items())
        lines[0] = f"  map $uri $think_{role.address.replace('.', '_')} {{\n    default 0;\n{table}  }}\n" + lines[0]
        lines.append(f"    location / {{ echo_sleep $think_{role.address.replace('.', '_')}; echo_exec @file; }}")
        lines.append("    location @file { }")
    for page in pushback:
        lines.append(f"    location = /{page} {{ limit_req zone=first; limit_req_status 598; error_page 598 = @page;"
                     f" add_header Retry-After {role.retry_after} always; try_files /nothing-here =429; }}")
    if pushback:
        lines.append("    location @page { }")
    return "\n".join(lines) + "\n  }\n"


def nginx_conf(folder: Path, blocks: list[str]) -> str:
    return f"""load_module {ECHO_MODULE};
daemon off; master_process off; worker_processes 1;
pid {folder}/nginx.pid; error_log {folder}/error.log;
events {{ worker_connections 1024; }}
http {{
  log_format timed '$server_addr $msec $request_time $status $request_uri';
  access_log {folder}/{ACCESS_LOG} timed; default_type text/html; types {{ text/html html; text/plain txt; }}
  client_body_temp_path {folder}/body; proxy_temp_path {folder}/proxy; fastcgi_temp_path {folder}/fcgi;
  uwsgi_temp_path {folder}/uwsgi; scgi_temp_path {folder}/scgi;
  limit_req_zone $uri zone=first:1m rate=1r/m; limit_req_log_level info; map_hash_bucket_size 128;
{"".join(blocks)}}}
"""


def free_on_all(addresses: list[str]) -> int:
    """A port free on every one of ``addresses``."""
    for _ in range(20):
        port = free_port()
        if not any(_answers(address, port) for address in addresses):
            return port
    raise SystemExit("no port free on " + ", ".join(addresses))


@contextmanager
def docs_web(pages_per_host: int = 200, port: int | None = None, roles: tuple[Role, ...] = ROLES) -> Iterator[Web]:
    """Serve the web (see the module docstring) and yield it; nginx is stopped and
    the temporary folder removed on the way out."""
    missing = [str(path) for path in (Path(NGINX), ECHO_MODULE, *(role.docs for role in roles)) if not path.exists()]
    if missing:
        raise SystemExit("docs_web needs: " + ", ".join(missing))
    port = port or free_on_all([role.address for role in roles])
    with tempfile.TemporaryDirectory(prefix="crawlsim-docs-web-") as name:
        folder = Path(name)
        hosts, blocks = [], []
        for role in roles:
            root = folder / role.name
            root.mkdir()
            pages = first_pages(role.docs, pages_per_host)
            closed_copy(role.docs, pages, root)
            robots = "User-agent: *\nDisallow:\n" + (f"Crawl-delay: {role.crawl_delay:g}\n" if role.crawl_delay else "")
            (root / "robots.txt").write_text(robots)
            pushback = pushed_back(pages, role.pushback)
            blocks.append(server_block(role, root, port, pushback))
            hosts.append(Host(role, f"http://{role.address}:{port}", tuple(f"/{page}" for page in pages),
                              tuple(f"/{page}" for page in pushback)))
        portal = "".join(f'<li><a href="{host.url}/index.html">{host.role.name}: {host.role.docs}</a></li>\n'
                         for host in hosts)
        fast = next(host for host in hosts if host.role.name == "fast")
        (folder / "fast" / PORTAL).write_text(f"<html><body><h1>Documentation</h1><ul>\n{portal}</ul></body></html>\n")
        (folder / "nginx.conf").write_text(nginx_conf(folder, blocks))
        web = Web(f"{fast.url}/{PORTAL}", hosts, folder)
        try:
            web.restart()
            yield web
        finally:
            web.stop()


def describe(web: Web) -> str:
    """The web's hosts in a few lines, for a person at a terminal."""
    rows = [f"start: {web.start}  ({web.pages} pages)"]
    for host in web.hosts:
        role = host.role
        how = [f"{counted(len(host.pages), 'page')} of {role.docs}"]
        if role.think:
            how.append(f"server time median {role.think:g} s")
        if role.crawl_delay:
            how.append(f"Crawl-delay: {role.crawl_delay:g}")
        if host.pushed_back:
            how.append(f"{counted(len(host.pushed_back), 'page')} answered 429 first, Retry-After: {role.retry_after}")
        rows.append(f"  {role.name:12} {host.url}  " + "; ".join(how))
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--serve", action="store_true", help="serve the web until interrupted (Ctrl-C)")
    parser.add_argument("--pages-per-host", type=int, default=200, help="pages copied from each documentation set")
    parser.add_argument("--port", type=int, default=None, help="the port on every address (default: a free one)")
    args = parser.parse_args()
    if args.pages_per_host < 1:
        parser.error("--pages-per-host must be at least 1")
    with docs_web(args.pages_per_host, args.port) as web:
        print(describe(web))
        if not args.serve:
            return 0
        print(f"crawl it: crawlsim crawl {web.start} --scope any --workers 4 --per-host 1 --gap 0\n"
              "serving; Ctrl-C stops", flush=True)
        signal.signal(signal.SIGTERM, signal.default_int_handler)  # `kill` cleans up as Ctrl-C does
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
