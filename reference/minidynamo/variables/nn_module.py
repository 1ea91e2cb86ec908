"""`NNModuleVariable`: an `nn.Module` instance whose `forward` is inlined.

Parameters, buffers and submodules are found in the module's `_parameters`, `_buffers`
and `_modules` dicts and sourced through them, as real Dynamo does
(`L['self']._modules['lin']._parameters['weight']` -> placeholder
`l_self_modules_lin_parameters_weight_`). Modules with hooks are not modelled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from minidynamo.exc import unimplemented
from minidynamo.source import AttrSource, GetItemSource
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.functions import UserFunctionVariable
from minidynamo.variables.user_defined import UserDefinedObjectVariable

if TYPE_CHECKING:
    from minidynamo.symbolic_convert import InstructionTranslatorBase

_REGISTRIES = ("_parameters", "_buffers", "_modules")
_HOOK_DICTS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")
_GLOBAL_HOOKS = (
    "_global_forward_hooks",
    "_global_forward_pre_hooks",
    "_global_backward_hooks",
    "_global_backward_pre_hooks",
)


class NNModuleVariable(UserDefinedObjectVariable):
    """An `nn.Module`: attributes through its registries, calls inline `forward`."""

    value: torch.nn.Module

    def __repr__(self) -> str:
        return f"NNModuleVariable({type(self.value).__qualname__})"

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        from minidynamo.builder import VariableBuilder

        if tx.output.side_effects.load_attr(self, name) is not None:
            return super().var_getattr(tx, name)  # stored by this trace: read it back
        for registry in _REGISTRIES:
            entries = self.value.__dict__.get(registry, {})
            if name in entries:
                source = None
                if self.source is not None:
                    source = GetItemSource(AttrSource(self.source, registry), name)
                return VariableBuilder(tx, source)(entries[name])
        return super().var_getattr(tx, name)

    def known_getattr(self) -> object:
        """`nn.Module.__getattr__` only finds parameters, buffers and submodules."""
        return torch.nn.Module.__getattr__

    def has_attr(self, tx: InstructionTranslatorBase, name: str) -> bool:
        if any(name in self.value.__dict__.get(r, {}) for r in _REGISTRIES):
            return True
        return super().has_attr(tx, name)

    def store_attr(self, tx: InstructionTranslatorBase, name: str, value: VariableTracker) -> None:
        """Replayed through `nn.Module.__setattr__`, which files a tensor, a parameter or
        a submodule in its registry; the trace reads the stored value back."""
        tx.output.side_effects.store_attr(self, name, value)

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        module_hooks = any(getattr(self.value, hooks, None) for hooks in _HOOK_DICTS)
        global_hooks = any(getattr(torch.nn.modules.module, hooks) for hooks in _GLOBAL_HOOKS)
        if module_hooks or global_hooks:
            unimplemented(f"call of {type(self.value).__qualname__} with hooks")
        forward = UserFunctionVariable(type(self.value).forward)
        return forward.call_function(tx, [self, *args], kwargs)
