"""What the named product's own catalog values say: its release year right after its
name is a model year, its model number said again alone is the product, and with no
attribute word a value it lists (a colour) or gives (a price of the variant stated) names
that value's attribute, only when no other reading competes. Questions written for these
tests, not taken from any set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_cid as _key


@pytest.mark.parametrize(
    ("question", "key"),
    [
        # The product's own release year after its name is a model year.
        ("thinkpad x1 carbon 2024 how heavy", "thinkpad_x1_carbon|weight|"),
        ("is the x1 carbon 2024 around 1.1 kg", "thinkpad_x1_carbon|weight|"),
        # The named product's model number said again alone is that product.
        ("想给爸爸买苹果15，他问15有线充是几瓦", "iphone_15|charging_power|method=wired"),
        # A bare number that is one attribute's value for the variant stated.
        ("huawei watch gt4 41mm 1388?", "huawei_watch_gt_4|price|case_size=41mm"),
        ("苹果15 3349吗", "iphone_15|battery_capacity|"),
        # Words that are the product's own listed colours.
        ("galaxy s24 ultra titanium violet?", "samsung_galaxy_s24_ultra|colors|"),
        ("airpods pro 2 white?", "airpods_pro_2|colors|"),
    ],
)
def test_own_values_read(extractor: SemanticExtractor, question: str, key: str) -> None:
    assert _key(extractor, question) == key


@pytest.mark.parametrize(
    "question",
    [
        # A bare number after a variant's name may be the base model: two products.
        "苹果15大杯 15的颜色有几种",
        # After 和 the number is another product compared.
        "苹果16大杯和16的重量一样吗",
        # Another year than its release year after the name: not read as the name.
        "thinkpad x1 carbon 2022 how heavy",
        # The price of a variant the question does not state.
        "huawei watch gt4 1388?",
        # A number two of its specs give (20 W wired, 20 h of video).
        "苹果15 20吗",
        # A colour it does not list beside one it does.
        "airpods pro 2 white or red?",
    ],
)
def test_competing_readings_abstain(extractor: SemanticExtractor, question: str) -> None:
    assert _key(extractor, question) is None
