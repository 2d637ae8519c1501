"""``python -m services.gateway [SETTINGS_JSON]``: run the gateway with optional settings
overrides (a JSON object) on top of the environment. Used by the benchmark."""

from __future__ import annotations

import json
import sys

from services.gateway.bootstrap import serve
from services.gateway.settings import GatewaySettings

if __name__ == "__main__":
    overrides = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    serve(GatewaySettings(**overrides))
