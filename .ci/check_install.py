"""Installing minidynamo keeps the user's torch (tox env `install`).

For each torch of the tested range: a fresh venv that already has that torch, then
`uv pip install -e .` of this repository with no constraint; the venv must still have the
same torch, and `import minidynamo` must not warn that it is untested.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TORCH_VERSIONS = ("2.14.1", "2.15.0")


def uv(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "uv", *args], check=True)


def check(torch_version: str, root: Path) -> str:
    venv = root / f"torch{torch_version}"
    python = str(venv / "bin" / "python")
    uv("venv", "--quiet", "--python", sys.executable, str(venv))
    uv("pip", "install", "--quiet", "--python", python, f"torch=={torch_version}")
    uv("pip", "install", "--quiet", "--python", python, "-e", str(REPO))
    probe = (
        "import warnings; warnings.filterwarnings('error', 'minidynamo is tested'); "
        "import minidynamo, torch; print(torch.__version__)"
    )
    result = subprocess.run([python, "-c", probe], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"import minidynamo failed beside torch {torch_version}:\n{result.stderr}")
    return result.stdout.strip()


def main() -> None:
    with tempfile.TemporaryDirectory() as root:
        for torch_version in TORCH_VERSIONS:
            found = check(torch_version, Path(root))
            status = "kept" if found.split("+")[0] == torch_version else "CHANGED"
            print(f"torch {torch_version} installed, then minidynamo: torch {found} ({status})")
            if status != "kept":
                sys.exit(1)


if __name__ == "__main__":
    main()
