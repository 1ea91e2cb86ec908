"""torch's grouping of tensor lists for its `_foreach_*` kernels, in Python: what
`torch.nn.utils.clip_grad_norm_` and the optimizers call before each kernel. The C
original answers with a dict the tracer cannot build from a graph node; this one is
traced, so its grouping (by device and dtype, fixed at trace time) is made of the
tensors' metadata, as in Dynamo (polyfills.group_tensors_by_device_and_dtype).
"""

from __future__ import annotations

from typing import Any

import torch

Grouped = dict[tuple[torch.device, torch.dtype], tuple[list[list[Any]], list[int]]]


def group_by_device_and_dtype(
    tensorlistlist: list[list[torch.Tensor | None]], with_indices: bool = False
) -> Grouped:
    """`torch._C._group_tensors_by_device_and_dtype`: the i-th entries of the lists go
    to the group of the first tensor among them; an index with no tensor is dropped."""
    grouped: Grouped = {}
    if not tensorlistlist or not tensorlistlist[0]:
        return grouped
    for index in range(len(tensorlistlist[0])):
        first = None
        for tensors in tensorlistlist:
            if tensors is not None and index < len(tensors) and tensors[index] is not None:
                first = tensors[index]
                break
        if first is None:
            continue
        key = (first.device, first.dtype)
        if key not in grouped:
            grouped[key] = ([[] for _ in tensorlistlist], [])
        lists, indices = grouped[key]
        for position, tensors in enumerate(tensorlistlist):
            present = tensors is not None and index < len(tensors)
            lists[position].append(tensors[index] if present else None)
        if with_indices:
            indices.append(index)
    return grouped
