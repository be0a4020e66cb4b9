"""Plots of the course (matplotlib, colours from :mod:`ctxlab.viz.palette`).

* :mod:`.lessons`: tokens per turn, the context timeline, budget bars, window parts, run
  cost, the turn-count distribution;
* :mod:`.evaluation`: recall vs tokens, fact survival, use (stale-as-current), cost per
  100 turns, sweeps;
* :mod:`.caching`, :mod:`.reader`, :mod:`.views`: the prompt-cache sweep, the realistic
  reader's chance, what each memory sends.

The functions here load their module, and matplotlib with it, on their first call: a
lesson's first cell imports its plots by name, and matplotlib (a second or more on a busy
machine) is then paid by the first cell that draws, not by the cell a learner runs first.
Each is a :class:`DeferredPlot` that behaves as the function it stands for (same call,
docstring and signature); the functions themselves live in the modules above.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

#: Plot function -> the module that defines it.
SOURCES: dict[str, str] = {
    "plot_cost_per_100_turns": "evaluation",
    "plot_recall_vs_tokens": "evaluation",
    "plot_survival": "evaluation",
    "plot_sweep": "evaluation",
    "plot_use": "evaluation",
    "plot_budget_bars": "lessons",
    "plot_context_timeline": "lessons",
    "plot_run_cost": "lessons",
    "plot_tokens_per_turn": "lessons",
    "plot_turn_distribution": "lessons",
    "plot_window_parts": "lessons",
    "plot_cache_sweep": "caching",
    "plot_reader_chance": "reader",
    "plot_views": "views",
}


class DeferredPlot:
    """A plot function whose module (and matplotlib) is imported on first use."""

    def __init__(self, name: str, module: str):
        self.__name__ = self.__qualname__ = name
        self._module = f"{__name__}.{module}"
        self.__module__ = self._module

    @property
    def function(self) -> Callable[..., Any]:
        """The plot function itself (importing its module)."""
        return getattr(importlib.import_module(self._module), self.__name__)  # type: ignore[no-any-return]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(*args, **kwargs)

    @property
    def __doc__(self) -> str | None:  # type: ignore[override]
        return self.function.__doc__

    @property
    def __wrapped__(self) -> Callable[..., Any]:  # inspect.signature and help() follow it
        return self.function

    def __repr__(self) -> str:
        return f"<plot function {self._module}.{self.__name__} (loaded on first call)>"


if TYPE_CHECKING:  # for type checkers and IDEs: the functions themselves
    from .caching import plot_cache_sweep
    from .evaluation import (
        plot_cost_per_100_turns,
        plot_recall_vs_tokens,
        plot_survival,
        plot_sweep,
        plot_use,
    )
    from .lessons import (
        plot_budget_bars,
        plot_context_timeline,
        plot_run_cost,
        plot_tokens_per_turn,
        plot_turn_distribution,
        plot_window_parts,
    )
    from .reader import plot_reader_chance
    from .views import plot_views
else:
    globals().update({name: DeferredPlot(name, module) for name, module in SOURCES.items()})

__all__ = [
    "plot_budget_bars",
    "plot_cache_sweep",
    "plot_context_timeline",
    "plot_cost_per_100_turns",
    "plot_reader_chance",
    "plot_recall_vs_tokens",
    "plot_run_cost",
    "plot_survival",
    "plot_sweep",
    "plot_tokens_per_turn",
    "plot_turn_distribution",
    "plot_use",
    "plot_views",
    "plot_window_parts",
]

assert sorted(SOURCES) == __all__
