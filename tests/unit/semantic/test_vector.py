from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np  # the vector extra; `make test` installs it (never skipped)

from services.core.semantic.fingerprint import Bypass, Fingerprint, NoFingerprint, SemanticDecision
from services.semantic.vector import (
    CharNgramEmbedder,
    VectorTier,
    calibrate_threshold,
    decide_with_vector,
)

PRICE = Fingerprint("iphone_15", "price", "query_spec", ())
WEIGHT = Fingerprint("iphone_15", "weight", "query_spec", ())


def test_proposals_stay_within_the_tenant() -> None:
    tier = VectorTier(CharNgramEmbedder(), threshold=0.6, budget_s=1.0)
    try:
        tier.add("tenant-a", "iPhone 15 多少钱", PRICE)
        assert tier.propose("tenant-a", "iPhone 15 多少钱呀") == PRICE
        assert tier.propose("tenant-b", "iPhone 15 多少钱呀") == NoFingerprint("vector_empty_index")
        assert isinstance(tier.propose("tenant-a", "比亚迪汉保修几年"), NoFingerprint)
    finally:
        tier.close()


class _SlowEmbedder:
    name = "slow"

    def embed(self, texts: Sequence[str]) -> Any:
        time.sleep(0.05)
        return np.ones((len(texts), 4), dtype=np.float32) / 2.0


def test_timeout_degrades_to_no_fingerprint() -> None:
    tier = VectorTier(_SlowEmbedder(), threshold=0.5, budget_s=0.005)
    try:
        tier.add("t", "x", PRICE)
        assert tier.propose("t", "x") == NoFingerprint("vector_timeout")
    finally:
        tier.close()


def test_bypass_is_never_overridden() -> None:
    tier = VectorTier(CharNgramEmbedder(), threshold=0.0, budget_s=1.0)
    try:
        tier.add("t", "iPhone 15 多少钱", PRICE)

        def decide(text: str) -> SemanticDecision:
            return Bypass("realtime", "today")

        assert decide_with_vector(decide, tier, "t", "今天iPhone 15多少钱") == Bypass(
            "realtime", "today"
        )
    finally:
        tier.close()


def test_calibration_stays_above_every_wrong_nearest_neighbour() -> None:
    texts = ["iPhone 15 多少钱", "iPhone 16 多少钱", "苹果15 价格多少钱", "iPhone 16 重量"]
    cids = ["p15", "p16", "p15", "w16"]
    embedder = CharNgramEmbedder().fit(texts)
    vectors = embedder.embed(texts)
    similarity = vectors @ vectors.T
    np.fill_diagonal(similarity, -1.0)
    nearest = similarity.argmax(axis=1)
    wrong = [float(similarity[i, j]) for i, j in enumerate(nearest) if cids[i] != cids[j]]
    assert wrong, "the example must contain a misleading neighbour"
    threshold = calibrate_threshold(embedder, texts, cids)
    assert threshold is None or threshold > max(wrong)
