"""Re-crawling for freshness: what a crawl looks like once it never ends.

The scheduler in :mod:`crawlsim.core` fetches each page once -- the seen set
guarantees it, and that is what makes a crawl finish.  A live crawler keeps
going: the pages it has already stored change, and a stored copy is only
worth something while it still matches the page.  This module models just
that revisit decision, so a lesson can measure it: which known page to fetch
*again*, given a fixed budget of fetches per day.  It is not a second crawl
scheduler -- there is no discovery, no politeness and no seen set here; the
pages are a fixed list, each with a rate of change.

The model (Cho and Garcia-Molina's):

* page ``i`` changes as a Poisson process, ``rate[i]`` changes per day;
* the crawler makes ``budget`` fetches per day, one every ``1 / budget`` days;
* a stored copy is *fresh* from its fetch until the page's next change;
* freshness is the fraction of pages whose stored copy is fresh (a page never
  fetched has no copy: stale).

Poisson changes are memoryless, so the time from a fetch to the page's next
change is ``Exp(rate)`` whatever happened before: each fetch's fresh time is
sampled exactly as ``min(Exp(rate), time to the next fetch)``, with no clock
ticking in between.  Revisiting a page every ``1 / f`` days keeps it fresh
for the fraction

    F(rate, f) = (f / rate) * (1 - exp(-rate / f))

of the time, which :func:`expected_freshness` computes and the lessons test
the simulation against.
"""

from __future__ import annotations

import heapq
import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

POLICIES = ("once", "uniform", "proportional", "optimal")
"""How the budget is shared: ``once`` fetches every page once and stops (the
"a crawl finishes" picture); ``uniform`` revisits every page equally often;
``proportional`` revisits each page in proportion to how often it changes;
``optimal`` uses the frequencies that maximize expected freshness
(:func:`optimal_frequencies`)."""


MAX_FETCHES = 10_000_000
"""The most fetches one :func:`revisit` simulates (each is a list entry)."""


@dataclass(frozen=True)
class FreshnessRun:
    """What one revisit policy achieved over ``days``."""

    policy: str
    frequencies: tuple[float, ...]
    """Revisits per day given to each page (``once``: 0 after its one fetch)."""
    fetches: tuple[int, ...]
    """Fetches of each page over the whole run."""
    average: float
    """Time-average fraction of fresh pages from ``warmup`` to the end."""
    at_end: float
    """Fraction of pages fresh at the last instant."""


def expected_freshness(rate: float, frequency: float) -> float:
    """The long-run fraction of time a page changing ``rate`` times a day is
    fresh when fetched ``frequency`` times a day at even intervals."""
    if frequency <= 0:
        return 0.0
    if rate <= 0:
        return 1.0
    x = rate / frequency
    return (1.0 - math.exp(-x)) / x


def uniform_frequencies(rates: Sequence[float], budget: float) -> list[float]:
    """Every page revisited equally often."""
    return [budget / len(rates)] * len(rates)


def proportional_frequencies(rates: Sequence[float], budget: float) -> list[float]:
    """Each page revisited in proportion to its rate of change."""
    total = sum(rates)
    if total <= 0:
        raise ValueError("a proportional share needs at least one page that changes (a rate > 0)")
    return [budget * r / total for r in rates]


def _frequency_at(rate: float, price: float) -> float:
    """The frequency at which one more revisit per day of this page gains
    exactly ``price`` in freshness (the page's share at multiplier ``price``).

    The gain per revisit, ``dF/df = (1 - e^-x (1 + x)) / rate`` with
    ``x = rate / f``, falls from ``1 / rate`` (no revisits) towards 0, so a
    page whose very first revisit gains no more than ``price`` gets none:
    it changes too fast to be worth chasing."""
    if rate * price >= 1.0:
        return 0.0
    low, high = 0.0, 1.0
    while 1.0 - math.exp(-high) * (1.0 + high) < rate * price:
        high *= 2.0
    for _ in range(60):
        mid = (low + high) / 2.0
        if 1.0 - math.exp(-mid) * (1.0 + mid) < rate * price:
            low = mid
        else:
            high = mid
    return rate / high


def optimal_frequencies(rates: Sequence[float], budget: float) -> list[float]:
    """The frequencies that maximize the expected total freshness
    ``sum F(rate_i, f_i)`` with ``sum f_i = budget`` (rates must be > 0).

    ``F`` is concave in ``f``, so the optimum gives every page the same
    marginal gain (a Lagrange multiplier, found by bisection): pages that
    change too fast get nothing at all."""
    if min(rates) <= 0:
        raise ValueError("optimal frequencies need every rate > 0")
    counts = Counter(rates)  # pages of one rate get one frequency: solve once per rate
    low, high = 0.0, 2.0 / min(rates)  # at 1 / min(rates) itself rounding may still give a page some f
    for _ in range(200):
        price = (low + high) / 2.0
        if price in (low, high):
            break  # adjacent floats: the bracket cannot shrink further
        if sum(n * _frequency_at(r, price) for r, n in counts.items()) > budget:
            low = price
        else:
            high = price
    # The two ends of the bracket differ only for pages whose gain curve is
    # flat at this price (a page changing much faster than it is visited
    # gains about 1 / rate per visit, whatever f): there a tiny change of
    # price moves f a lot.  ``high`` spends at most the budget, ``low`` at
    # least; the blend of the two that spends it exactly gives the remainder
    # to those flat pages and leaves every other page's share as it is.
    at_low = {r: _frequency_at(r, low) for r in counts}
    at_high = {r: _frequency_at(r, high) for r in counts}
    spent_low = sum(n * at_low[r] for r, n in counts.items())
    spent_high = sum(n * at_high[r] for r, n in counts.items())
    blend = (budget - spent_high) / (spent_low - spent_high) if spent_low > spent_high else 0.0
    return [at_high[r] + blend * (at_low[r] - at_high[r]) for r in rates]


def _revisit_order(frequencies: Sequence[float], slots: int) -> list[int]:
    """Which page each fetch slot serves: the earliest due page goes next,
    and is due again ``1 / f`` after its previous due time.  Pages with
    ``f = 0`` are never fetched.

    First due times are spread over each page's own interval (a golden-ratio
    sequence): if every page were due at time 0, pages of one frequency would
    stay due together forever, and their bursts would delay everyone else's
    revisits -- uneven intervals, which cost freshness."""
    golden = (math.sqrt(5.0) - 1.0) / 2.0
    heap = [(((i * golden) % 1.0) / f, i) for i, f in enumerate(frequencies) if f > 0]
    heapq.heapify(heap)
    order = []
    for _ in range(slots):
        if not heap:
            break
        due, page = heapq.heappop(heap)
        order.append(page)
        heapq.heappush(heap, (due + 1.0 / frequencies[page], page))
    return order


def _frequencies(policy: str, rates: Sequence[float], budget: float) -> list[float]:
    if policy == "optimal":
        return optimal_frequencies(rates, budget)
    if policy == "proportional":
        return proportional_frequencies(rates, budget)
    return uniform_frequencies(rates, budget)


def revisit(
    rates: Sequence[float], budget: float, days: float, policy: str, *, warmup: float = 0.0, seed: int = 0
) -> FreshnessRun:
    """Run one revisit policy for ``days`` (see the module docstring).

    ``rates`` are changes per day for each page, ``budget`` fetches per day,
    ``warmup`` the days left out of the average (the first pass, when most
    pages have no copy yet), ``seed`` the random changes (same seed, same
    changes: policies compared on one seed face the same luck)."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; expected one of {', '.join(POLICIES)}")
    if not rates or budget <= 0 or days <= 0 or not 0 <= warmup < days:
        raise ValueError("need at least one page, budget > 0, days > 0 and 0 <= warmup < days")
    slots = int(budget * days)
    if slots > MAX_FETCHES:
        raise ValueError(f"budget x days is {slots:,} fetches; this model simulates at most {MAX_FETCHES:,}")
    if policy == "once":
        frequencies = [0.0] * len(rates)
        order = list(range(min(len(rates), slots)))
    else:
        frequencies = _frequencies(policy, rates, budget)
        order = _revisit_order(frequencies, slots)
    return _measure(policy, rates, budget, days, warmup, frequencies, order, random.Random(seed))


def _measure(
    policy: str,
    rates: Sequence[float],
    budget: float,
    days: float,
    warmup: float,
    frequencies: Sequence[float],
    order: Sequence[int],
    rng: random.Random,
) -> FreshnessRun:
    """Sample each fetch's fresh time and add up the fresh page-days."""
    fetch_times: list[list[float]] = [[] for _ in rates]
    for slot, page in enumerate(order):
        fetch_times[page].append(slot / budget)
    fresh_days = 0.0
    fresh_at_end = 0
    for page, times in enumerate(fetch_times):
        for k, start in enumerate(times):
            stop = times[k + 1] if k + 1 < len(times) else days
            lasts = rng.expovariate(rates[page]) if rates[page] > 0 else math.inf
            fresh_until = min(start + lasts, stop)
            fresh_days += max(0.0, fresh_until - max(start, warmup))
            if k + 1 == len(times) and start + lasts > days:
                fresh_at_end += 1
    pages = len(rates)
    return FreshnessRun(
        policy=policy,
        frequencies=tuple(frequencies),
        fetches=tuple(len(t) for t in fetch_times),
        average=min(1.0, fresh_days / (pages * (days - warmup))),  # float sums may overshoot 1 by an ulp
        at_end=fresh_at_end / pages,
    )
