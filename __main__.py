"""`python -m sparkfold ...`: the `sparkfold` command."""

import sys

from . import _command

sys.exit(_command())
