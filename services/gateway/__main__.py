"""``python -m services.gateway [SETTINGS_JSON] [--reuse-port]``: run the gateway with
optional settings overrides (a JSON object) on top of the environment. Used by the
benchmark; ``--reuse-port`` lets several such processes share one port (its workers)."""

from __future__ import annotations

import json
import sys

from services.gateway.bootstrap import serve
from services.gateway.settings import GatewaySettings

if __name__ == "__main__":
    arguments = [a for a in sys.argv[1:] if a != "--reuse-port"]
    overrides = json.loads(arguments[0]) if arguments else {}
    serve(GatewaySettings(**overrides), reuse_port="--reuse-port" in sys.argv[1:])
