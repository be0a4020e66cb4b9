"""Run several ``call_model_input_filter`` s as one (the SDK accepts a single filter)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .sources import resolve

if TYPE_CHECKING:
    from agents.run_config import CallModelData, ModelInputData


def compose_filters(*filters: Callable[[Any], Any]) -> Callable[[CallModelData[Any]], Any]:
    """One async filter that applies ``filters`` left to right.

    Each filter sees the ``ModelInputData`` the previous one returned. Sync and async
    filters mix freely. Put a :class:`~ctxlab.context.ContextManager` last, so that its
    budget applies to what is finally sent.
    """
    if not filters:
        raise ValueError("compose_filters needs at least one filter")
    for n, f in enumerate(filters):
        if not callable(f):
            raise ValueError(f"filter {n} is not callable: {f!r}")

    async def composed(data: CallModelData[Any]) -> ModelInputData:
        from agents.run_config import CallModelData, ModelInputData

        current = data
        result: Any = data.model_data
        for f in filters:
            result = await resolve(f(current))
            if not isinstance(result, ModelInputData):
                raise ValueError(
                    f"filter {f!r} returned {type(result).__name__}, not ModelInputData"
                )
            current = CallModelData(model_data=result, agent=data.agent, context=data.context)
        return result

    return composed
