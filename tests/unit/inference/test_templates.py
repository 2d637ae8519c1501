"""Template matcher: semantic shortcut, L1 phrase, L2 Jaccard, L3 vector under a budget."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from prometheus_client import CollectorRegistry

from services.core.prompt import SopCatalog
from services.inference.templates import (
    Clock,
    L3BudgetExceededError,
    MatcherConfig,
    MatchTier,
    TemplateMatcher,
    VectorHit,
    load_matcher,
)


@pytest.fixture()
def matcher() -> TemplateMatcher:
    return load_matcher()


def test_semantic_layer_attribute_picks_the_family_directly(matcher: TemplateMatcher) -> None:
    match = matcher.match("whatever text", attribute="refresh_rate")
    assert (match.tier, match.template.template_id) == (MatchTier.SEMANTIC, "spec_display")


def test_l1_exact_phrase_after_normalisation(matcher: TemplateMatcher) -> None:
    match = matcher.match("ＩＰＨＯＮＥ 15 的 Refresh-Rate？")  # full-width, case, punctuation
    assert match.tier is MatchTier.L1
    assert match.template.template_id == "spec_display"
    assert match.matched_phrase == "refresh rate"


def test_l1_latin_phrases_match_whole_words_only(matcher: TemplateMatcher) -> None:
    # "wh" (a battery_capacity synonym) must not fire inside "white".
    match = matcher.match("does the iphone 15 come in white")
    assert match.tier is not MatchTier.L1
    assert match.matched_phrase != "wh"


def test_l2_jaccard_ignores_the_product_entity() -> None:
    catalog = SopCatalog(
        system_prompt="s",
        generic_template_id="generic",
        templates=(
            _template("battery", ("电池能用多久",), ("phone",)),
            _template("generic", (), ()),
        ),
    )
    matcher = TemplateMatcher(catalog, product_names={"iPhone 15": "phone"})
    # No phrase occurs verbatim; with the product masked, bigrams overlap enough.
    match = matcher.match("iPhone 15电池能用几天")
    assert match.tier is MatchTier.L2
    assert match.template.template_id == "battery"
    assert 0.4 <= match.score < 1.0


def test_l2_skips_templates_for_other_categories() -> None:
    catalog = SopCatalog(
        system_prompt="s",
        generic_template_id="generic",
        templates=(
            _template("car_range", ("能跑多远",), ("car",)),
            _template("generic", (), ()),
        ),
    )
    matcher = TemplateMatcher(
        catalog,
        product_names={"Model Y": "car", "iPhone 15": "phone"},
        config=MatcherConfig(l3_threshold=2.0),
    )
    assert matcher.match("Model Y 能跑多远").template.template_id == "car_range"
    assert matcher.match("iPhone 15 能跑多远").tier is MatchTier.GENERIC


def test_l3_vector_tier_catches_what_l1_and_l2_miss(matcher: TemplateMatcher) -> None:
    resistant = matcher.match("Is the Huawei Watch GT 4 water resistant?")
    assert (resistant.tier, resistant.template.template_id) == (MatchTier.L3, "spec_hardware")
    launched = matcher.match("When was the Mate 60 Pro launched?")
    assert (launched.tier, launched.template.template_id) == (MatchTier.L3, "spec_release")


def test_l3_timeout_falls_back_to_generic_and_is_counted() -> None:
    ticks = _ticking_clock(step=0.002)  # every clock read: +2 ms
    matcher = load_matcher(config=MatcherConfig(l3_budget_seconds=0.005), clock=ticks)
    match = matcher.match("zzzz qqqq unmatched words here")  # reaches L3
    assert match.tier is MatchTier.GENERIC and match.l3_timed_out
    assert matcher.stats().l3_timeouts == 1
    assert matcher.stats().by_tier["generic"] == 1


def test_an_index_that_ignores_the_deadline_still_times_out(sop: SopCatalog) -> None:
    clock = _ticking_clock(step=0.0)

    class SlowIndex:
        def search(self, text: str, *, deadline: float, clock: Clock) -> VectorHit | None:
            now[0] += 0.010  # 10 ms of work, deadline never checked
            return VectorHit("spec_battery", "battery", 0.99)

    now = [0.0]
    matcher = TemplateMatcher(sop, index=SlowIndex(), clock=lambda: now[0] + clock())
    match = matcher.match("zzzz qqqq")
    assert match.tier is MatchTier.GENERIC and match.l3_timed_out


def test_within_budget_l3_result_is_used(sop: SopCatalog) -> None:
    class FastIndex:
        def search(self, text: str, *, deadline: float, clock: Clock) -> VectorHit | None:
            return VectorHit("spec_release", "release date", 0.9)

    match = TemplateMatcher(sop, index=FastIndex()).match("zzzz qqqq")
    assert (match.tier, match.template.template_id) == (MatchTier.L3, "spec_release")


def test_budget_error_carries_the_overrun() -> None:
    error = L3BudgetExceededError(deadline=1.0, observed_at=1.003)
    assert error.observed_at - error.deadline == pytest.approx(0.003)
    assert "3.00 ms" in str(error)


def test_counts_per_tier_and_prometheus_counters() -> None:
    registry = CollectorRegistry()
    matcher = load_matcher(registry=registry)
    matcher.match("x", attribute="price")
    matcher.match("iPhone 15 多少钱")
    matcher.match("zzzz qqqq")
    stats = matcher.stats()
    assert stats.by_tier == {"semantic": 1, "l1": 1, "generic": 1}
    value = registry.get_sample_value("cachecoh_template_matches_total", {"tier": "l1"})
    assert value == 1.0


def test_dev_set_accuracy_of_the_fallback_tiers(matcher: TemplateMatcher) -> None:
    """Without the semantic layer's attribute, most labelled questions still get their
    family's template and almost none get a wrong specific one."""
    import json

    from services.paths import DEMO_DATA_DIR

    rows = [
        json.loads(line)
        for line in (DEMO_DATA_DIR / "queries_dev.jsonl").read_text("utf-8").splitlines()
    ]
    labelled = [r for r in rows if r["cacheable"] and r["attribute"]]
    right = wrong = 0
    for row in labelled:
        match = matcher.match(row["text"])
        if match.tier is MatchTier.GENERIC:
            continue
        expected = matcher.catalog.for_attribute(row["attribute"])
        assert expected is not None
        if match.template.template_id == expected.template_id:
            right += 1
        else:
            wrong += 1
    assert right / len(labelled) >= 0.85
    assert wrong / len(labelled) <= 0.03


def _template(template_id: str, phrases: tuple[str, ...], applies_to: tuple[str, ...]):  # type: ignore[no-untyped-def]
    from services.core.prompt import SopTemplate

    return SopTemplate(template_id, "query_spec", (template_id,), "text", phrases, applies_to)


def _ticking_clock(step: float) -> Clock:
    counter: Iterator[int] = iter(range(10**9))
    return lambda: next(counter) * step
