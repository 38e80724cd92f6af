"""Put on PYTHONPATH by `sparkfold run`: arms sparkfold in this Python process (see
`sparkfold.optimizer.autohook`), then runs the `sitecustomize` this one hides, if any."""

import os
import sys
from types import ModuleType

autohook: "ModuleType | None"
try:
    from sparkfold.optimizer import autohook
except ImportError:  # a Python without sparkfold (another virtual environment)
    # said to the user's own processes, not to the Python workers Spark starts for UDFs
    # (`python -m pyspark.daemon`), which inherit the path and run no query of theirs
    worker = any(a.startswith("pyspark.") for a in getattr(sys, "orig_argv", ())[1:3])
    if os.environ.get("SPARKFOLD_REPORT") and not worker:
        sys.stderr.write(f"sparkfold: not installed for {sys.executable}; its queries are not optimized\n")
    autohook = None
if autohook is not None:
    autohook.activate()
    autohook.chain_sitecustomize(__file__)
