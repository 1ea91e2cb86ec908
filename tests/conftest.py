"""Every test runs Triton kernels on the CPU: TRITON_INTERPRET must be set before triton
is first imported, and importing torchvision or transformers (tests/models) imports it,
so it is set here, before any test module is collected."""

import os
from collections.abc import Iterator

import pytest

os.environ.setdefault("TRITON_INTERPRET", "1")

from minidynamo.eval_frame import set_callback  # noqa: E402


@pytest.fixture(autouse=True)
def _no_frame_hook_left_installed() -> Iterator[None]:
    """A test ends with the frame hook uninstalled: a callback left behind would convert
    the frames of every later test (pytest's and the harness's included)."""
    yield
    left = set_callback(None)
    assert left is None, f"the frame hook's callback {left!r} was left installed"
