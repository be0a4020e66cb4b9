"""One way to make a figure for every ctxlab plot, and the sizes that keep it readable.

A notebook shows a figure at its own pixel size up to the width of the output area (about
900 px in JupyterLab at the default 100 dpi) and scales wider ones down, text included.
Every plot therefore fits in :data:`NOTEBOOK_WIDTH` inches, and no text is smaller than
:data:`SMALL_FONT` points.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: The widest figure (inches at 100 dpi) a notebook shows without scaling it down.
NOTEBOOK_WIDTH = 9.0
#: The smallest text ctxlab draws (legends, annotations, secondary labels), in points.
SMALL_FONT = 9.0


def new_figure(figsize: tuple[float, float], **kwargs: Any) -> tuple[Figure, Any]:
    """A figure and its axes, not kept in pyplot's list of open figures (Jupyter still
    renders the returned Figure once). pyplot is imported here, when a plot is drawn, not
    when a lesson imports its plot functions."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(figsize=figsize, **kwargs)
    plt.close(fig)
    return fig, axes
