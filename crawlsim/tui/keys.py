"""The what-if keys for a cluster: ``N``/``M`` more and fewer crawler nodes
(by one up to 8, then doubling and halving, like ``+``/``-`` for workers),
``P`` the next partition of hosts over the nodes.

They work on any scenario (``N`` turns one process into two nodes), but
the key bar lists them only while the run is a cluster, so the app of a
one-process crawl looks exactly as it did before clusters existed; the docs
(docs/tutorials/first-crawl.md) and ``crawlsim tui --help`` name them."""

from __future__ import annotations

from textual.binding import Binding

from crawlsim.views.session import Knobs

NODES_RULE = "crawler nodes (±1 to 8, then ×2 ÷2)"
NODE_BINDINGS = (
    Binding("N", "nodes(1)", "nodes", key_display="N", tooltip=NODES_RULE),
    Binding("M", "nodes(-1)", "nodes", key_display="M", tooltip=NODES_RULE),
    Binding("P", "partition", "partition", key_display="P", tooltip="partition (host-hash, consistent, url-hash, round-robin)"),
)


NODE_ACTIONS = frozenset({"nodes", "partition"})


def unlisted_actions(knobs: Knobs | None) -> frozenset[str]:
    """Actions the key bar leaves out: the node keys unless the run is a cluster."""
    return NODE_ACTIONS if knobs is None or knobs.nodes <= 1 else frozenset()


def node_key_state(action: str, knobs: Knobs | None) -> bool | None:
    """The app's ``check_action`` for the node keys: ``P`` is dimmed on one
    node (there is nothing to partition) and on while there are several;
    every other action: on (None would dim it)."""
    if action == "partition" and knobs is not None and knobs.nodes <= 1:
        return None
    return True


__all__ = ["NODE_ACTIONS", "NODE_BINDINGS", "NODES_RULE", "node_key_state", "unlisted_actions"]
