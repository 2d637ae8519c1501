"""``python -m services.inference.router [SETTINGS_JSON]``: run the router with optional
settings overrides (JSON object) on top of the environment. Used by the launcher."""

from __future__ import annotations

import json
import sys

from services.inference.router.bootstrap import serve
from services.inference.router.settings import RouterSettings

if __name__ == "__main__":
    overrides = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    serve(RouterSettings(**overrides))
