"""The conformance cases, one module per feature group (see conformance/README.md).

Importing a module registers its cases in `conformance.spec.REGISTRY`; the module's data
globals are the case programs' globals (guards on `G[...]`, global side effects).
"""

from __future__ import annotations

import importlib
import pkgutil

from conformance.spec import REGISTRY, Case


def load_all() -> dict[str, Case]:
    """Every registered case, by id, in module and definition order."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")
    return REGISTRY
