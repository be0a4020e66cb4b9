"""Widgets and plots (need the ``notebook`` extra: ipywidgets, matplotlib).

* :mod:`.widgets`: :class:`SessionView`, :class:`ReplayView`, :class:`BudgetBar`;
* :mod:`.plots`: the course's plots;
* :mod:`.palette`: every colour they use.
"""
