"""The reference is the readable alternative to torch._dynamo and torch._inductor: none of
its modules imports them (torch's own backends are looked up by name, when named)."""

from __future__ import annotations

import ast
from pathlib import Path

import minidynamo

FORBIDDEN = ("torch._dynamo", "torch._inductor")


def imported_modules(tree: ast.AST) -> list[str]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


def test_no_module_imports_dynamo_or_inductor() -> None:
    package = Path(minidynamo.__file__).parent
    offenders = {
        str(path.relative_to(package)): name
        for path in package.rglob("*.py")
        for name in imported_modules(ast.parse(path.read_text()))
        if name.startswith(FORBIDDEN)
    }
    assert offenders == {}
