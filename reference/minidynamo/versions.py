"""The torch versions minidynamo is tested with, checked once at import.

pyproject.toml accepts the same range, so an install never changes the user's torch; a
torch outside it still imports, with one warning naming the range (graphs, guards and
golden text are only compared on the tested versions).
"""

from __future__ import annotations

import re
import warnings

import torch

# Keep equal to the `torch` requirement of pyproject.toml and to tox's constraints/.
TESTED_TORCH = ((2, 14, 1), (2, 16, 0))


def tested_range_text() -> str:
    low, high = (".".join(map(str, bound)) for bound in TESTED_TORCH)
    return f">={low},<{high}"


def is_tested_torch(version: str) -> bool:
    """By release number alone: a local tag (``+cpu``) is the same release, and a
    pre-release or nightly of the upper bound (``2.16.0.dev...``) is outside."""
    match = re.match(r"(\d+)\.(\d+)\.(\d+)", version)
    if match is None:
        return False
    low, high = TESTED_TORCH
    return low <= tuple(map(int, match.groups())) < high


def warn_if_untested(version: str = torch.__version__) -> None:
    if not is_tested_torch(version):
        warnings.warn(
            f"minidynamo is tested with torch {tested_range_text()}; torch {version} is "
            "installed: tracing may fail (it falls back to eager) or differ from the docs",
            RuntimeWarning,
            stacklevel=3,
        )
