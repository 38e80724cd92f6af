"""Put on PYTHONPATH by `sparkfold run`: arms sparkfold in this Python process (see
`sparkfold.optimizer.autohook`), then runs the `sitecustomize` this one hides, if any."""

import os
import sys
from types import ModuleType

autohook: "ModuleType | None"
try:
    from sparkfold.optimizer import autohook
except ImportError:  # a Python without sparkfold (another virtual environment)
    if os.environ.get("SPARKFOLD_REPORT"):
        sys.stderr.write(f"sparkfold: not installed for {sys.executable}; its queries are not optimized\n")
    autohook = None
if autohook is not None:
    autohook.activate()
    autohook.chain_sitecustomize(__file__)
