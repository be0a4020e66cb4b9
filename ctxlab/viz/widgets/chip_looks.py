"""The looks a view's chips share: two layouts (selected or not) and one style per state."""

from __future__ import annotations

import ipywidgets as widgets

from ...core.ledger import LedgerEntry
from .chips import chip_label, chip_tooltip, state_color, text_color
from .render import chip_classes

SELECTED = "2px solid #000000"
UNSELECTED = "2px solid transparent"


class ChipLooks:
    """Every chip of a view shares two layouts (selected or not) and one style per state:
    one widget model per chip instead of three, so a long conversation's hundreds of chips
    reach the browser sooner."""

    def __init__(self) -> None:
        self._layouts: dict[bool, widgets.Layout] = {}
        self._styles: dict[str, widgets.ButtonStyle] = {}

    def layout(self, selected: bool) -> widgets.Layout:
        if selected not in self._layouts:
            self._layouts[selected] = widgets.Layout(
                width="auto", height="24px", margin="2px", padding="0 8px",
                border=SELECTED if selected else UNSELECTED)
        return self._layouts[selected]

    def style(self, state: str) -> widgets.ButtonStyle:
        if state not in self._styles:
            color = state_color(state)
            self._styles[state] = widgets.ButtonStyle(button_color=color,
                                                      text_color=text_color(color))
        return self._styles[state]

    def looks(self, entry: LedgerEntry) -> dict[str, object]:
        """The traits that show ``entry`` on a chip: label, tooltip, its state's style,
        not selected."""
        return {"description": chip_label(entry), "tooltip": chip_tooltip(entry),
                "style": self.style(entry.state), "layout": self.layout(False),
                "_dom_classes": chip_classes(entry)}

    def make(self, entry: LedgerEntry) -> widgets.Button:
        """A chip showing ``entry``, born dressed (one widget message, not five)."""
        return widgets.Button(**self.looks(entry))

    def dress(self, button: widgets.Button, entry: LedgerEntry) -> None:
        """Show ``entry`` on ``button`` (a trait left as it was sends no message)."""
        for name, value in self.looks(entry).items():
            setattr(button, name, value)
