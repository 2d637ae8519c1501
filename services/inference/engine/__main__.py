"""``python -m services.inference.engine [SETTINGS_JSON]``: run the engine with optional
settings overrides (JSON object) on top of the environment. Used by the launcher."""

from __future__ import annotations

import json
import sys

from services.inference.engine.bootstrap import serve
from services.inference.engine.settings import EngineSettings

if __name__ == "__main__":
    overrides = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    serve(EngineSettings(**overrides))
