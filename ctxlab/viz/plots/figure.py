"""One way to make a figure for every ctxlab plot."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
from matplotlib.figure import Figure


def new_figure(figsize: tuple[float, float], **kwargs: Any) -> tuple[Figure, Any]:
    """A figure and its axes, not kept in pyplot's list of open figures (Jupyter still
    renders the returned Figure once)."""
    fig, axes = plt.subplots(figsize=figsize, **kwargs)
    plt.close(fig)
    return fig, axes
