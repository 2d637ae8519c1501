"""Software versions: the version a product launched with is read from the catalog's spec
text by family, so a newer version asked about is a future update. Questions written for
these tests, not taken from any labelled set."""

from __future__ import annotations

from services.core.semantic.versions import LaunchVersions, versioned_attributes


def test_launch_versions_are_read_by_family_from_the_spec_text() -> None:
    launch = LaunchVersions.of(["one ui 6.1 (android 14)"])
    assert launch.newer("one ui 7")
    assert launch.newer("android 15")
    assert not launch.newer("one ui 6.1")
    assert not launch.newer("android 14")
    assert not launch.newer("one ui 6")


def test_a_trailing_zero_names_the_same_version() -> None:
    assert not LaunchVersions.of(["harmonyos 4"]).newer("harmonyos 4.0")
    assert not LaunchVersions.of(["harmonyos 4.0"]).newer("harmonyos 4")
    assert LaunchVersions.of(["harmonyos 4.0"]).newer("harmonyos 4.2")


def test_another_name_of_the_only_versioned_family_is_compared_with_it() -> None:
    # 鸿蒙 is HarmonyOS written otherwise: the product has one versioned family.
    assert LaunchVersions.of(["harmonyos 4.0"]).newer("鸿蒙5")
    # Two families and a name that is neither: no reading.
    assert not LaunchVersions.of(["one ui 6.1 (android 14)"]).newer("鸿蒙20")


def test_a_value_without_a_version_number_gives_no_comparison() -> None:
    # "macOS Sonoma", "Xiaomi HyperOS": a number stated can be neither above nor equal.
    assert not LaunchVersions.of(["macos sonoma"]).newer("macos 15")
    assert not LaunchVersions.of(["xiaomi hyperos 澎湃os"]).newer("hyperos 2")


def test_only_attributes_whose_updates_are_predict_are_versioned() -> None:
    attributes = {
        "attributes": {
            "os": {
                "kind": "spec",
                "description": "Shipped. Future update questions are 'predict'.",
            },
            "launch": {"kind": "spec", "description": "Unreleased products are 'predict'."},
            "fee": {"kind": "policy", "description": "Updates are 'predict'."},
        }
    }
    assert versioned_attributes(attributes) == frozenset({"os"})
