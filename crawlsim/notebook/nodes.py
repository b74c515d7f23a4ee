"""The cluster parts of the notebook's crawl picture: nodes, their lanes, their hosts.

A cluster's trace (``Replay(..., nodes=...)``) numbers worker lanes node by
node: node ``k`` owns lanes ``k*W .. (k+1)*W-1``
(:meth:`crawlsim.views.replay_nodes.NodeReplay.slots_of`).  This module draws
what only a cluster has, on the axes :class:`~crawlsim.notebook.draw.CrawlFigure`
already built:

* the lanes grouped per node: ``n0``..``n{N-1}`` beside each group (the
  numbers a scenario's ``fail`` list uses), ``w1``..``wW`` within it, a rule
  between groups;
* a band over a node's lanes while it is down, marked ``DOWN``;
* right of each node's lanes, its frontier and fetches in flight, or DOWN;
* a small panel, right of the graph under its legend: the messages in
  transit, the busiest links between nodes, the hosts split over nodes;
* the node that crawled each host, after the host's label in the graph, and
  the hosts split over several nodes (url-hash's politeness risk) in red.

Everything is read from :class:`crawlsim.views.replay_nodes.NodeReplay`: like the
rest of the drawing it only replays events, it decides nothing.  A
one-process run never builds a :class:`NodeDrawing`, so it draws as it
always did.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from matplotlib.axes import Axes
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import blended_transform_factory

from crawlsim.views import plots
from crawlsim.trace.events import NodeFailed, NodeRecovered
from crawlsim.palette import STATES
from crawlsim.views.replay import Replay
from crawlsim.views.replay_nodes import NodeReplay
from crawlsim.trace.cluster import node_label
from crawlsim.words import counted

if TYPE_CHECKING:
    from crawlsim.cluster.sim import ClusterRun

DOWN_COLOUR = STATES["lost"].hex
"""A down node's band: the colour of its lost fetches (the palette's ``lost``)."""
SPLIT_COLOUR = "#e03131"
"""A host crawled by several nodes: the red of wasted work and broken rules."""
RULE_COLOUR = "#adb5bd"
LANE_TICKS_UP_TO = 16
"""Every lane is labelled w1..wW up to this many lanes; beyond, only the nodes are."""
NODES_BESIDE_LANES = 16
"""Up to this many nodes, each has its figures right of its lanes; beyond,
the panel sums them up (a group of lanes is too thin for a line)."""
FLOWS_LISTED = 3
"""Busiest links between nodes listed in the panel."""
HOSTS_NAMED = 3
"""Nodes named after a split host (more are counted), and down nodes named in the panel."""


@dataclass(frozen=True)
class Outage:
    """One stretch of time a node was down (``end`` None: to the end of the crawl)."""

    node: int
    start: float
    end: float | None


def outages(replay: Replay) -> list[Outage]:
    """Every node's down time, from its ``NodeFailed`` to its ``NodeRecovered``."""
    out: list[Outage] = []
    down: dict[int, float] = {}
    for e in replay.events:
        if isinstance(e, NodeFailed):
            down.setdefault(e.node, e.t)
        elif isinstance(e, NodeRecovered) and e.node in down:
            out.append(Outage(e.node, down.pop(e.node), e.t))
    out.extend(Outage(node, start, None) for node, start in down.items())
    return sorted(out, key=lambda o: (o.start, o.node))


def host_label(host: str, owners: Sequence[str]) -> str:
    """A host's graph label with the node(s) that crawled it: ``a.com · n2``,
    ``b.com · n1+n3 split``, ``h0.example · split over 16 nodes``; a host no
    node fetched keeps its plain name."""
    if not owners:
        return host
    if len(owners) > HOSTS_NAMED:
        return f"{host} · split over {len(owners)} nodes"
    return f"{host} · {'+'.join(owners)}" + (" split" if len(owners) > 1 else "")


def host_owners(cluster: NodeReplay) -> dict[str, list[str]]:
    """Host -> labels of the nodes that fetched from it, in node order."""
    owners: dict[str, list[str]] = {}
    for node, hosts in enumerate(cluster.hosts):
        for host in hosts:
            owners.setdefault(host, []).append(node_label(node))
    return owners


class NodeDrawing:
    """The cluster's artists on a :class:`~crawlsim.notebook.draw.CrawlFigure`:
    built once per run by :meth:`build`, moved in time by :meth:`update`."""

    def __init__(self, replay: Replay) -> None:
        if replay.cluster is None:
            raise ValueError("NodeDrawing draws a cluster's trace: Replay(..., nodes=...)")
        self.replay = replay
        self.cluster: NodeReplay = replay.cluster
        self.outages = outages(replay)
        self.owners = host_owners(self.cluster)
        self.split = set(self.cluster.split_hosts())
        self.node_labels: list[Text] = []
        """One ``n0``..``n{N-1}`` label per node, at the middle of its lanes."""
        self.down_marks: list[Text] = []
        """One ``DOWN`` mark per outage, shown from the failure on."""
        self.node_figures: list[Text] = []
        """Right of each node's lanes: its frontier and fetches in flight, or DOWN."""

    # -- built once ---------------------------------------------------------------

    def build(self, figure: Figure, ax_graph: Axes, ax_lanes: Axes, horizon: float) -> None:
        """Label and rule the lane groups, add the down bands and the panel."""
        self.horizon = horizon
        self._label_lanes(ax_lanes)
        self.bands = PolyCollection([], facecolor=DOWN_COLOUR, alpha=0.28, hatch="//", edgecolor=DOWN_COLOUR,
                                    linewidths=0.0, zorder=3)
        ax_lanes.add_collection(self.bands)
        self.down_marks = [
            ax_lanes.text(o.start, self._middle(o.node), " DOWN", ha="left", va="center", fontsize=7,
                          fontweight="bold", color="white", zorder=6, visible=False,
                          bbox={"boxstyle": "square,pad=0.1", "facecolor": DOWN_COLOUR, "linewidth": 0})
            for o in self.outages
        ]
        at_right = blended_transform_factory(ax_lanes.transAxes, ax_lanes.transData)
        shown = range(self.cluster.count) if self.cluster.count <= NODES_BESIDE_LANES else range(0)
        self.node_figures = [
            ax_lanes.text(1.01, self._middle(node), "", transform=at_right, ha="left", va="center",
                          fontsize=6.5 if self.cluster.count <= 8 else 5.5, family="monospace")
            for node in shown
        ]
        bottom = ax_graph.get_position().y0
        self.panel = figure.text(0.805, bottom, "", ha="left", va="bottom", fontsize=7, family="monospace",
                                 linespacing=1.25)

    def _middle(self, node: int) -> float:
        lanes = self.cluster.slots_of(node)
        return (lanes.start + lanes.stop - 1) / 2

    def _label_lanes(self, ax: Axes) -> None:
        """Lanes ``w1``..``wW`` within each node (all of them while they fit),
        the node's label left of its group, a rule between groups."""
        cluster, count, per = self.cluster, self.cluster.count, self.cluster.workers
        lanes = count * per
        worker_ticks = per > 1 and lanes <= LANE_TICKS_UP_TO  # one worker a node: its node names its lane
        if worker_ticks:
            ax.set_yticks(range(lanes), [plots.worker_name(k % per) for k in range(lanes)], fontsize=6.5)
            x = -0.045
        else:
            ax.set_yticks([])
            x = -0.01
        at_left = blended_transform_factory(ax.transAxes, ax.transData)
        self.node_labels = [
            ax.text(x, self._middle(node), cluster.status[node].label, transform=at_left, ha="right", va="center",
                    fontsize=7.5 if count <= LANE_TICKS_UP_TO else 6, fontweight="bold", color="#212529")
            for node in range(count)
            if count <= 2 * LANE_TICKS_UP_TO or node in (0, count - 1)
        ]
        for node in range(1, count):
            ax.axhline(node * per - 0.5, color=RULE_COLOUR, linewidth=0.8, zorder=4)
        ax.set_ylabel("workers by node", fontsize=8, labelpad=26 if worker_ticks else 20)

    def group_label(self, label: str) -> tuple[str, str | None]:
        """A host block's label in the graph, with its node(s); the colour
        to draw it in when the host was split over nodes (else None)."""
        owners = self.owners.get(label)
        if owners is None:
            return label, None  # a depth block (layout by level), or a host never fetched
        return host_label(label, owners), SPLIT_COLOUR if label in self.split else None

    # -- a moment -------------------------------------------------------------------

    def update(self, t: float) -> None:
        """Down bands and marks up to ``t``; the panel as the replay stands
        (the caller has seeked it to ``t``)."""
        verts = []
        for outage, mark in zip(self.outages, self.down_marks):
            started = outage.start <= t
            mark.set_visible(started)
            if not started:
                continue
            end = min(t if outage.end is None else min(outage.end, t), self.horizon)
            lanes = self.cluster.slots_of(outage.node)
            low, high = lanes.start - 0.5, lanes.stop - 0.5
            verts.append([(outage.start, low), (end, low), (end, high), (outage.start, high)])
        self.bands.set_verts(verts)
        for node, text in enumerate(self.node_figures):
            text.set_text(node_line(self.cluster, node))
            text.set_color(DOWN_COLOUR if not self.cluster.status[node].alive else "#212529")
        self.panel.set_text(panel_text(self.cluster, self.split, summed=not self.node_figures))

    def status(self) -> str:
        """What the figure's status line adds for a cluster: the messages in transit."""
        return transit_text(self.cluster)

    def artists(self) -> list[Text]:
        """The texts :meth:`update` changes (for blitting, with the band collection on the lanes' axes)."""
        return [*self.down_marks, *self.node_figures, self.panel]


def transit_text(cluster: NodeReplay) -> str:
    """``in transit 3 msgs (7 links)``: messages sent and not yet delivered."""
    return f"in transit {cluster.in_transit} msg{'s' if cluster.in_transit != 1 else ''} ({cluster.links_in_transit} links)"


def node_line(cluster: NodeReplay, node: int) -> str:
    """One node's figures beside its lanes: its frontier and fetches in flight, or DOWN."""
    status = cluster.status[node]
    if not status.alive:
        return f"{status.label} DOWN"
    return f"{status.label} frontier {status.frontier} · in flight {status.in_flight}"


def panel_text(cluster: NodeReplay, split: set[str], *, summed: bool = False) -> str:
    """The panel: the nodes summed up when ``summed`` (too many to label
    their lanes), the messages in transit with the busiest links, and the
    hosts split over nodes."""
    lines = [f"{cluster.count} nodes"]
    if summed:
        down = [s.label for s in cluster.status if not s.alive]
        busiest = max(cluster.status, key=lambda s: (s.frontier, -s.index))
        lines.append(f"  largest frontier {busiest.label} {busiest.frontier}")
        if down:
            lines.append(f"  DOWN {', '.join(down[:HOSTS_NAMED])}" + (" ..." if len(down) > HOSTS_NAMED else ""))
    lines.append(transit_text(cluster))
    for (src, dst), count in sorted(cluster.flows.items(), key=lambda kv: (-kv[1], kv[0]))[:FLOWS_LISTED]:
        lines.append(f"  {node_label(src)}→{node_label(dst)} {count}")
    if split:
        named = ", ".join(sorted(split)[:2]) + (" ..." if len(split) > 2 else "")
        lines.append(f"hosts split over nodes: {len(split)}")
        lines.append(f"  {named}")
    return "\n".join(lines)


# -- words: the cluster's figures under the widget's finish time ---------------------


def cluster_lines(run: ClusterRun) -> list[str]:
    """HTML lines for the widget's summary: the partition and politeness
    violations (red when any), messages, when the end was detected, the
    busiest node and its bound, and each node failure."""
    from crawlsim.cluster.report import busiest_node, node_bounds

    violations = f"politeness violations {run.politeness_violations}"
    if run.politeness_violations:
        worst = ", ".join(f"{html.escape(h)} {n}" for h, n in run.violations_by_host.most_common(HOSTS_NAMED))
        violations = f"<span style='color:{SPLIT_COLOUR}'>{violations} ({worst})</span>"
    top = busiest_node(run)
    bound, host = node_bounds(run)[top]
    lines = [
        (f"{run.config.nodes} nodes, {html.escape(run.config.partition)} · {violations} · "
         f"{run.messages} messages ({run.message_bytes:,} bytes)"),
        f"end detected +{run.detection_delay:.2f} s after it happened ({run.control_messages} control messages, "
        f"{run.rounds} token rounds) · busiest node {node_label(top)}: bound {bound:.1f} s"
        + (f" ({html.escape(host)})" if host else ""),
    ]
    for failure in run.failures_seen:
        back = failure.get("recovered_at")
        lines.append(f"<span style='color:{DOWN_COLOUR}'>{node_label(failure['node'])} DOWN at {failure['at']:.1f} s: "
                     f"{counted(failure['urls_lost'], 'URL')} lost" + (f", back at {back:.1f} s" if back is not None else "")
                     + "</span>")
    if run.failures_seen:
        lines.append(f"{run.refetched} page fetches repeated a page already fetched")
    return lines


__all__ = [
    "NodeDrawing",
    "Outage",
    "cluster_lines",
    "host_label",
    "host_owners",
    "node_line",
    "outages",
    "panel_text",
    "transit_text",
]
