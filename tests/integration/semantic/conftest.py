from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.semantic.loading import SemanticData, build_extractor, load_semantic_data


@pytest.fixture(scope="session")
def semantic_data() -> SemanticData:
    return load_semantic_data()


@pytest.fixture(scope="session")
def extractor(semantic_data: SemanticData) -> SemanticExtractor:
    return build_extractor(semantic_data)
