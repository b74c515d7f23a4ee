"""Which what-if crawls the page holds, and how the keys move between them.

The page cannot run a crawl, so every setting its keys can reach is
simulated when the file is written, each by the app's own
:func:`~crawlsim.views.session.run_session`, so every figure is the one
``crawlsim run`` prints for the same options.  The settings are the
terminal app's :class:`~crawlsim.views.session.Knobs` and the keys are its
methods (``n`` :meth:`~Knobs.cycle_normalize`, ``+`` :meth:`~Knobs.more_workers`,
...): the page only follows a table from setting to setting, so it has no
knob rule of its own either.

An :class:`Offer` is the values the page offers per knob.  The full offer
(every normalization, workers 1-8, polite on and off, the gap ladder, every
order) is a few hundred crawls of a small web; a web whose crawls take long
gets a smaller offer, knob by knob (other orders first, then other gaps,
other normalizations, then workers beyond one step either way), until the
estimate fits the budget, and :attr:`Offer.line` says in one line what the
page offers and what it does not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from crawlsim.views.session import (
    GAP_LADDER,
    NORMALIZE_CYCLE,
    ORDER_CHOICES,
    Knobs,
    normalize_label,
    order_label,
    step_workers,
)

KEYS: dict[str, Callable[[Knobs], Knobs]] = {
    "n": Knobs.cycle_normalize,
    "+": Knobs.more_workers,
    "-": Knobs.fewer_workers,
    "p": Knobs.toggle_polite,
    "[": Knobs.gap_down,
    "]": Knobs.gap_up,
    "o": Knobs.next_order,
}
"""The app's what-if keys, each the Knobs method it calls."""
WORKERS_BY_ONE = 8


@dataclass(frozen=True)
class Offer:
    """The values of each knob the page offers."""

    workers: tuple[int, ...]
    polite: tuple[bool, ...]
    gaps: tuple[float, ...]
    normalize: tuple[str, ...]
    orders: tuple[str, ...]
    left_out: tuple[str, ...] = ()
    """What a smaller offer gave up, in words (``other orders``)."""

    def holds(self, knobs: Knobs) -> bool:
        return (
            knobs.workers in self.workers
            and knobs.polite in self.polite
            and (not knobs.polite or knobs.gap in self.gaps)
            and normalize_label(knobs.normalize) in self.normalize
            and knobs.order_choice in self.orders
        )

    def describe(self) -> str:
        """``workers 1-8, polite on/off, gap 0-10 s, 4 normalizations, 5 orders``."""
        workers = _span_text(self.workers)
        polite = "polite on/off" if len(self.polite) > 1 else f"polite {'on' if self.polite[0] else 'off'}"
        gaps = f"gap {_span_text(self.gaps)} s" if len(self.gaps) > 1 else f"gap {self.gaps[0]:g} s"
        norms = f"{len(self.normalize)} normalizations" if len(self.normalize) > 1 else f"normalize {self.normalize[0]}"
        orders = f"{len(self.orders)} orders" if len(self.orders) > 1 else f"order {self.orders[0]}"
        return f"workers {workers}, {polite}, {gaps}, {norms}, {orders}"


def _span_text(values: Iterable[float]) -> str:
    """``1-8, 16`` (runs of whole numbers joined), ``0, 0.25, 0.5, 1`` (a
    few others), ``0-10 (20 values)`` (many)."""
    ordered = sorted(values)
    whole = all(v == int(v) for v in ordered)
    pieces: list[list[float]] = []
    for v in ordered:
        if pieces and whole and v == pieces[-1][-1] + 1:
            pieces[-1].append(v)
        else:
            pieces.append([v])
    if len(pieces) <= 8:
        return ", ".join(f"{p[0]:g}" if len(p) == 1 else f"{p[0]:g}-{p[-1]:g}" for p in pieces)
    return f"{ordered[0]:g}-{ordered[-1]:g} ({len(ordered)} values)"


def full_offer(start: Knobs) -> Offer:
    """Everything the keys reach on a small web: workers 1-8 (and the
    scenario's own count), both polite modes, the gap ladder (and the
    scenario's gap), every normalization and order."""
    workers = {*range(1, WORKERS_BY_ONE + 1), start.workers}
    w = WORKERS_BY_ONE
    while w < start.workers:  # the doubling rungs up to the scenario's own count
        up = step_workers(w, 1)
        if up <= w:  # the ladder's top (the app's largest count) is below the scenario's own
            break
        w = up
        workers.add(w)
    return Offer(
        workers=tuple(sorted(workers)),
        polite=(True, False),
        gaps=tuple(sorted({*GAP_LADDER, start.gap})),
        normalize=tuple(dict.fromkeys([*NORMALIZE_CYCLE, normalize_label(start.normalize)])),
        orders=tuple(dict.fromkeys([*ORDER_CHOICES, start.order_choice])),
    )


def smaller_offers(start: Knobs) -> list[Offer]:
    """The offers to try, largest first, each giving up one more knob."""
    offer = full_offer(start)
    out = [offer]
    near = {step_workers(start.workers, -1), start.workers, step_workers(start.workers, 1)}
    for words, change in (
        ("other orders", {"orders": (start.order_choice,)}),
        ("other gaps", {"gaps": (start.gap,)}),
        ("other normalizations", {"normalize": (normalize_label(start.normalize),)}),
        ("workers beyond one step either way", {"workers": tuple(sorted(near))}),
        ("the other polite mode", {"polite": (start.polite,), "workers": (start.workers,)}),
    ):
        offer = replace(offer, **change, left_out=(*offer.left_out, words))  # type: ignore[arg-type]
        out.append(offer)
    return out


@dataclass(frozen=True)
class Grid:
    """The settings the page holds and the keys between them.

    ``states[i]`` is a setting; ``moves[i][key]`` the index its key leads to
    and what changed in the app's words (``workers 4→5``), or None when that
    setting was not simulated (outside the offer), and -1 when the key
    changes nothing there (the end of a ladder)."""

    offer: Offer
    states: list[Knobs]
    moves: list[dict[str, tuple[int, str] | int | None]]

    def runs(self) -> dict[tuple[object, ...], list[int]]:
        """States that are one crawl (the same options: polite off ignores
        the gap), by the options they stand for."""
        groups: dict[tuple[object, ...], list[int]] = {}
        for i, knobs in enumerate(self.states):
            groups.setdefault(run_key(knobs), []).append(i)
        return groups


def run_key(knobs: Knobs) -> tuple[object, ...]:
    """What makes two settings the same crawl: the options they apply."""
    return tuple(sorted((k, repr(v)) for k, v in knobs.overrides().items()))


def build_grid(start: Knobs, offer: Offer) -> Grid:
    """Every setting the keys reach from ``start`` within ``offer``."""
    states = [start]
    index = {start: 0}
    moves: list[dict[str, tuple[int, str] | int | None]] = []
    i = 0
    while i < len(states):
        knobs = states[i]
        row: dict[str, tuple[int, str] | int | None] = {}
        for key, turn in KEYS.items():
            turned = turn(knobs)
            if turned == knobs:
                row[key] = -1
            elif not offer.holds(turned):
                row[key] = None
            else:
                if turned not in index:
                    index[turned] = len(states)
                    states.append(turned)
                row[key] = (index[turned], turned.diff(knobs))
        moves.append(row)
        i += 1
    return Grid(offer, states, moves)


def knobs_text(knobs: Knobs) -> dict[str, str]:
    """Each knob's value as the page's controls show it."""
    return {
        "n": normalize_label(knobs.normalize),
        "w": str(knobs.workers),
        "p": f"on (per-host {knobs.per_host})" if knobs.polite else "off",
        "g": f"{knobs.gap:g} s",
        "o": order_label(knobs),
        "all": knobs.describe(),
    }


__all__ = ["KEYS", "Grid", "Offer", "build_grid", "full_offer", "knobs_text", "run_key", "smaller_offers"]
