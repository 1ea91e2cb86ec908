"""The graph-break tests reuse the tracer's differential harness (tests/tracer)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "tracer"))
