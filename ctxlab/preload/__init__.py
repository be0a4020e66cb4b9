"""Proactive preloading: from the new user message, run the tools the next step will need
before the model asks for them (:class:`Preloader`, a ``call_model_input_filter``)."""

from .preloader import (
    Planned,
    Preloader,
    PreloadRule,
    PreloadStats,
    fact_argument,
    latest_value,
)

__all__ = ["Planned", "PreloadRule", "PreloadStats", "Preloader", "fact_argument",
           "latest_value"]
