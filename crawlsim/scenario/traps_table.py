"""The ``[[traps]]`` tables: calendar and session traps, linked from the rest of the web."""

from __future__ import annotations

from datetime import date

from crawlsim.core.options import did_you_mean
from crawlsim.scenario.checks import Checks
from crawlsim.sim.compose import CombinedWeb
from crawlsim.sim.latency import show_value
from crawlsim.sim.traps import CalendarTrap, SessionTrap
from crawlsim.sim.web import Web


TRAP_KEYS: dict[str, tuple[str, ...]] = {
    "calendar": ("kind", "host", "prefix", "start", "linked_from"),
    "session": ("kind", "host", "prefix", "items", "linked_from"),
}

class TrapsTable(Checks):
    """``[[traps]]`` -> trap webs, and the web they are combined into."""

    def traps(self, value: object, seed: int) -> tuple[list[Web], dict[str, list[str]]]:
        """The traps, and the links that lead into them by page (``linked_from``)."""
        if not isinstance(value, list):
            raise self.fail("traps", f"expected [[traps]] tables (a list), got {show_value(value)}")
        traps: list[Web] = []
        entries: dict[str, list[str]] = {}
        for i, spec in enumerate(value):
            where = f"traps[{i}]"
            spec = self.table(spec, where, '{kind = "calendar", host = "a.com"}')
            kind = spec.get("kind")
            if kind not in TRAP_KEYS:
                hint = did_you_mean(kind, TRAP_KEYS) if isinstance(kind, str) else ""
                raise self.fail(
                    f"{where}.kind", f"expected one of {', '.join(TRAP_KEYS)}; got {show_value(kind)}{hint}"
                )
            self.known(spec, TRAP_KEYS[kind], "traps", i)
            host = self.host(spec.get("host", "a.com"), f"{where}.host")
            prefix = self.string(spec.get("prefix", "/cal/" if kind == "calendar" else "/shop"), f"{where}.prefix")
            if not prefix.startswith("/") or prefix.strip("/") == "":
                raise self.fail(f"{where}.prefix", f'expected a path such as "/cal/", got {show_value(prefix)}')
            trap: CalendarTrap | SessionTrap
            if kind == "calendar":
                trap = CalendarTrap(host, prefix, self.day(spec.get("start", date(2024, 1, 1)), f"{where}.start"))
            else:
                items = self.integer(spec.get("items", 5), f"{where}.items", minimum=1, maximum=10_000)
                trap = SessionTrap(host, prefix, items, seed=seed)
            linked_from = self.url(spec.get("linked_from", f"http://{host}/"), f"{where}.linked_from")
            entries.setdefault(linked_from, []).append(trap.entry)
            self._traps.append((where, kind))
            self._trap_of.setdefault(linked_from, i)
            traps.append(trap)
        return traps, entries

    def combine(self, parts: list[Web], entries: dict[str, list[str]]) -> Web:
        if len(parts) == 1 and not entries:
            return parts[0]
        probe = CombinedWeb(parts)
        for url, i in self._trap_of.items():
            loc = probe._locate(url)
            if loc is None or loc[2] is None:
                raise self.fail(
                    f"traps[{i}].linked_from",
                    f"no page {show_value(url)} in this web to link the trap from; name one of its pages",
                )
        return CombinedWeb(parts, entries)


__all__ = ["TRAP_KEYS", "TrapsTable"]
