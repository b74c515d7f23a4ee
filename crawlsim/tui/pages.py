"""Pages grouped by host, and each host's politeness state."""

from __future__ import annotations

import math

from rich.text import Text

from crawlsim.views.replay import HostStatus, PageState, Replay, UrlStatus, short_url
from crawlsim.tui.base import (
    BAR_ORDER,
    LEGEND_ORDER,
    STATE_GLYPH,
    STATE_SHORT,
    STATE_STYLE,
    Panel,
    Runs,
    ViewState,
    fit,
)
from crawlsim.tui.nodes import host_nodes_cell, host_nodes_width
from crawlsim.words import counted

# -- pages -----------------------------------------------------------------------------


def pages_title(replay: Replay) -> str:
    """The pages panel's title.  Each cell is a URL (a spelling): with
    normalization off, ``variants`` draws 831 URLs of 400 pages, so the title
    says both when they differ, and "URLs" when the pages are not known (a
    cluster's trace; one process's counts the pages it found, as ``crawl`` does)."""
    urls = len(replay.page_list)
    pages = replay.coverage.reachable if replay.coverage is not None else None
    if pages is None:
        return f"URLs by host ({urls:,})"
    if pages == urls:
        return f"pages by host ({urls:,})"
    return f"pages by host ({pages:,} pages, {urls:,} URLs)"


class PagesView(Panel):
    """Pages grouped by host, coloured by state.

    Three drawings, picked by what fits: a row per page with its discovery
    link and link count (small graphs), a cell per page per host (up to
    :data:`~crawlsim.views.replay.LARGE_PAGES` pages), or a bar per host whose
    length is the host's page count (large crawls)."""

    mode: str = ""

    def draw_lines(self, view: ViewState, width: int, height: int) -> list[Text]:
        replay = view.replay
        lines = [self.legend(replay, width)]
        body = height - 1
        hosts = replay.host_order()
        drawn = None
        if not replay.large:
            drawn = self.as_list(hosts, width, body)
            if drawn is None:
                drawn = self.as_grid(hosts, width, body)
                self.mode = "grid" if drawn is not None else "hosts"
            else:
                self.mode = "list"
        if drawn is None:
            self.mode = "hosts"
            drawn = self.as_bars(hosts, width, body)
        return lines + drawn

    @staticmethod
    def legend(replay: Replay, width: int) -> Text:
        """Each state's glyph, name and count (names dropped when narrow).

        The duplicate count is the counters bar's: completed duplicate fetches
        (those in flight are drawn as fetching), content duplicates apart."""
        c = replay.counters()
        for named in (True, False):
            runs = Runs()
            for state in LEGEND_ORDER:
                n = replay.count(state)
                if state in (PageState.DUPLICATE, PageState.FAILED, PageState.SKIPPED) and n == 0:
                    continue
                runs.add(STATE_GLYPH[state] + (" " if named else ""), STATE_STYLE[state])
                count = str(n)
                if state == PageState.DUPLICATE and c.content_duplicates:
                    count = f"{c.duplicates} + same content {c.content_duplicates}"
                runs.add(f"{STATE_SHORT[state]} {count}  " if named else f"{count} ", "")
            text = runs.text()
            if text.cell_len <= width:
                break
        text.truncate(width)
        return text

    # a row per page ------------------------------------------------------------------

    def as_list(self, hosts: list[HostStatus], width: int, height: int) -> list[Text] | None:
        items: list[HostStatus | UrlStatus] = []
        for host in hosts:
            items.append(host)
            items.extend(host.pages)
        if height <= 0 or not 0 < len(items) <= 90:  # no items: a trace of no fetch or page
            return None
        columns = math.ceil(len(items) / height)
        col_width = (width + 2) // columns - 2
        if col_width < 26:
            return None
        path_w = min(24, max((len(short_url(p.url, p.host)) for p in items if isinstance(p, UrlStatus)), default=8))
        parent_w = min(
            16,
            max((len(short_url(p.parent, p.host)) for p in items if isinstance(p, UrlStatus) and p.parent), default=1),
        )
        cells: list[Text] = [self.page_row(item, col_width, path_w, parent_w) for item in items]
        rows: list[Text] = []
        for r in range(min(height, len(cells))):
            line = Text(no_wrap=True, overflow="crop")
            for c in range(columns):
                i = c * height + r
                if i >= len(cells):
                    break
                if c:
                    line.append("  ")
                cell = cells[i]
                line.append_text(cell)
                line.append(" " * (col_width - cell.cell_len))
            rows.append(line)
        return rows

    @staticmethod
    def page_row(item: HostStatus | UrlStatus, width: int, path_w: int = 16, parent_w: int = 8) -> Text:
        """``● /docs/guide  ← /z  →2``: state, path, the page that linked to it
        first, and how many links it has once fetched."""
        runs = Runs()
        if isinstance(item, HostStatus):
            runs.add(fit(item.name, width - 12), "bold underline")
            runs.add(f" {item.counts[PageState.DONE]}/{item.total} fetched", "dim")
        else:
            state = item.state
            runs.add(STATE_GLYPH[state] + " ", STATE_STYLE[state])
            path = fit(short_url(item.url, item.host), path_w).ljust(path_w)
            runs.add(path + " ", STATE_STYLE[state] if state != PageState.UNDISCOVERED else "grey50")
            if state in (PageState.SKIPPED, PageState.FAILED, PageState.UNDISCOVERED) and item.note:
                runs.add(item.note.replace("skipped: ", "skipped, "), STATE_STYLE[state])
            else:
                parent = "← " + fit(short_url(item.parent, item.host), parent_w) if item.parent else ""
                runs.add(parent.ljust(parent_w + 2), "dim")
                if item.links is not None:
                    runs.add(f" →{item.links}", "dim")
                if state == PageState.DUPLICATE and item.note:
                    runs.add(" " + item.note, STATE_STYLE[state])
        text = runs.text()
        text.truncate(width)
        return text

    # a cell per page --------------------------------------------------------------------

    def as_grid(self, hosts: list[HostStatus], width: int, height: int) -> list[Text] | None:
        label = min(18, max(len(h.name) for h in hosts) + 1) if hosts else 0
        cells = width - label - 1
        if cells < 10:
            return None
        needed = sum(max(1, math.ceil(len(h.pages) / cells)) for h in hosts)
        if needed > height:
            return None
        rows: list[Text] = []
        for host in hosts:
            for start in range(0, max(1, len(host.pages)), cells):
                runs = Runs()
                runs.add(
                    fit(host.name, label - 1).ljust(label) if start == 0 else " " * label, "bold" if start == 0 else ""
                )
                for page in host.pages[start : start + cells]:
                    runs.add(STATE_GLYPH[page.state], STATE_STYLE[page.state])
                rows.append(runs.text())
        return rows

    # a bar per host -----------------------------------------------------------------------

    def as_bars(self, hosts: list[HostStatus], width: int, height: int) -> list[Text]:
        if height <= 0 or not hosts:
            return []
        label = min(16, max(len(h.name) for h in hosts) + 1)
        counts_w = 16
        bar_w = max(4, width - label - counts_w - 1)
        largest = max(h.total for h in hosts) or 1
        shown = hosts if len(hosts) <= height else hosts[: height - 1]
        rows = []
        for host in shown:
            runs = Runs()
            runs.add(fit(host.name, label - 1).ljust(label), "bold")
            filled = self.bar(runs, host, max(1, round(bar_w * host.total / largest)))
            runs.add(" " * (bar_w - filled + 1))
            runs.add(fit(self.bar_counts(host), counts_w), "")
            rows.append(runs.text())
        if len(shown) < len(hosts):
            rest = hosts[len(shown) :]
            pages = sum(h.total for h in rest)
            done = sum(h.counts[PageState.DONE] for h in rest)
            said = f"… {counted(len(rest), 'more host')}: {done:,}/{counted(pages, 'page')} fetched"
            rows.append(Text(said, style="dim"))
        return rows

    @staticmethod
    def bar(runs: Runs, host: HostStatus, length: int) -> int:
        """A host's bar, ``length`` cells split among its states in
        :data:`~crawlsim.tui.base.BAR_ORDER` (each state's share rounded at
        its running total, so the parts always add up); the cells drawn."""
        filled = 0
        acc = 0.0
        for state in BAR_ORDER:
            n = host.counts[state]
            if not n:
                continue
            acc += n
            upto = round(length * acc / host.total)
            cells = max(0, upto - filled)
            if cells:
                glyph = "·" if state == PageState.UNDISCOVERED else "█"
                runs.add(glyph * cells, STATE_STYLE[state])
                filled = upto
        return filled

    @staticmethod
    def bar_counts(host: HostStatus) -> str:
        """``12/40 ◆3 ✗1``: pages fetched of the host's, then duplicates and failures."""
        extra = ""
        if host.counts[PageState.DUPLICATE]:
            extra += f" ◆{host.counts[PageState.DUPLICATE]}"
        if host.counts[PageState.FAILED]:
            extra += f" ✗{host.counts[PageState.FAILED]}"
        return f"{host.counts[PageState.DONE]}/{host.total}{extra}"


# -- hosts ---------------------------------------------------------------------------------


class HostsView(Panel):
    """Each host's politeness state: busy (n/limit), waiting until t (why), or idle."""

    def draw_lines(self, view: ViewState, width: int, height: int) -> list[Text]:
        replay = view.replay
        # a host that never fetched (all skipped by scope) has no politeness to show
        hosts = [h for h in replay.host_order() if h.fetches or h.counts[PageState.FRONTIER] or h.in_flight or h.robots]
        if not hosts:
            return [Text("no host fetched yet", style="dim")]
        finished = replay.counters().done
        name_w = min(18, max(len(h.name) for h in hosts) + 1)
        node_w = host_nodes_width(replay)
        wide = width - name_w - node_w >= 32
        rows: list[Text] = []
        shown = hosts if len(hosts) <= height else hosts[: max(0, height - 1)]
        for host in shown:
            runs = Runs()
            runs.add(fit(host.name, name_w - 1).ljust(name_w), "bold")
            if node_w:  # a cluster: the node that crawls the host (the partition)
                runs.add(*host_nodes_cell(replay, host.name, node_w))
            runs.add(*slots_cell(host, view.per_host))
            runs.add(*wait_or_queue_cell(host, view.t, finished, wide))
            runs.add(robots_cell(host), "dim")
            text = runs.text()
            text.truncate(width)
            rows.append(text)
        if len(shown) < len(hosts):
            busy = sum(1 for h in hosts[len(shown) :] if h.in_flight)
            rows.append(Text(f"… {counted(len(hosts) - len(shown), 'more host')} ({busy:,} busy)", style="dim"))
        return rows


def slots_cell(host: HostStatus, limit: int | None) -> tuple[str, str]:
    """``busy 1/1`` (at the per-host limit, or any fetch when there is no
    limit), ``open 1/2`` (below it) or ``idle``; and its style."""
    cap = f"/{limit}" if limit else ""
    if host.in_flight and (limit is None or host.in_flight >= limit):
        return f"busy {host.in_flight}{cap}".ljust(9), STATE_STYLE[PageState.IN_FLIGHT]
    if host.in_flight:
        return f"open {host.in_flight}{cap}".ljust(9), STATE_STYLE[PageState.IN_FLIGHT]
    return "idle".ljust(9), "dim"


def wait_or_queue_cell(host: HostStatus, t: float, finished: bool, wide: bool) -> tuple[str, str]:
    """``wait→3.0 s gap`` while a gap, Crawl-delay or Retry-After holds the
    host back (the reason only when ``wide``), else its queue and progress."""
    if host.waiting(t) and not finished:
        reason = host.deferred_reason if wide else ""
        return f"wait→{host.deferred_until:.1f} s {reason}", "yellow"
    queued = host.counts[PageState.FRONTIER]
    fetched = f"{host.counts[PageState.DONE]}/{host.total}"
    if wide:
        return f"queue {queued:<3} fetched {fetched}", "dim"
    return f"q {queued:<3} {fetched}", "dim"


def robots_cell(host: HostStatus) -> str:
    """``  robots 200 delay 2``: the host's robots.txt status, when robots is on."""
    if not host.robots:
        return ""
    delay = f" delay {host.crawl_delay:g}" if host.crawl_delay else ""
    return f"  robots {host.robots}{delay}"
