"""A cluster in the app: worker lanes grouped per node, each group headed by
its node, the messages in transit between nodes, which node crawls each
host, and the cluster's own figures.

Everything here reads :attr:`crawlsim.views.replay.Replay.cluster` (a
:class:`~crawlsim.views.replay_nodes.NodeReplay`, replayed from the trace's
events) and the run's :class:`~crawlsim.cluster.sim.ClusterRun`; a run on
one process has neither, and the panels draw as they always have.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text

from crawlsim.palette import STATES
from crawlsim.views.replay import Replay
from crawlsim.views.replay_nodes import NodeReplay, NodeStatus
from crawlsim.trace.cluster import node_label
from crawlsim.tui.base import Runs, ViewState, fit, seconds

if TYPE_CHECKING:
    from crawlsim.cluster.sim import ClusterRun
    from crawlsim.views.session import Result

DOWN_STYLE = f"bold {STATES['lost'].rich_block}"
"""A down node's header: the colour of the fetches lost with it."""
SPLIT_STYLE = "bold bright_red"
HEAD_STYLE = "bold cyan"


def lane_label(replay: Replay, slot: int) -> str:
    """``n2 w3``: the node (numbered as a scenario's ``fail`` list and
    ``crawlsim run`` number them, from 0) and its worker (from 1, as every
    view numbers workers; ``w3`` alone for one process)."""
    cluster = replay.cluster
    if cluster is None:
        return f"w{slot + 1}"
    node = cluster.node_of_slot(slot)
    return f"{node_label(node)} w{slot - node * cluster.workers + 1}"


def label_width(replay: Replay) -> int:
    """Cells for a lane's label: 5 (``w12``, ``n2 w3``) or the widest node label."""
    cluster = replay.cluster
    if cluster is None:
        return 5
    return max(5, len(f"{node_label(cluster.count - 1)} w{cluster.workers}") + 1)


@dataclass(frozen=True)
class Row:
    """One row of the grouped lanes: a node's header (``hidden`` of its lanes
    not shown), a worker lane (``slot``), or a note of nodes left out."""

    kind: str
    """``node``, ``lane`` or ``more``."""
    index: int
    """The node, the slot, or (``more``) the first node left out."""
    hidden: int = 0


def lane_rows(cluster: NodeReplay, lanes: int, room: int) -> list[Row]:
    """The rows of a cluster's lanes in ``room`` rows: each node's header and
    its lanes; when they do not all fit, the same number of lanes of every
    node (its header says how many are hidden); with room for headers only,
    the headers (as many as fit)."""
    groups = [range(min(s.start, lanes), min(s.stop, lanes)) for s in map(cluster.slots_of, range(cluster.count))]
    if len(groups) > room:
        shown = max(0, room - 1)
        rows = [Row("node", k, len(groups[k])) for k in range(shown)]
        return [*rows, Row("more", shown, len(groups) - shown)]
    if sum(len(g) for g in groups) + len(groups) <= room:
        each, extra = max((len(g) for g in groups), default=0), 0
    else:  # rows left over go one each to the first nodes
        each, extra = divmod(room - len(groups), len(groups))
    rows = []
    for k, group in enumerate(groups):
        take = each + (1 if k < extra else 0)
        rows.append(Row("node", k, max(0, len(group) - take)))
        rows.extend(Row("lane", slot) for slot in list(group)[:take])
    return rows


def node_header(replay: Replay, status: NodeStatus, hidden: int, head_w: int, width: int) -> Text:
    """A node's line above its lanes: label, frontier, fetches in flight,
    pages fetched, messages sent and received, hosts it crawls; ``DOWN``
    while it is failed; how many of its lanes are left out and busy."""
    cluster = replay.cluster
    assert cluster is not None
    runs = Runs()
    runs.add(status.label.ljust(head_w), HEAD_STYLE)
    runs.add("▕ ", "dim")
    if not status.alive:
        runs.add(" DOWN ", DOWN_STYLE)
        runs.add(" ")
    hosts = len(cluster.hosts[status.index]) if status.index < len(cluster.hosts) else 0
    words = [
        f"frontier {status.frontier}",
        f"in flight {status.in_flight}/{cluster.workers}",
        f"sent {status.sent} recv {status.received}" + (f" lost {status.lost}" if status.lost else ""),
        f"fetched {status.fetched}",
        f"{hosts} host{'' if hosts == 1 else 's'}",
    ]
    if status.failures:
        words.insert(2, f"failed {status.failures}×")
    if hidden:
        words.insert(2, f"+{hidden} lanes hidden")
    used = sum(len(text) for text, _ in runs.parts)
    runs.add(fit(" · ".join(words), max(0, width - used)), "bold" if status.alive else "dim")
    return runs.text()


def transit_line(replay: Replay, head_w: int, width: int) -> Text:
    """Messages travelling between nodes now: how many, the links they
    carry, and the busiest flows (``n1→n3 2``)."""
    cluster = replay.cluster
    assert cluster is not None
    runs = Runs()
    runs.add("⇄".ljust(head_w), HEAD_STYLE)
    runs.add("▕ ", "dim")
    sent = sum(s.sent for s in cluster.status)
    if not cluster.in_transit:
        runs.add(f"no messages in transit ({sent} sent so far)", "dim")
        return runs.text()
    runs.add(f"{cluster.in_transit} message{'' if cluster.in_transit == 1 else 's'} in transit", "bold")
    runs.add(f" ({cluster.links_in_transit} links): ", "dim")
    flows = sorted(cluster.flows.items(), key=lambda item: (-item[1], item[0]))
    used = sum(len(text) for text, _ in runs.parts)
    text = "  ".join(f"{node_label(src)}→{node_label(dst)} {count}" for (src, dst), count in flows)
    runs.add(fit(text, max(0, width - used)))
    return runs.text()


_HOST_NODES: weakref.WeakKeyDictionary[Replay, dict[str, list[int]]] = weakref.WeakKeyDictionary()


def host_nodes(replay: Replay) -> dict[str, list[int]]:
    """Host -> the nodes that fetched from it over the run (the partition as
    used); computed once per replay."""
    cached = _HOST_NODES.get(replay)
    if cached is None:
        cached = {}
        if replay.cluster is not None:
            for node, hosts in enumerate(replay.cluster.hosts):
                for host in hosts:
                    cached.setdefault(host, []).append(node)
        _HOST_NODES[replay] = cached
    return cached


def host_nodes_cell(replay: Replay, host: str, width: int) -> tuple[str, str]:
    """``n2``: the node that crawls ``host``; ``n0+n2!`` when several do (a
    host split over nodes: each keeps its own per-host limit and gap, so
    together they may break them -- url-hash's politeness problem)."""
    nodes = host_nodes(replay).get(host, [])
    if not nodes:
        return "–".ljust(width), "dim"
    if len(nodes) == 1:
        return node_label(nodes[0]).ljust(width), HEAD_STYLE
    text = "+".join(node_label(k) for k in nodes) + "!"
    if len(text) > width - 1:
        text = f"{len(nodes)} nodes!"
    return text.ljust(width), SPLIT_STYLE


def host_nodes_width(replay: Replay) -> int:
    """Cells for the hosts panel's node column (0: not a cluster)."""
    if replay.cluster is None:
        return 0
    widest = max((len(nodes) for nodes in host_nodes(replay).values()), default=1)
    return 4 if widest == 1 else min(10, max(9, 3 * widest + 2))


def split_count(replay: Replay) -> int:
    """Hosts crawled by more than one node."""
    return sum(1 for nodes in host_nodes(replay).values() if len(nodes) > 1)


def status_runs(view: ViewState) -> list[tuple[str, str]]:
    """The cluster's figures for the status bar's second line: politeness
    violations, when the end was detected after it happened, control
    messages; (a trace's: the node count only -- the run is not there)."""
    replay = view.replay
    if replay.cluster is None:
        return []
    run = view.result.cluster
    if run is None:
        return [(f" · {replay.cluster.count} nodes (from the trace)", "")]
    violations = run.politeness_violations
    return [
        (" · ", ""),
        (f"violations {violations}", "bold red" if violations else "green"),
        (f" · end detected +{run.detection_delay:.2f} s late, {run.control_messages} control msgs", ""),
    ]


def cluster_bounds(result: Result, width: int) -> Text:
    """The bounds panel of a cluster's run: the node bound (which node, which
    host holds it), politeness violations and where, and what detecting the
    end cost."""
    text = Text()
    run = result.cluster
    replay = result.replay
    if run is None:
        count = replay.cluster.count if replay.cluster is not None else 1
        text.append(f"{count} nodes: ", "bold")
        text.append("a trace alone does not say what bounds the finish (bounds need the scenario)", "dim")
        return text
    narrow = width < 120
    _bound_line(text, run, replay, narrow)
    text.append("\n")
    rounds = f"{run.rounds} round{'' if run.rounds == 1 else 's'} of Safra's token"
    text.append(
        f"end detected {run.detection_delay:.2f} s after the true end ({run.control_messages} control msgs)"
        if narrow
        else f"end detected {seconds(run.detected_at)}, {run.detection_delay:.2f} s after the true end "
        f"({run.control_messages} control messages, {rounds}) · {run.messages} messages between nodes",
        "dim",
    )
    if result.note:
        text.append(f"  ({result.note})", "italic yellow")
    return text


def _bound_line(text: Text, run: ClusterRun, replay: Replay, narrow: bool) -> None:
    """The node bound and who holds it, the politeness violations, the split hosts."""
    from crawlsim.cluster.advice import owned
    from crawlsim.cluster.report import busiest_node, node_bounds

    bounds = node_bounds(run)
    top = busiest_node(run)
    bound, host = bounds[top]
    text.append(f"{run.config.nodes} nodes, {run.config.partition}", "bold")
    text.append(f"  node bound {seconds(bound)}", "bold reverse")
    holds = node_label(top) if narrow else f"{node_label(top)} holds it"
    if host:  # url-hash: only a share of the host (the advisor's words)
        what = owned(run.config, host)
        text.append(f" ({holds}: {what if narrow or what != host else 'it owns ' + host})")
    else:
        text.append(f" ({holds})")
    violations = run.politeness_violations
    text.append(f"  {'violations' if narrow else 'politeness violations'} {violations}", "bold red" if violations else "green")
    if violations and not narrow:
        text.append(" (" + ", ".join(f"{h} {n}" for h, n in run.violations_by_host.most_common(3)) + ")", "red")
    split = split_count(replay)
    if split:
        words = "split (! in hosts)" if narrow else "split over nodes (marked ! in hosts)"
        text.append(f"  {split} host{'' if split == 1 else 's'} {words}", "red")


__all__ = [
    "Row",
    "cluster_bounds",
    "host_nodes",
    "host_nodes_cell",
    "host_nodes_width",
    "label_width",
    "lane_label",
    "lane_rows",
    "node_header",
    "split_count",
    "status_runs",
    "transit_line",
]
