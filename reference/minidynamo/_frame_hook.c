/* _frame_hook.c -- a minimal PEP 523 frame-evaluation hook for CPython 3.10-3.13.
 *
 * All policy lives in Python; this file only moves values across the boundary.
 *
 *   set_callback(cb)      install cb for the calling thread (None uninstalls);
 *                         returns this thread's previous callback or None.
 *   skip(code, flag=True) mark a code object so cb is never called for it.
 *   is_skipped(code)      query that mark.
 *
 * The callback is per thread, as Dynamo's: a compiled call in one thread does not
 * convert the frames another thread runs meanwhile, and each thread's save/restore
 * of its callback cannot undo another's. The evaluator is installed for the
 * interpreter while any thread has a callback.
 *
 * When a callback is installed, the entry of every new *function* frame calls
 *
 *       cb(code, args, globals, builtins, closure)
 *
 * args    = tuple of the values bound to the parameters, in co_varnames order
 *           (positional, keyword-only, then the *args tuple, then the **kwargs dict);
 * closure = tuple of cells, or None.
 *
 * cb returns None       -> the frame runs normally;
 *            a callable -> replacement(*args) runs instead, and its result or
 *                          exception becomes the frame's; the frame is discarded unrun.
 *
 * cb is not called for: generator/coroutine code, class bodies and module code,
 * generator resumption or throw(), frames started while this thread is inside cb,
 * frames started by trace/profile/monitoring functions, and skipped code.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#if PY_VERSION_HEX >= 0x030B0000             /* 3.11+: frames are _PyInterpreterFrame */
#  define Py_BUILD_CORE 1
#  include "internal/pycore_frame.h"
#  undef Py_BUILD_CORE
typedef _PyInterpreterFrame Frame;
#else                                        /* 3.10: frames are PyFrameObject */
#  include <frameobject.h>
typedef PyFrameObject Frame;
#endif

#if PY_VERSION_HEX >= 0x030D0000
#  define FRAME_CODE(f) ((PyCodeObject *)(f)->f_executable)
#  define FRAME_FUNC(f) ((f)->f_funcobj)
/* Exported since 3.13 (for the JIT), declared in internal/pycore_ceval.h. */
PyAPI_FUNC(void) _PyEval_FrameClearAndPop(PyThreadState *, _PyInterpreterFrame *);
#elif PY_VERSION_HEX >= 0x030C0000
#  define FRAME_CODE(f) ((f)->f_code)
#  define FRAME_FUNC(f) ((f)->f_funcobj)
#elif PY_VERSION_HEX >= 0x030B0000
#  define FRAME_CODE(f) ((f)->f_code)
#  define FRAME_FUNC(f) ((PyObject *)(f)->f_func)
#else
#  define FRAME_CODE(f) ((f)->f_code)
#endif

#if PY_VERSION_HEX < 0x030C0000              /* co_extra API got these names in 3.12 */
#  define PyUnstable_Code_GetExtra _PyCode_GetExtra
#  define PyUnstable_Code_SetExtra _PyCode_SetExtra
#  define PyUnstable_Eval_RequestCodeExtraIndex _PyEval_RequestCodeExtraIndex
#endif

static _Thread_local PyObject *callback;    /* this thread's: strong ref, or NULL */
static Py_ssize_t threads_with_callback;    /* guarded by the GIL */
static _PyFrameEvalFunction previous_eval;  /* evaluator that was installed before us */
static Py_ssize_t extra_index = -1;         /* our co_extra slot: non-NULL = skip */
static _Thread_local int in_callback;       /* this thread is running the callback */


/* ---- reading a frame that has not started yet ---------------------------- */

static int
is_new_function_frame(Frame *f, PyCodeObject *co)
{
    const int gen_flags = CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR;
    if (!(co->co_flags & CO_OPTIMIZED) || (co->co_flags & gen_flags))
        return 0;
#if PY_VERSION_HEX >= 0x030B0000
    return f->owner == FRAME_OWNED_BY_THREAD;   /* not a generator's frame */
#else
    return f->f_lasti < 0;                      /* has not executed anything yet */
#endif
}

static int
is_skipped(PyCodeObject *co)
{
    void *mark = NULL;
    PyUnstable_Code_GetExtra((PyObject *)co, extra_index, &mark);
    return mark != NULL;
}

#if PY_VERSION_HEX < 0x030B0000
/* 3.10 moves a parameter that is also a cell variable into its cell when the
   frame is created (leaving the slot NULL); fetch the value back from the cell. */
static PyObject *
param_from_cell(Frame *f, PyCodeObject *co, Py_ssize_t i)
{
    Py_ssize_t ncells = PyTuple_GET_SIZE(co->co_cellvars);
    for (Py_ssize_t c = 0; co->co_cell2arg && c < ncells; c++)
        if (co->co_cell2arg[c] == i)
            return PyCell_GET(f->f_localsplus[co->co_nlocals + c]);
    return NULL;
}
#endif

/* New tuple of the parameter values, in co_varnames order. */
static PyObject *
frame_args(Frame *f, PyCodeObject *co)
{
    Py_ssize_t n = co->co_argcount + co->co_kwonlyargcount
                 + !!(co->co_flags & CO_VARARGS) + !!(co->co_flags & CO_VARKEYWORDS);
    PyObject *args = PyTuple_New(n);
    for (Py_ssize_t i = 0; args != NULL && i < n; i++) {
#if PY_VERSION_HEX >= 0x030B0000
        /* Parameters are the first fast locals; MAKE_CELL has not run yet. */
        PyObject *v = f->localsplus[i];
#else
        PyObject *v = f->f_localsplus[i] ? f->f_localsplus[i] : param_from_cell(f, co, i);
#endif
        if (v == NULL) {
            PyErr_SetString(PyExc_SystemError, "_frame_hook: unbound parameter");
            Py_CLEAR(args);
            break;
        }
        PyTuple_SET_ITEM(args, i, Py_NewRef(v));
    }
    return args;
}

/* New reference: the function's closure (tuple of cells) or None. */
static PyObject *
frame_closure(Frame *f, PyCodeObject *co)
{
#if PY_VERSION_HEX >= 0x030B0000
    PyObject *func = FRAME_FUNC(f);
    PyObject *closure = PyFunction_Check(func) ? PyFunction_GET_CLOSURE(func) : NULL;
    return Py_NewRef(closure ? closure : Py_None);
#else
    /* 3.10 frames do not point at their function, but the closure cells were
       copied into the free-variable slots when the frame was created. */
    Py_ssize_t nfree = PyTuple_GET_SIZE(co->co_freevars);
    if (nfree == 0)
        Py_RETURN_NONE;
    PyObject **cells = f->f_localsplus + co->co_nlocals + PyTuple_GET_SIZE(co->co_cellvars);
    PyObject *closure = PyTuple_New(nfree);
    for (Py_ssize_t i = 0; closure != NULL && i < nfree; i++)
        PyTuple_SET_ITEM(closure, i, Py_NewRef(cells[i]));
    return closure;
#endif
}


/* ---- discarding a frame that will never run ------------------------------ */

static void
discard_frame(PyThreadState *ts, Frame *f)
{
#if PY_VERSION_HEX >= 0x030D0000
    /* 3.12+: whoever evaluates a frame must clear and pop it.  3.13 exports the helper. */
    _PyEval_FrameClearAndPop(ts, f);
#elif PY_VERSION_HEX >= 0x030C0000
    /* 3.12 does not export _PyFrame_ClearExceptCode/_PyThreadState_PopFrame.  This
       frame never ran: it is the top of the data stack, has no frame object and is
       not linked into the frame chain, so clearing it is just dropping its refs. */
    if (f->frame_obj != NULL || (PyObject **)f + f->f_code->co_framesize != ts->datastack_top)
        Py_FatalError("_frame_hook: discarded frame is not a fresh top frame");
    for (int i = 0; i < f->stacktop; i++)
        Py_XDECREF(f->localsplus[i]);
    Py_XDECREF(f->f_locals);
    Py_DECREF(f->f_funcobj);
    Py_DECREF(f->f_code);
    /* Pop it.  If the frame opened a new stack chunk, free the chunk too. */
    _PyStackChunk *chunk = ts->datastack_chunk;
    if ((PyObject **)f == &chunk->data[0]) {
        _PyStackChunk *prev = chunk->previous;
        ts->datastack_chunk = prev;
        ts->datastack_top = &prev->data[prev->top];
        ts->datastack_limit = (PyObject **)((char *)prev + prev->size);
        PyObjectArenaAllocator arena;        /* chunks come from the arena allocator */
        PyObject_GetArenaAllocator(&arena);
        arena.free(arena.ctx, chunk, chunk->size);
    }
    else {
        ts->datastack_top = (PyObject **)f;
    }
#else
    /* 3.10/3.11: the caller (_PyEval_Vector) clears the frame when we return. */
    (void)ts; (void)f;
#endif
}


/* ---- the hook -------------------------------------------------------------- */

static PyObject *
hook(PyThreadState *ts, Frame *f, int throwflag)
{
    PyCodeObject *co = FRAME_CODE(f);
    if (callback == NULL || throwflag || in_callback || ts->tracing
            || !is_new_function_frame(f, co) || is_skipped(co))
        return previous_eval(ts, f, throwflag);

    PyObject *cb = Py_NewRef(callback);      /* cb may uninstall itself */
    PyObject *replacement = NULL, *result = NULL;
    PyObject *args = frame_args(f, co);
    PyObject *closure = args ? frame_closure(f, co) : NULL;
    if (closure != NULL) {
        PyObject *argv[] = {(PyObject *)co, args, f->f_globals, f->f_builtins, closure};
        in_callback = 1;
        replacement = PyObject_Vectorcall(cb, argv, 5, NULL);
        in_callback = 0;
        Py_DECREF(closure);
    }
    Py_DECREF(cb);

    if (replacement == Py_None) {            /* run the original frame */
        Py_DECREF(replacement);
        Py_DECREF(args);
        return previous_eval(ts, f, throwflag);
    }
    if (replacement != NULL)                 /* else: cb raised, propagate */
        result = PyObject_Call(replacement, args, NULL);
    Py_XDECREF(replacement);
    Py_XDECREF(args);
    discard_frame(ts, f);
    return result;
}


/* ---- module ----------------------------------------------------------------- */

static PyObject *
set_callback(PyObject *self, PyObject *cb)
{
    PyInterpreterState *interp = PyInterpreterState_Get();
    _PyFrameEvalFunction current = _PyInterpreterState_GetEvalFrameFunc(interp);
    if (cb != Py_None && !PyCallable_Check(cb))
        return PyErr_Format(PyExc_TypeError, "callback must be callable or None");
    PyObject *old = callback ? callback : Py_NewRef(Py_None);
    if (cb == Py_None) {
        if (callback != NULL && --threads_with_callback == 0 && current == hook)
            _PyInterpreterState_SetEvalFrameFunc(interp, previous_eval);
        callback = NULL;
    }
    else {
        if (callback == NULL)
            threads_with_callback++;
        callback = Py_NewRef(cb);
        if (current != hook) {
            previous_eval = current;
            _PyInterpreterState_SetEvalFrameFunc(interp, hook);
        }
    }
    return old;
}

static PyObject *
skip(PyObject *self, PyObject *args)
{
    PyObject *code;
    int flag = 1;
    if (!PyArg_ParseTuple(args, "O!|p:skip", &PyCode_Type, &code, &flag))
        return NULL;
    if (PyUnstable_Code_SetExtra(code, extra_index, flag ? (void *)1 : NULL) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *
is_skipped_py(PyObject *self, PyObject *code)
{
    if (!PyCode_Check(code))
        return PyErr_Format(PyExc_TypeError, "expected a code object");
    return PyBool_FromLong(is_skipped((PyCodeObject *)code));
}

static PyMethodDef methods[] = {
    {"set_callback", set_callback, METH_O, "Install cb (or None) for this thread."},
    {"skip", skip, METH_VARARGS, "skip(code, flag=True): never call the callback for code."},
    {"is_skipped", is_skipped_py, METH_O, "Whether skip() marked this code object."},
    {NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "minidynamo._frame_hook", NULL, -1, methods};

PyMODINIT_FUNC
PyInit__frame_hook(void)
{
    extra_index = PyUnstable_Eval_RequestCodeExtraIndex(NULL);
    if (extra_index < 0)
        return PyErr_Format(PyExc_RuntimeError, "no free co_extra slot");
    return PyModule_Create(&module);
}
