"""The bytecode layer: CPython 3.10-3.13 code objects as one instruction vocabulary.

convert_frame `decode`s a frame's code for InstructionTranslator; codegen builds new code
with the `create_*` helpers and `assemble`s it; `dis_text` prints it for logs and golden
files and `python_source` decompiles it for readers. Every difference between CPython
versions in how bytecode is encoded stays here.
"""

from .assemble import assemble
from .checks import stored_locals
from .create import (
    add_push_null,
    clone_instructions,
    create_binary_op,
    create_binary_subscr,
    create_build_tuple,
    create_call_function,
    create_call_function_kw,
    create_call_method,
    create_copy_free_vars,
    create_dup_top,
    create_enter_with,
    create_instruction,
    create_jump_absolute,
    create_load_attr,
    create_load_closure,
    create_load_const,
    create_load_fast,
    create_load_global,
    create_load_method,
    create_make_function,
    create_push_null,
    create_rerun,
    create_resume,
    create_return_value,
    create_rot_n,
    create_store_fast,
    create_swap,
    create_try_finally,
    create_unpack_sequence,
    without_method_calls,
)
from .decode import decode, decode_prefix
from .decompiled import python_source
from .instruction import BytecodeError, ExceptionTableEntry, Instruction, Positions, exception_table
from .listing import dis_text
from .stack import stack_effect

__all__ = [
    "BytecodeError",
    "ExceptionTableEntry",
    "Instruction",
    "Positions",
    "add_push_null",
    "assemble",
    "clone_instructions",
    "create_binary_op",
    "create_binary_subscr",
    "create_build_tuple",
    "create_call_function",
    "create_call_function_kw",
    "create_call_method",
    "create_copy_free_vars",
    "create_dup_top",
    "create_enter_with",
    "create_instruction",
    "create_jump_absolute",
    "create_load_attr",
    "create_load_closure",
    "create_load_const",
    "create_load_fast",
    "create_load_global",
    "create_load_method",
    "create_make_function",
    "create_push_null",
    "create_rerun",
    "create_resume",
    "create_return_value",
    "create_rot_n",
    "create_store_fast",
    "create_swap",
    "create_try_finally",
    "create_unpack_sequence",
    "decode",
    "decode_prefix",
    "dis_text",
    "exception_table",
    "python_source",
    "stack_effect",
    "stored_locals",
    "without_method_calls",
]
