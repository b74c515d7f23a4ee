"""Termination detection: Safra's token ring (Dijkstra's EWD998).

A distributed crawl is over when every node is idle -- empty frontier,
nothing in flight, no retry pending, no links waiting in an outbox -- *and*
no message is in transit.  No node can see the second half: a node that is
idle now may receive links sent a moment ago.  Safra's algorithm detects
the end with one token and a counter per node:

* every node counts basic messages sent minus received (``counter``); a node
  that receives a message turns black;
* node 0 starts a probe by sending a white token with ``q = 0`` to node
  N-1; a node passes the token on (to i-1) only while it is idle, adding its
  counter to ``q`` and blackening the token if the node is black; it then
  turns white;
* when the token is back at node 0 and node 0 is idle: if the token and
  node 0 are white and ``q + counter[0] == 0`` the crawl is over; otherwise
  node 0 starts a new probe.

Why never early (EWD998's invariant, in short).  While a probe is out,
call the nodes the token has passed "visited".  One of these holds:
(P0) every visited node is idle and ``q`` is the sum of their counters;
(P1) ``q`` plus the unvisited nodes' counters is above 0 (a message is on
its way to a visited node); (P2) an unvisited node is black; (P3) the token
is black.  A message that wakes a visited node was sent by an active node
and turns its receiver black, which keeps P1, P2 or P3 true.  When the token
is back at node 0, idle and white, with a white token: P2 and P3 are false
(node 0 is the only unvisited node), and ``q + counter[0] == 0`` rules out
P1; so P0: every node is idle, and the counters sum to 0 -- every message
sent was received.  ``tests/test_cluster.py`` checks it over random webs
and latencies: the detection time is never before the true end.

The cost: each token hop is one control message with the link's latency;
the detection delay is at least one full round (N hops) after the last
node fell idle, more when a round was spoiled by late messages.
"""

from __future__ import annotations

from collections.abc import Callable


class SafraRing:
    """The token ring of ``nodes`` nodes; the driver calls :meth:`sent`,
    :meth:`received` and :meth:`idle` (after any activity on a node) and
    delivers the token with ``send_token(src, dst, arrive)``."""

    def __init__(
        self,
        nodes: int,
        is_idle: Callable[[int], bool],
        send_token: Callable[[int, int, Callable[[float], None]], None],
        on_detect: Callable[[float], None] | None = None,
    ) -> None:
        self.nodes = nodes
        self.counter = [0] * nodes
        self.black = [False] * nodes
        self.is_idle = is_idle
        self._send = send_token
        self._on_detect = on_detect
        self.holder: int | None = 0
        """The node holding the token (None: the token is in transit)."""
        self.q = 0
        self.token_black = False
        self.probing = False
        """A probe is out (the token left node 0 and has not been judged)."""
        self.alive = [True] * nodes
        """A failed node is skipped by the token; its counter still counts
        (messages it sent may still arrive; those sent to it are dropped,
        see :meth:`dropped`)."""
        self.control_messages = 0
        self.rounds = 0
        self.detected_at: float | None = None

    def sent(self, node: int) -> None:
        self.counter[node] += 1

    def received(self, node: int) -> None:
        self.counter[node] -= 1
        self.black[node] = True

    def dropped(self, node: int) -> None:
        """A message reached ``node`` after it failed and was lost: it is no
        longer in transit (the node is not woken, so it stays white)."""
        self.counter[node] -= 1

    def failed(self, node: int) -> None:
        self.alive[node] = False

    def recovered(self, node: int) -> None:
        """``node`` restarts with work and no message woke it: Safra's model
        has no such step, so the node tells the detector, which spoils the
        probe in progress (the node may already have been visited)."""
        self.alive[node] = True
        self.black[node] = True
        self.token_black = True

    def idle(self, node: int, now: float) -> None:
        """``node`` may have become idle at ``now``: pass the token on if it holds it."""
        if self.holder != node or self.detected_at is not None or not self.is_idle(node):
            return
        if node == 0:
            self._at_initiator(now)
            return
        self.q += self.counter[node]
        self.token_black = self.token_black or self.black[node]
        self.black[node] = False
        self._pass(node, node - 1)

    def _at_initiator(self, now: float) -> None:
        if self.probing:
            self.probing = False
            if not self.token_black and not self.black[0] and self.q + self.counter[0] == 0:
                self._detect(now)
                return
        if self.nodes == 1:  # a ring of one: idle and no messages is the end
            self._detect(now)
            return
        self.rounds += 1
        self.probing = True
        self.q = 0
        self.token_black = False
        self.black[0] = False
        self._pass(0, self.nodes - 1)

    def _detect(self, now: float) -> None:
        self.detected_at = now
        if self._on_detect is not None:
            self._on_detect(now)

    def _pass(self, src: int, dst: int) -> None:
        while dst > 0 and not self.alive[dst]:  # a failed node's share of the count, read by the sender
            self.q += self.counter[dst]
            self.token_black = self.token_black or self.black[dst]
            self.black[dst] = False
            dst -= 1
        self.holder = None
        self.control_messages += 1

        def arrive(now: float) -> None:
            self.holder = dst
            self.idle(dst, now)

        self._send(src, dst, arrive)


__all__ = ["SafraRing"]
