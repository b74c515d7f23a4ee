"""Predict, then reveal: compare a student's prediction with what the
simulation measured, and say right or wrong, and why.

A lesson asks a question, the student writes a value in a *prediction cell*
(``my_b = ...`` in the student edition), the next cells run the simulation,
and a *reveal cell* calls :func:`reveal`.  The reveal prints one verdict line
that starts with ``right``, ``wrong`` or ``not predicted yet`` (tests read that
first word), then the reason.  A prediction still left at ``...`` (the student
edition's placeholder) is not an error: the notebook keeps running top to
bottom, and the measured value is withheld until the student has predicted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

NOT_PREDICTED = "not predicted yet"
"""The verdict for a prediction still at the placeholder ``...``."""


@dataclass(frozen=True)
class Verdict:
    """What a reveal found: ``word`` is ``right``, ``wrong`` or
    :data:`NOT_PREDICTED`; ``text`` is everything it printed."""

    word: str
    text: str

    @property
    def right(self) -> bool:
        return self.word == "right"

    def __str__(self) -> str:
        return self.text


def _close(predicted: Any, actual: Any, tolerance: float) -> bool:
    """Equal, or for two numbers within ``tolerance`` (relative to the
    measured value).  A bool is never a number here: ``True == 1``."""
    numbers = (int, float)
    if isinstance(predicted, bool) or isinstance(actual, bool):
        return type(predicted) is type(actual) and predicted == actual
    if isinstance(predicted, str) and isinstance(actual, str):
        return predicted.strip().lower() == actual.strip().lower()
    if isinstance(predicted, numbers) and isinstance(actual, numbers):
        if tolerance == 0:
            return predicted == actual
        return math.isclose(predicted, actual, rel_tol=tolerance, abs_tol=tolerance if actual == 0 else 0.0)
    if isinstance(predicted, (list, tuple)) and isinstance(actual, (list, tuple)):
        return len(predicted) == len(actual) and all(_close(p, a, tolerance) for p, a in zip(predicted, actual))
    return bool(predicted == actual)


def _shown(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.4g}" if abs(value) < 1e6 else f"{value:,.0f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return repr(value)


def judge(
    predicted: Any, actual: Any, why: str = "", *, tolerance: float = 0.0, what: str = "", by: str = "the simulation"
) -> Verdict:
    """The verdict on one prediction (:func:`reveal` prints it).

    ``predicted`` is the student's value (``...`` when not entered yet),
    ``actual`` what the simulation measured, ``why`` the explanation shown
    with the verdict (write it from computed values, so the notebook's source
    does not state the answer), ``tolerance`` a relative error accepted for
    measured numbers, ``what`` names the quantity (``"b"``, ``"the finish time"``),
    ``by`` who measured it."""
    name = f"{what}: " if what else ""
    if predicted is Ellipsis:
        text = (
            f"{NOT_PREDICTED}: {name}write your prediction in the cell above (replace the ...), "
            "run it, then run this cell again."
        )
        verdict = Verdict(NOT_PREDICTED, text)
    else:
        word = "right" if _close(predicted, actual, tolerance) else "wrong"
        approx = f" (within {tolerance:.0%})" if tolerance and word == "right" else ""
        head = f"{word}{approx}: {name}you predicted {_shown(predicted)}, {by} says {_shown(actual)}."
        verdict = Verdict(word, head + (f"\n{why}" if why else ""))
    return verdict


def reveal(
    predicted: Any, actual: Any, why: str = "", *, tolerance: float = 0.0, what: str = "", by: str = "the simulation"
) -> None:
    """Print the verdict on one prediction (see :func:`judge` for the
    arguments).  It prints rather than returns, so a reveal cell shows the
    verdict once whether or not the call is the cell's last line."""
    print(judge(predicted, actual, why, tolerance=tolerance, what=what, by=by).text)
