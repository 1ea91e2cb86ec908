"""The graph-break reasons, each with a stable id (like Dynamo's GB ids), a category, a
one-line explanation and a hint (seed "Graph Breaks": "run with graph_breaks to see how
many breaks your program hits"). `exc.unimplemented(..., gb=...)` names one of them;
the `graph_breaks` channel and `fullgraph=True` errors print them.

Our ids are our own; `dynamo_id` names the same reason in torch 2.14's registry
(torch/_dynamo/graph_break_registry.json), where there is one, so the conformance suite
can check that both implementations break for the same reason.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class GraphBreakType:
    gb_id: str
    category: str
    explanation: str
    hint: str
    dynamo_id: str | None = None


_TYPES = [
    GraphBreakType(
        "GB0001",
        "unsupported",
        "The tracer does not model this construct.",
        "Move it out of the compiled function, or wrap it in minidynamo.disable.",
    ),
    GraphBreakType(
        "GB0002",
        "builtin call",
        "A builtin function without a tracing rule (e.g. print) runs in CPython.",
        "Avoid calling it in the compiled region, or call it before or after it.",
        "GB0059",
    ),
    GraphBreakType(
        "GB0003",
        "data-dependent control flow",
        "A branch on the value of a tensor needs that value, which only exists at run time.",
        "Use torch.where or torch.cond, or branch on shapes and Python values instead.",
        "GB0170",
    ),
    GraphBreakType(
        "GB0004",
        "data-dependent tensor method",
        "The result of this tensor method is a Python value that depends on tensor data.",
        "Keep the computation in tensors (avoid .numpy(), int(t) or float(t) here).",
    ),
    GraphBreakType(
        "GB0005",
        "skipped function",
        "A library function that the trace rules skip is not traced.",
        "Use an equivalent torch operation, or accept the break.",
        "GB0007",
    ),
    GraphBreakType(
        "GB0006",
        "unsupported opcode",
        "The translator has no handler for this bytecode instruction.",
        "Rewrite the statement with simpler Python.",
        "GB0082",
    ),
    GraphBreakType(
        "GB0007",
        "unsupported call",
        "A call to an object the tracer cannot enter (a C function without a rule).",
        "Use an equivalent torch operation, or accept the break.",
        "GB0147",
    ),
    GraphBreakType(
        "GB0008",
        "Tensor.item()",
        "A tensor's single value as a Python number exists only at run time.",
        "Keep the value in a tensor (e.g. x.sum() instead of x.sum().item()).",
        "GB0124",
    ),
    GraphBreakType(
        "GB0009",
        "Tensor.tolist()",
        "A tensor's values as a Python list exist only at run time.",
        "Keep the values in a tensor, or convert them outside the compiled function.",
        "GB0109",
    ),
    GraphBreakType(
        "GB0010",
        "disabled function",
        "A function wrapped in minidynamo.disable runs in CPython, between two graphs.",
        "Remove minidynamo.disable if the function can be traced.",
        "GB0098",
    ),
    GraphBreakType(
        "GB0011",
        "dynamic shape operator",
        "The size of this operation's result depends on tensor data (nonzero, x[mask]).",
        "Keep the shape static (torch.where with a fill value, or a mask multiply).",
        "GB0036",
    ),
    GraphBreakType(
        "GB0012",
        "observed exception",
        "The traced code raised an exception that no handler in the frame catches.",
        "CPython runs the frame and raises it; avoid raising on the compiled path.",
        "GB0088",
    ),
    GraphBreakType(
        "GB0013",
        "class definition",
        "A class statement inside the compiled function is not traced: CPython runs it.",
        "Define the class outside the compiled function.",
        "GB8977",
    ),
    GraphBreakType(
        "GB0014",
        "user graph break",
        "The program called minidynamo.graph_break() (or torch._dynamo.graph_break()): the "
        "graph ends there and the rest of the frame runs in a resume function.",
        "Remove the graph_break() call.",
        "GB0025",
    ),
    GraphBreakType(
        "GB0015",
        "trace budget",
        "The trace ran more instructions than config.trace_instruction_limit (a long Python "
        "loop is unrolled instruction by instruction): the frame runs in CPython.",
        "Move the long loop out of the compiled function, or raise the limit.",
    ),
    GraphBreakType(
        "GB0016",
        "NumPy function not traced",
        "The NumPy function has no torch._numpy version, or draws from NumPy's random "
        "generator (np.random), whose values only NumPy gives: it runs in CPython.",
        "Use a torch operation, or call it outside the compiled function.",
        "GB0294",
    ),
    GraphBreakType(
        "GB0017",
        "ndarray attribute",
        "This ndarray attribute (dtype, base, flags ...) is not modelled on the traced array.",
        "Read it outside the compiled function, or use the tensor's dtype.",
        "GB0157",
    ),
    GraphBreakType(
        "GB0018",
        "super() attribute not a function",
        "``super().name`` is not a Python function the trace can inline (e.g. "
        "BaseException.__init__, a C slot of an exception class's base).",
        "Set the attributes on the instance instead of calling the base's method.",
        "GB0006",
    ),
    GraphBreakType(
        "GB0019",
        "skipped method inlined",
        "A special method (``__enter__`` of a manager made outside the traced code) is "
        "library code that the trace rules skip: it is not traced.",
        "Make the manager inside the compiled function (``with torch.no_grad():``).",
        "GB0008",
    ),
    GraphBreakType(
        "GB0020",
        "requires_grad_() intermediate returned",
        "requires_grad_() on a tensor made in the graph, which (or a tensor computed from "
        "it) the graph returns: AOTAutograd, Dynamo's usual backend, would drop the flag, "
        "so the frame is translated again and the graph breaks at that call.",
        "Call .detach() before returning if only the values are needed, or move "
        "requires_grad_() outside the compiled function.",
        "GB8985",
    ),
    GraphBreakType(
        "GB0021",
        "torch.autograd.grad",
        "torch.autograd.grad runs a backward pass over the real autograd graph: it runs in "
        "CPython (as in Dynamo, whose trace_autograd_ops is off by default).",
        "Call it outside the compiled function.",
        "GB9186",
    ),
    GraphBreakType(
        "GB0022",
        "Tensor.retain_grad()",
        "retain_grad() changes what the real autograd graph keeps; the break comes at the "
        "attribute, where the trace cannot resume: the frame runs in CPython (Dynamo: it "
        "does not work with AOTDispatcher).",
        "Call retain_grad() outside the compiled function.",
        "GB0108",
    ),
    GraphBreakType(
        "GB0023",
        "requires_grad_() of an input",
        "requires_grad_() that changes the flag of a tensor the graph takes as input "
        "mutates an object the graph does not own: it runs in CPython.",
        "Call requires_grad_() before the compiled function.",
        "GB0125",
    ),
    GraphBreakType(
        "GB0024",
        "requires_grad_() intermediate returned under fullgraph",
        "As GB0020, but fullgraph=True allows no break at requires_grad_(): the frame is refused.",
        "Call .detach() before returning if only the values are needed, or move "
        "requires_grad_() outside the compiled function.",
        "GB7324",
    ),
    GraphBreakType(
        "GB0025",
        "module backward hooks",
        "A module with full backward hooks or backward pre-hooks wraps its inputs and "
        "outputs in a torch.utils.hooks.BackwardHook, which the trace does not model "
        "(Dynamo needs compiled autograd for it): the module's call runs in CPython.",
        "Call the module outside the compiled function, or remove its backward hooks.",
        "GB0083",
    ),
    GraphBreakType(
        "GB0033",
        "tensor subclass",
        "A tensor subclass the trace does not model: one with __torch_dispatch__ (a "
        "wrapper subclass), an operation on tensors of unrelated subclasses (eager raises "
        "TypeError), or as_subclass/_make_subclass of something else than a plain "
        "subclass: it runs in CPython.",
        "Pass plain tensors (t.as_subclass(torch.Tensor)) into the compiled function.",
    ),
    GraphBreakType(
        "GB0034",
        "tensor subclass __torch_function__",
        "An operation on tensors whose classes' own __torch_function__ all returned "
        "NotImplemented (eager raises TypeError), or torch's default __torch_function__ "
        "called with arguments the trace does not model: the operation runs in CPython.",
        "Return a result from __torch_function__ for these classes, or call "
        "super().__torch_function__(func, types, args, kwargs) as torch documents.",
        None,
    ),
    GraphBreakType(
        "GB0042",
        "higher-order op side effect",
        "The function given to a higher-order op (torch.cond, checkpoint) changes an object "
        "from outside it (a list, a global, an attribute): its subgraph cannot replay that, "
        "so the op runs in CPython.",
        "Return the value from the function instead of storing it outside.",
        "GB0067",
    ),
    GraphBreakType(
        "GB0031",
        "tensor .data assignment",
        "`t.data = value` is traced on a tensor the frame was given, with a value of its "
        "dtype, device, size and strides; on another tensor, or with another value, it "
        "runs in CPython.",
        "Assign .data outside the compiled function, or copy in place (t.copy_(value)).",
        "GB0056",
    ),
    GraphBreakType(
        "GB0032",
        "tensor method returned a number",
        "A tensor method that returns a Python number about the tensor's storage or "
        "state (storage_offset(), is_set_to(), is_pinned()) is not answered from the "
        "trace's fake tensor, which has other storage: the call runs in CPython.",
        "Compute the number outside the compiled function and pass it in.",
        "GB0208",
    ),
    GraphBreakType(
        "GB0030",
        "operator without fake kernel",
        "An operator (a custom op of torch.library) has no fake (meta) implementation, so "
        "the trace cannot compute its output's shape: it is not PT2 compliant, and its "
        "call runs in CPython.",
        "Register one with torch.library.register_fake (or define the op with "
        "torch.library.custom_op and its register_fake).",
        "GB0090",
    ),
    GraphBreakType(
        "GB0043",
        "generator rebuilt with side effects",
        "A generator alive at a graph break is run to its end in the graph before the "
        "break and rebuilt as an iterator over the items it had left; running it early "
        "must change nothing (a list, a global, an attribute, a tensor in place), nor "
        "raise, so the frame runs in CPython instead.",
        "Consume the generator before the graph break, or remove its side effects.",
        "GB8335",
    ),
    GraphBreakType(
        "GB0035",
        "class made by type() leaves the trace",
        "A class that type(name, bases, namespace) made during the trace (made once, "
        "when the function was traced) is returned or stored outside the compiled "
        "function: in CPython each call makes a new class, so the frame runs there.",
        "Make the class once outside the compiled function.",
    ),
    GraphBreakType(
        "GB0047",
        "data pointer comparison",
        "Two data_ptr() results are compared that the trace cannot prove are one storage "
        "(the same tensor, or a detach() of it, unchanged since): their addresses exist "
        "only at run time.",
        "Compare the tensors (`a is b`) instead, or compare the pointers outside the "
        "compiled function.",
        "GB5976",
    ),
    GraphBreakType(
        "GB0048",
        "function disabled by torch",
        "A function wrapped by torch.compiler.disable (torch._dynamo.disable, "
        "torch._disable_dynamo) runs in CPython, between two graphs, and so do the "
        "functions it calls.",
        "Remove the disable if the function can be traced.",
        "GB0098",
    ),
    GraphBreakType(
        "GB0049",
        "function disabled by torch, not its callees",
        "A function wrapped by torch.compiler.disable(recursive=False) runs in CPython, "
        "between two graphs; the functions it calls are compiled.",
        "Remove the disable if the function can be traced.",
        "GB0099",
    ),
    GraphBreakType(
        "GB0065",
        "generator from outside left paused",
        "A generator the frame was given is left paused by the trace: the caller's "
        "generator object cannot be put in that state, so the frame runs in CPython.",
        "Consume the generator to its end in the function, or take its items outside it.",
    ),
    GraphBreakType(
        "GB0055",
        "RNN, GRU or LSTM module",
        "An nn.RNN, nn.GRU or nn.LSTM module is not traced (Dynamo's allow_rnn is off): "
        "the break comes where the module is read, where the trace cannot resume, so "
        "the frame runs in CPython.",
        "Call the recurrent module outside the compiled function, or use its cell in a loop.",
        "GB0014",
    ),
]

REGISTRY: dict[str, GraphBreakType] = {gb.gb_id: gb for gb in _TYPES}

UNSUPPORTED = "GB0001"
BUILTIN_CALL = "GB0002"
DATA_DEPENDENT_BRANCH = "GB0003"
DATA_DEPENDENT_METHOD = "GB0004"
SKIPPED_FUNCTION = "GB0005"
UNSUPPORTED_OPCODE = "GB0006"
UNSUPPORTED_CALL = "GB0007"
TENSOR_ITEM = "GB0008"
TENSOR_TOLIST = "GB0009"
DISABLED_FUNCTION = "GB0010"
DYNAMIC_SHAPE = "GB0011"
OBSERVED_EXCEPTION = "GB0012"
CLASS_DEFINITION = "GB0013"
USER_GRAPH_BREAK = "GB0014"
TRACE_BUDGET = "GB0015"
NUMPY_FUNCTION = "GB0016"
NUMPY_ATTRIBUTE = "GB0017"
SUPER_ATTRIBUTE = "GB0018"
SKIPPED_INLINE = "GB0019"
REQUIRES_GRAD_OUTPUT = "GB0020"
AUTOGRAD_GRAD = "GB0021"
RETAIN_GRAD = "GB0022"
REQUIRES_GRAD_INPUT = "GB0023"
REQUIRES_GRAD_LEAKED = "GB0024"
MODULE_BACKWARD_HOOKS = "GB0025"
HIGHER_ORDER_SIDE_EFFECT = "GB0042"
NO_FAKE_KERNEL = "GB0030"
DATA_ASSIGNMENT = "GB0031"
TENSOR_METHOD_NUMBER = "GB0032"
TENSOR_SUBCLASS = "GB0033"
TENSOR_SUBCLASS_TORCH_FUNCTION = "GB0034"
GENERATOR_REBUILT_WITH_SIDE_EFFECTS = "GB0043"
TRACE_TIME_CLASS_ESCAPES = "GB0035"
DATA_POINTER_COMPARISON = "GB0047"
TORCH_DISABLED_FUNCTION = "GB0048"
TORCH_DISABLED_FRAME = "GB0049"
EXISTING_GENERATOR_PAUSED = "GB0065"
RNN_MODULE = "GB0055"
