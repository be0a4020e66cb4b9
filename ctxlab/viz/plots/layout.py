"""Placing marks and labels so that they do not hide each other.

* :func:`data_limits`: axis limits that follow the data (a narrow band is not squeezed
  into 0-100);
* :func:`dodge`: small display offsets for markers that would sit on top of each other
  (the data stays exact: only where the marker is drawn moves, by a few points);
* :func:`place_labels`: direct labels next to points, away from other points and labels,
  with a thin leader line when a label had to move away from its point.

:func:`dodge` and :func:`place_labels` measure in display units, so call them once the
figure's layout is final (after ``tight_layout``); labels are kept inside the axes, so they
do not change that layout.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from matplotlib.axes import Axes
from matplotlib.text import Annotation
from matplotlib.transforms import Bbox, ScaledTranslation, Transform

from .figure import SMALL_FONT

#: Where a label may go, nearest first: (distance in points, angle in degrees).
_RADII = (5.0, 9.0, 14.0, 20.0, 28.0, 38.0, 50.0)
#: Directions a dodged marker moves in, preferred first (left and down keep it off the
#: 100% edge that full-history points sit on).
_DODGE_ANGLES = (180.0, 270.0, 225.0, 135.0, 315.0, 0.0, 90.0, 45.0)
_ANGLES = (0.0, 180.0, 90.0, 270.0, 35.0, -35.0, 145.0, -145.0, 60.0, -60.0, 120.0, -120.0)


def data_limits(
    values: Sequence[float],
    *,
    low: float = 0.0,
    high: float = 100.0,
    min_span: float = 10.0,
    pad: float = 0.06,
    step: float = 5.0,
) -> tuple[float, float]:
    """Limits for an axis of ``values`` within ``[low, high]``: the lower limit is rounded
    down to a multiple of ``step``, and ``pad`` (a share of the span, at least
    ``min_span``) is left on both sides so markers at the ends are drawn whole."""
    if not values:
        return low, high
    vmin, vmax = min(values), max(values)
    margin = pad * max(vmax - vmin, min_span)
    bottom = max(low, math.floor((vmin - margin) / step) * step)
    top = min(high, vmax) + margin
    return bottom, max(top, bottom + min_span)


def _px(ax: Axes, points: float) -> float:
    return points * ax.figure.dpi / 72.0


def dodge(ax: Axes, xs: Sequence[float], ys: Sequence[float], *,
          size: float = 8.0) -> list[tuple[float, float]]:
    """Offsets (in points) that keep markers of ``size`` points from covering each other.

    Points are taken in order; one that would overlap an earlier one is moved by the
    smallest offset (around a ring of growing radius) that clears every earlier marker.
    A lone point keeps offset (0, 0).
    """
    screen = ax.transData.transform(list(zip(xs, ys, strict=True))) if xs else []
    clear = _px(ax, size * 0.9)
    drawn: list[tuple[float, float]] = []
    offsets: list[tuple[float, float]] = []
    for x, y in screen:
        best = (0.0, 0.0)
        for ring in range(0, 12):
            radius = ring * size * 0.35
            angles = (0.0,) if ring == 0 else _DODGE_ANGLES
            fits = [
                (radius * math.cos(math.radians(a)), radius * math.sin(math.radians(a)))
                for a in angles
                if all(math.hypot(x + _px(ax, radius * math.cos(math.radians(a))) - dx,
                                  y + _px(ax, radius * math.sin(math.radians(a))) - dy) >= clear
                       for dx, dy in drawn)
            ]
            if fits:
                best = fits[0]
                break
        offsets.append(best)
        drawn.append((x + _px(ax, best[0]), y + _px(ax, best[1])))
    return offsets


def shifted(ax: Axes, offset: tuple[float, float]) -> Transform:
    """``ax.transData`` moved by ``offset`` points (to draw a dodged marker)."""
    dx, dy = offset
    return ax.transData + ScaledTranslation(dx / 72.0, dy / 72.0, ax.figure.dpi_scale_trans)


def _overlap(a: Bbox, b: Bbox) -> float:
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return w * h if w > 0 and h > 0 else 0.0


def place_labels(
    ax: Axes,
    xs: Sequence[float],
    ys: Sequence[float],
    texts: Sequence[str],
    *,
    fontsize: float = SMALL_FONT,
    marker_size: float | Sequence[float] = 8.0,
    offsets: Sequence[tuple[float, float]] | None = None,
    color: str = "#222222",
) -> list[Annotation]:
    """Label each point (x, y) with its text, placed where it covers no other point and
    no other label, inside the axes. ``marker_size`` (points; one for all, or one per
    point) is what each label keeps clear of; ``offsets`` (points) are where dodged
    markers are drawn. Labels that had to go further than a few points get a thin leader
    line."""
    fig = ax.figure
    renderer = fig._get_renderer()  # type: ignore[attr-defined]  # what tight_layout uses
    moves = list(offsets) if offsets is not None else [(0.0, 0.0)] * len(xs)
    screen = [
        (sx + _px(ax, mx), sy + _px(ax, my))
        for (sx, sy), (mx, my) in zip(
            ax.transData.transform(list(zip(xs, ys, strict=True))), moves, strict=True)
    ] if xs else []
    sizes = ([float(marker_size)] * len(xs) if isinstance(marker_size, (int, float))
             else [float(size) for size in marker_size])
    halves = [_px(ax, size / 2) for size in sizes]
    taken = [Bbox([[x - h, y - h], [x + h, y + h]])
             for (x, y), h in zip(screen, halves, strict=True)]
    frame = ax.get_window_extent(renderer).padded(-2)
    labels: list[Annotation] = []
    for index, ((x, y), (mx, my), point_x, point_y, text, size) in enumerate(zip(
            screen, moves, xs, ys, texts, sizes, strict=True)):
        half = _px(ax, size / 2)
        probe = ax.text(0, 0, text, fontsize=fontsize)
        extent = probe.get_window_extent(renderer)
        probe.remove()
        width, height = extent.width, extent.height
        radius, angle = _best_spot(ax, (x, y), index, (width, height, half), taken, screen,
                                   frame)
        box = _candidate(x, y, _px(ax, radius), angle, width, height, half)
        taken.append(box)
        ha, va = _alignment(angle)
        cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        reach = radius + size / 2
        far = radius > _RADII[1]
        labels.append(ax.annotate(
            text, (point_x, point_y),
            xytext=(mx + reach * cos, my + reach * sin), textcoords="offset points",
            ha=ha, va=va, fontsize=fontsize, color=color, annotation_clip=False,
            arrowprops={"arrowstyle": "-", "color": "#888888", "linewidth": 0.6,
                        "shrinkA": 0, "shrinkB": size / 2} if far else None,
        ))
    return labels


def _best_spot(
    ax: Axes,
    point: tuple[float, float],
    index: int,
    shape: tuple[float, float, float],
    taken: Sequence[Bbox],
    screen: Sequence[tuple[float, float]],
    frame: Bbox,
) -> tuple[float, float]:
    """``(radius, angle)`` of the cheapest place for point ``index``'s label (``shape``:
    its width and height, and half the marker, in px): the first one that overlaps
    nothing, stays inside ``frame`` and reads as this point's label, else the least bad."""
    x, y = point
    width, height, half = shape
    best: tuple[float, float, float] | None = None  # (cost, radius, angle)
    for radius in _RADII:
        for angle in _ANGLES:
            box = _candidate(x, y, _px(ax, radius), angle, width, height, half)
            cost = _cost(box, index, taken, screen, frame)
            if best is None or cost < best[0]:
                best = (cost, radius, angle)
            if cost == 0:
                break
        if best is not None and best[0] == 0:
            break
    assert best is not None
    return best[1], best[2]


def _cost(box: Bbox, index: int, taken: Sequence[Bbox], screen: Sequence[tuple[float, float]],
          frame: Bbox) -> float:
    """How bad a label box is: the area it covers, outside the axes, or nearer another point."""
    inside = (box.x0 >= frame.x0 and box.x1 <= frame.x1
              and box.y0 >= frame.y0 and box.y1 <= frame.y1)
    cost = sum(_overlap(box, other) for other in taken) + (0 if inside else 1e9)
    if _nearest(box, screen) != index:  # it would read as another point's label
        cost += 1.0
    return cost


def _nearest(box: Bbox, points: Sequence[tuple[float, float]]) -> int:
    """The index of the point nearest to ``box`` (distance from the box's edge)."""

    def gap(point: tuple[float, float]) -> float:
        x, y = point
        dx = max(box.x0 - x, 0.0, x - box.x1)
        dy = max(box.y0 - y, 0.0, y - box.y1)
        return math.hypot(dx, dy)

    return min(range(len(points)), key=lambda n: gap(points[n]))


def _alignment(angle: float) -> tuple[str, str]:
    cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    ha = "left" if cos > 0.3 else "right" if cos < -0.3 else "center"
    va = "bottom" if sin > 0.3 else "top" if sin < -0.3 else "center"
    return ha, va


def _candidate(x: float, y: float, radius: float, angle: float, width: float, height: float,
               half: float) -> Bbox:
    """The display box of a label anchored ``radius`` px beyond a marker, at ``angle``."""
    cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    ax_, ay = x + (radius + half) * cos, y + (radius + half) * sin
    ha, va = _alignment(angle)
    x0 = ax_ if ha == "left" else ax_ - width if ha == "right" else ax_ - width / 2
    y0 = ay if va == "bottom" else ay - height if va == "top" else ay - height / 2
    return Bbox([[x0, y0], [x0 + width, y0 + height]])
