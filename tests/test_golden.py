"""The golden-snapshot fixtures themselves: where they write and what they compare."""

import dis
import io
import sys
from pathlib import Path

# Not imported from the root conftest.py: pytest registers every conftest.py under the
# module name `conftest`, so which one an import finds depends on the test directories run.
GOLDEN = Path(__file__).parents[1] / "golden"
VERSION_DIR = f"py{sys.version_info.major}{sys.version_info.minor}"


def sample(x, y):
    return (x - y) ** 2


def test_common_golden_is_shared_by_every_version(golden_common, request):
    text = "def forward(self, l_x_: torch.Tensor):\n    sub = l_x_ - 1\n    return (sub,)\n"
    assert text == golden_common
    assert (GOLDEN / "common" / "test_golden" / f"{request.node.name}.txt").exists()


def test_version_golden_is_per_cpython(golden_version, request):
    out = io.StringIO()
    dis.dis(sample, file=out)
    assert out.getvalue() == golden_version
    assert (GOLDEN / VERSION_DIR / "test_golden" / f"{request.node.name}.txt").exists()
