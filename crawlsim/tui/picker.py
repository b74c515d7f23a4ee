"""The scenario picker: a modal list of the shipped scenarios."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option


class ScenarioPicker(ModalScreen[str | None]):
    """Pick a scenario by name; Enter opens it, Escape keeps the current one.

    Dismisses with the scenario's name (or None)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel"),
        Binding("q", "cancel", "cancel", show=False),
    ]

    def __init__(self, scenarios: list[tuple[str, str]], current: str | None = None) -> None:
        super().__init__()
        self.scenarios = scenarios
        self.current = current

    def compose(self) -> ComposeResult:
        width = max((len(name) for name, _ in self.scenarios), default=8) + 2
        options = []
        for name, title in self.scenarios:
            prompt = Text.assemble((name.ljust(width), "bold"), (title, "dim"), no_wrap=True, overflow="ellipsis")
            options.append(Option(prompt, id=name))
        with Vertical(id="picker"):
            yield Label("Open a scenario  (↑/↓, Enter; Esc to cancel)", id="picker-title")
            yield OptionList(*options, id="picker-list")

    def on_mount(self) -> None:
        listing = self.query_one(OptionList)
        names = [name for name, _ in self.scenarios]
        if self.current in names:
            listing.highlighted = names.index(self.current)
        listing.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
