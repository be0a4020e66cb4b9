"""LLMSummarizer: a model writes the hand-over note (OpenAI or any compatible server)."""

from __future__ import annotations

from typing import Any

from ..core.openai_calls import Api, ModelCaller
from .base import SummaryResult
from .prompt import SUMMARY_PROMPT, TOPICS_RULE, TRANSCRIPT_CLOSE, TRANSCRIPT_OPEN
from .transcript import render_transcript


class LLMSummarizer(ModelCaller):
    """Summarize with a model through the ``openai`` client (sync ``OpenAI`` or ``AsyncOpenAI``).

    Args:
        client: an ``openai.OpenAI`` or ``openai.AsyncOpenAI`` client. Its ``base_url`` may
            point at any OpenAI-compatible server (Ollama, vLLM, llama.cpp server).
        model: the model that writes summaries (a small, cheap one usually suffices).
        max_tokens: cap on the summary's output tokens.
        tool_trim_limit: tool outputs longer than this many characters are cut before they
            are sent (bulky JSON adds cost, rarely facts the summary needs in full).
        api: ``"responses"`` (OpenAI's Responses API), ``"chat"`` (Chat Completions, which
            every compatible server speaks) or ``"auto"``: Responses for api.openai.com,
            Chat Completions for any other ``base_url``.
        prompt: the system prompt (defaults to :data:`~ctxlab.summarizers.prompt.SUMMARY_PROMPT`).
        topics: add the rule for a closing "Topics:" line (each topic's latest values;
            :data:`~ctxlab.summarizers.prompt.TOPICS_RULE`) to the prompt.

    The transcript travels inside ``<transcript>`` delimiters as data, and the prompt tells
    the model not to follow instructions found inside it. A failed call (server down, 404,
    context overflow, a 500) raises a :class:`~ctxlab.core.model_errors.ModelCallError`
    that names the URL, the model and what to do.
    """

    def __init__(
        self,
        client: Any,
        model: str = "gpt-4.1-mini",
        max_tokens: int = 400,
        tool_trim_limit: int = 600,
        *,
        api: Api = "auto",
        prompt: str = SUMMARY_PROMPT,
        name: str | None = None,
        topics: bool = False,
    ):
        super().__init__(client, model, api=api, max_tokens=max_tokens,
                         tool_trim_limit=tool_trim_limit)
        self.prompt = prompt + TOPICS_RULE if topics and TOPICS_RULE not in prompt else prompt
        self.name = name or f"LLMSummarizer({model})"

    def build_user_message(self, items: list[dict[str, Any]]) -> str:
        transcript = render_transcript(items, tool_trim_limit=self.tool_trim_limit)
        return (
            "Write the hand-over note for this conversation.\n"
            f"{TRANSCRIPT_OPEN}\n{transcript}\n{TRANSCRIPT_CLOSE}"
        )

    async def summarize(
        self, items: list[dict[str, Any]], *, previous_summary: str | None = None
    ) -> SummaryResult:
        """Send the prompt and the delimited transcript; return the note and its usage."""
        user_message = self.build_user_message(items)
        api = self.resolved_api()
        if api == "responses":
            kwargs: dict[str, Any] = {
                "model": self.model,
                "input": [
                    {"role": "system", "content": self.prompt},
                    {"role": "user", "content": user_message},
                ],
                "max_output_tokens": self.max_tokens,
            }
        else:
            kwargs = {
                "model": self.model,
                "messages": [
                    {"role": "system", "content": self.prompt},
                    {"role": "user", "content": user_message},
                ],
                "max_tokens": self.max_tokens,
            }
        response = await self.call(**kwargs)  # API errors: ModelCallError (URL, model, hint)
        return self._parse(response, api)

    def _parse(self, response: Any, api: str) -> SummaryResult:
        usage = getattr(response, "usage", None)
        if api == "responses":
            text = getattr(response, "output_text", "") or ""
            input_tokens = getattr(usage, "input_tokens", None)
            output_tokens = getattr(usage, "output_tokens", None)
        else:
            choices = getattr(response, "choices", None) or []
            if not choices:
                raise ValueError("the model returned no choices")
            text = choices[0].message.content or ""
            input_tokens = getattr(usage, "prompt_tokens", None)
            output_tokens = getattr(usage, "completion_tokens", None)
        text = text.strip()
        if not text:
            raise ValueError(f"{self.name} got an empty summary from the model")
        return SummaryResult(
            text, input_tokens=input_tokens, output_tokens=output_tokens, model=self.model
        )

    def __repr__(self) -> str:
        return (
            f"LLMSummarizer(model={self.model!r}, max_tokens={self.max_tokens}, "
            f"tool_trim_limit={self.tool_trim_limit}, api={self.resolved_api()!r})"
        )
