"""Fetch latency models.

A simulated fetch lasts ``model.sample(rng)`` seconds.  The driver owns the
``random.Random`` (seeded from the scenario), so a run is reproducible and
two hosts never share hidden state.  ``mean`` and ``median`` exist because the
lower-bound code needs one representative latency per host without sampling.

Scenario files write a model as a bare number (fixed seconds) or a table::

    latency = 1.0
    latency = {model = "uniform", low = 0.5, high = 1.5}
    latency = {model = "lognormal", median = 2.0, sigma = 0.5}
"""

from __future__ import annotations

import math
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, ClassVar, NamedTuple

from crawlsim.core.options import did_you_mean, show_value
from crawlsim.errors import UsageError

_NV_MAGICCONST = 4 * math.exp(-0.5) / math.sqrt(2.0)
"""The constant of ``random.normalvariate`` (``random.NV_MAGICCONST``), computed as it does."""


class LatencySpecError(UsageError):
    """A latency spec is malformed.  ``key`` is the offending sub-key (``""``
    for the spec itself, ``"median"`` for a field), so a caller can report
    the full dotted path."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}" if key else message)
        self.key = key
        self.message = message


class LatencyModel(ABC):
    """How long one fetch takes, in seconds."""

    model: ClassVar[str]

    @abstractmethod
    def sample(self, rng: random.Random) -> float:
        """One latency drawn with the caller's generator."""

    def sampler(self, rng: random.Random) -> Callable[[], float]:
        """``sample`` bound to ``rng``: each call draws what ``self.sample(rng)``
        would, the same numbers from the same stream.  A simulation draws once
        per fetch (a million times for ``million``), so the models below give
        a function that skips the method calls in between."""
        return partial(self.sample, rng)

    @property
    @abstractmethod
    def mean(self) -> float:
        """Expected latency: the throughput-relevant figure."""

    @property
    @abstractmethod
    def median(self) -> float:
        """Typical latency: the figure a person would quote."""

    @abstractmethod
    def to_spec(self) -> float | dict[str, Any]:
        """The scenario-file form, so a model round-trips through TOML."""


@dataclass(frozen=True)
class Fixed(LatencyModel):
    """Every fetch takes exactly ``value`` seconds: the textbook setting in
    which the lower bounds are exact."""

    value: float
    model: ClassVar[str] = "fixed"

    def __post_init__(self) -> None:
        _check_positive("value", self.value, allow_zero=True)

    def sample(self, rng: random.Random) -> float:
        return float(self.value)

    def sampler(self, rng: random.Random) -> Callable[[], float]:
        value = float(self.value)
        return lambda: value

    @property
    def mean(self) -> float:
        return float(self.value)

    @property
    def median(self) -> float:
        return float(self.value)

    def to_spec(self) -> float:
        return float(self.value)


@dataclass(frozen=True)
class Uniform(LatencyModel):
    """Uniform between ``low`` and ``high``: bounded jitter."""

    low: float
    high: float
    model: ClassVar[str] = "uniform"

    def __post_init__(self) -> None:
        _check_positive("low", self.low, allow_zero=True)
        _check_positive("high", self.high, allow_zero=True)
        if self.high < self.low:
            raise LatencySpecError("high", f"expected a number >= low ({self.low:g}), got {self.high!r}")

    def sample(self, rng: random.Random) -> float:
        return rng.uniform(self.low, self.high)

    def sampler(self, rng: random.Random) -> Callable[[], float]:
        low, high, draw = self.low, self.high, rng.random
        return lambda: low + (high - low) * draw()  # random.Random.uniform, written out

    @property
    def mean(self) -> float:
        return (self.low + self.high) / 2

    @property
    def median(self) -> float:
        return (self.low + self.high) / 2

    def to_spec(self) -> dict[str, Any]:
        return {"model": self.model, "low": self.low, "high": self.high}


class LogNormal(LatencyModel):
    """Log-normal around ``median`` with shape ``sigma``: the long right tail
    real response times have (most fetches quick, a few very slow)."""

    model: ClassVar[str] = "lognormal"
    __slots__ = ("_median", "_mu", "sigma")

    def __init__(self, median: float, sigma: float = 0.5) -> None:
        _check_positive("median", median)
        _check_positive("sigma", sigma, allow_zero=True)
        self._median = float(median)
        self.sigma = float(sigma)
        self._mu = math.log(self._median)

    def sample(self, rng: random.Random) -> float:
        return rng.lognormvariate(self._mu, self.sigma)

    def sampler(self, rng: random.Random) -> Callable[[], float]:
        """``rng.lognormvariate(mu, sigma)`` written out: ``exp`` of
        ``normalvariate``'s Kinderman-Monahan draw, the same operations on the
        same ``rng.random()`` numbers, so the same floats (a test compares
        them with ``sample`` over many seeds)."""
        mu, sigma, draw = self._mu, self.sigma, rng.random
        log, exp = math.log, math.exp

        def lognormal() -> float:
            while True:
                u1 = draw()
                u2 = 1.0 - draw()
                z = _NV_MAGICCONST * (u1 - 0.5) / u2
                if z * z / 4.0 <= -log(u2):
                    return exp(mu + z * sigma)

        return lognormal

    @property
    def mean(self) -> float:
        return self._median * math.exp(self.sigma**2 / 2)

    @property
    def median(self) -> float:
        return self._median

    def to_spec(self) -> dict[str, Any]:
        return {"model": self.model, "median": self._median, "sigma": self.sigma}

    def __repr__(self) -> str:
        return f"LogNormal(median={self._median!r}, sigma={self.sigma!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LogNormal) and (self._median, self.sigma) == (other._median, other.sigma)

    def __hash__(self) -> int:
        return hash((LogNormal, self._median, self.sigma))


class _ModelKind(NamedTuple):
    """How a scenario file writes one latency model, and how it is built."""

    fields: tuple[str, ...]
    """Its keys beside ``model``, in the order they are checked."""
    build: Callable[[dict[str, float]], LatencyModel]
    optional: tuple[str, ...] = ()
    """Keys that may be left out (the model's default applies)."""
    positive: tuple[str, ...] = ()
    """Keys that must be above 0 (the others may be 0)."""


_KINDS: dict[str, _ModelKind] = {
    "fixed": _ModelKind(("value",), lambda v: Fixed(v["value"])),
    "uniform": _ModelKind(("low", "high"), lambda v: Uniform(v["low"], v["high"])),
    "lognormal": _ModelKind(
        ("median", "sigma"),
        lambda v: LogNormal(v["median"], v.get("sigma", 0.5)),
        optional=("sigma",),
        positive=("median",),
    ),
}

MODELS: dict[str, tuple[str, ...]] = {name: kind.fields for name, kind in _KINDS.items()}
"""Each model's field names as written in a scenario file."""


def latency_from_spec(spec: object) -> LatencyModel:
    """Build a model from its scenario-file form; :class:`LatencySpecError`
    names the bad sub-key and what was expected."""
    if isinstance(spec, bool) or not isinstance(spec, (int, float, Mapping)):
        raise LatencySpecError(
            "",
            "expected seconds as a number, or a table such as "
            f'{{model = "lognormal", median = 2.0, sigma = 0.5}}; got {show_value(spec)}',
        )
    if not isinstance(spec, Mapping):
        return Fixed(float(_number("", spec, allow_zero=True)))
    model = _model_name(spec)
    kind = _KINDS[model]
    _check_keys(spec, model, kind)
    values = {k: _number(k, spec[k], allow_zero=k not in kind.positive) for k in kind.fields if k in spec}
    return kind.build(values)


def _model_name(spec: Mapping[str, Any]) -> str:
    """The table's ``model``, which must name one of :data:`MODELS`."""
    model = spec.get("model")
    if model is None:
        raise LatencySpecError("model", f"missing; expected one of {', '.join(MODELS)}")
    if model not in MODELS:
        hint = did_you_mean(str(model), MODELS) if isinstance(model, str) else ""
        raise LatencySpecError("model", f"expected one of {', '.join(MODELS)}; got {show_value(model)}{hint}")
    return str(model)


def _check_keys(spec: Mapping[str, Any], model: str, kind: _ModelKind) -> None:
    """No key the model does not have; every key it needs."""
    names = kind.fields
    for key in spec:
        if key != "model" and key not in names:
            raise LatencySpecError(
                key, f"unknown key for a {model} latency{did_you_mean(key, names)}; expected {', '.join(names)}"
            )
    for key in names:
        if key not in kind.optional and key not in spec:
            raise LatencySpecError(key, f"missing; a {model} latency needs {', '.join(names)}")


@dataclass(frozen=True)
class LatencyTable:
    """Per-host latency models with a default for every other host."""

    default: LatencyModel = field(default_factory=lambda: DEFAULT_LATENCY)
    hosts: Mapping[str, LatencyModel] = field(default_factory=dict)

    def for_host(self, host: str) -> LatencyModel:
        """The model for ``host``; a port or a leading ``www.`` is ignored
        when the exact host has no entry (they are spellings of one server)."""
        host = host.lower()
        found = self.hosts.get(host)
        if found is None and ":" in host:
            host = host.rsplit(":", 1)[0]
            found = self.hosts.get(host)
        if found is None and host.startswith("www."):
            found = self.hosts.get(host[4:])
        return found if found is not None else self.default


def _number(key: str, value: object, *, allow_zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise LatencySpecError(key, f"expected a number of seconds, got {show_value(value)}")
    _check_positive(key, value, allow_zero=allow_zero)
    return float(value)


MAX_LATENCY = 3600.0
"""An hour: the longest latency (or median) a model may have.  Beyond it
nothing a crawl does is worth simulating, and sums of such figures print as
``inf``."""
MAX_SIGMA = 3.0
"""A log-normal's largest shape: e**(3**2/2) already makes the mean 90x the median."""


def _check_positive(key: str, value: float, *, allow_zero: bool = False) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise LatencySpecError(key, f"expected a finite number, got {show_value(value)}")
    limit = MAX_SIGMA if key == "sigma" else MAX_LATENCY
    if value > limit:
        raise LatencySpecError(key, f"expected a number <= {limit:g}, got {value!r}")
    if value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise LatencySpecError(key, f"expected a number {bound}, got {value!r}")


DEFAULT_LATENCY: LatencyModel = Fixed(1.0)
"""One second: used for any host a scenario gives no latency."""

__all__ = [
    "DEFAULT_LATENCY",
    "MODELS",
    "Fixed",
    "LatencyModel",
    "LatencySpecError",
    "LatencyTable",
    "LogNormal",
    "Uniform",
    "latency_from_spec",
    "show_value",
]
