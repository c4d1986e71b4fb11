"""One arguments model per function, shared by every :class:`FunctionTool` of that function.

Building a pydantic model and its normalized schema costs about 10 KB and a millisecond per
function. An application that gives every conversation its own ``FunctionTool(get_weather)``
would pay that per conversation; :func:`shared_arguments` pays it once per function.

The cache is keyed weakly on the function object (a deleted function takes its entry with it)
and on whether the first parameter is dropped (a method's ``self``). An entry is reused only
while what :func:`~robota.core.schema.signature.arguments_model` reads is unchanged, for the
function and for every function along its ``__wrapped__`` chain (a ``functools.wraps``
wrapper reads its parameters from the function it wraps): code, name, docstring, defaults,
keyword-only defaults, annotations, ``__signature__`` and ``__wrapped__``. A function is not
cached at all (its model is built anew for each tool) when a default is a mutable value (a
``[]`` default changed in place would leave a stale default in the schema), or when its
``__wrapped__`` chain leads to something that is not a plain function.

A ``functools.partial`` (its remaining parameters) and a callable object (its ``__call__``
without ``self``) are described by :func:`callable_arguments`, built anew for each tool.

The shared :class:`ArgumentsModel` (and its ``schema`` dict) is read only: nothing in Robota
changes it, and a caller must not either. A tool's ``parameters`` is its own copy of the
schema (:func:`copy_schema`).
"""

from __future__ import annotations

import enum
import functools
import inspect
import threading
import types
import typing
import weakref
from collections.abc import Callable
from typing import Any

from robota.core.schema.normalize import SchemaConversionError
from robota.core.schema.signature import ArgumentsModel, arguments_model

__all__ = [
    "callable_arguments",
    "callable_name",
    "copy_schema",
    "is_coroutine_callable",
    "shared_arguments",
]

_MAX_CHAIN = 64
"""The longest ``__wrapped__`` chain cached (a longer or cyclic one is built anew)."""

_Link = tuple[Any, ...]
"""What one function of a ``__wrapped__`` chain looked like (see :func:`_link`)."""

_Fingerprint = tuple[_Link, ...]
"""The links of the key function and of every function it wraps, in chain order."""

_Entries = dict[bool, tuple[_Fingerprint, ArgumentsModel]]
"""``drop_first`` → (the function's fingerprint when built, the model built)."""

_CACHE: weakref.WeakKeyDictionary[types.FunctionType, _Entries] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()

_IMMUTABLE_LEAVES = (type(None), type(...), bool, int, float, complex, str, bytes)


def _immutable(value: object) -> bool:
    """True when ``value`` cannot change in place: None, bool, int, float, complex, str,
    bytes, an enum member, or a tuple or frozenset of those (recursively). Exact types only
    (a subclass of ``int`` may carry mutable state)."""
    if type(value) in _IMMUTABLE_LEAVES or isinstance(value, enum.Enum):
        return True
    if type(value) in (tuple, frozenset):
        members: tuple[object, ...] | frozenset[object] = value  # pyright: ignore[reportAssignmentType]
        return all(_immutable(member) for member in members)
    return False


def _link(fn: types.FunctionType) -> _Link | None:
    """What the arguments model reads from ``fn`` itself, or None when a default is mutable
    (such a function is never cached). Holds no reference to ``fn``; values are kept by
    identity (annotations and keyword-only defaults as item tuples, since their dicts can
    change in place)."""
    defaults = fn.__defaults__
    kwdefaults = fn.__kwdefaults__
    signature: inspect.Signature | None = getattr(fn, "__signature__", None)
    values: list[object] = [*(defaults or ()), *(kwdefaults or {}).values()]
    if signature is not None:
        if not isinstance(signature, inspect.Signature):  # pyright: ignore[reportUnnecessaryIsInstance]
            return None
        values.extend(p.default for p in signature.parameters.values())
    if not all(v is inspect.Parameter.empty or _immutable(v) for v in values):
        return None
    return (
        fn.__code__,
        fn.__name__,
        fn.__doc__,
        defaults,
        None if kwdefaults is None else tuple(kwdefaults.items()),
        tuple(fn.__annotations__.items()),
        signature,
        getattr(fn, "__wrapped__", None),
    )


def _same_items(current: dict[str, Any] | None, stored: tuple[tuple[str, Any], ...]) -> bool:
    if current is None or len(current) != len(stored):
        return False
    missing = object()
    return all(current.get(key, missing) is value for key, value in stored)


def _link_unchanged(stored: _Link, fn: types.FunctionType) -> bool:
    code, name, doc, defaults, kwdefaults, annotations, signature, wrapped = stored
    current_kwdefaults = fn.__kwdefaults__
    return (
        fn.__code__ is code
        and fn.__name__ == name
        and fn.__doc__ is doc
        and fn.__defaults__ is defaults
        and (
            current_kwdefaults is None
            if kwdefaults is None
            else _same_items(current_kwdefaults, kwdefaults)
        )
        and _same_items(fn.__annotations__, annotations)
        and getattr(fn, "__signature__", None) is signature
        and getattr(fn, "__wrapped__", None) is wrapped
    )


def _fingerprint(fn: types.FunctionType) -> _Fingerprint | None:
    """The links of ``fn`` and of every function along its ``__wrapped__`` chain; None when
    ``fn`` must not be cached (a mutable default anywhere, a link that is no plain function,
    or a chain longer than :data:`_MAX_CHAIN`)."""
    links: list[_Link] = []
    current: object = fn
    while current is not None:
        if not isinstance(current, types.FunctionType) or len(links) >= _MAX_CHAIN:
            return None
        link = _link(current)
        if link is None:
            return None
        links.append(link)
        current = link[-1]
    return tuple(links)


def _unchanged(stored: _Fingerprint, fn: types.FunctionType) -> bool:
    """True when ``fn`` and the functions it wraps still read as when ``stored`` was taken."""
    current: Any = fn
    for link in stored:
        if not _link_unchanged(link, current):
            return False
        current = link[-1]  # the wrapped function, checked to be the same object
    return True


def shared_arguments(fn: Callable[..., Any], *, drop_first: bool) -> ArgumentsModel:
    """The arguments model of ``fn``, shared with every earlier call for the same function.

    Args:
        fn: A function, or a bound method (its function is the key; its first parameter is
            dropped whatever ``drop_first`` says). Any other callable is described by
            :func:`callable_arguments` (a class: by :func:`arguments_model`), not cached.
        drop_first: True when ``fn`` is a method written in a class body and read through the
            class (its first parameter, ``self``, is not an argument).

    Returns:
        The :class:`ArgumentsModel` :func:`arguments_model` builds for ``fn`` (for
        ``drop_first``: for ``fn`` bound to an instance). Read only.

    Raises:
        SchemaConversionError: see :func:`arguments_model` (a failure is not cached) and
            :func:`callable_arguments`.
    """
    if isinstance(fn, types.MethodType) and isinstance(fn.__func__, types.FunctionType):
        key, drop = fn.__func__, True
    elif isinstance(fn, types.FunctionType):
        key, drop = fn, drop_first
    else:
        return callable_arguments(fn)
    with _LOCK:
        entries = _CACHE.get(key)
        found = entries.get(drop) if entries is not None else None
    if found is not None and _unchanged(found[0], key):
        return found[1]
    fingerprint = _fingerprint(key)
    target = types.MethodType(key, object()) if drop else key
    if fingerprint is None and not _plain_chain(key):
        return callable_arguments(target)  # wraps a partial or a callable object
    built = arguments_model(target)
    if fingerprint is not None:
        with _LOCK:
            _CACHE.setdefault(key, {})[drop] = (fingerprint, built)
    return built


def _plain_chain(fn: types.FunctionType) -> bool:
    """True when every object along ``fn``'s ``__wrapped__`` chain is a plain function."""
    current: object = fn
    for _ in range(_MAX_CHAIN):
        current = getattr(current, "__wrapped__", None)
        if current is None:
            return True
        if not isinstance(current, types.FunctionType):
            return False
    return False


def _innermost(fn: Callable[..., Any]) -> Any:
    """What ``fn`` finally calls: ``fn`` without its ``functools.partial`` layers and its
    ``__wrapped__`` links (at most :data:`_MAX_CHAIN` of them)."""
    inner: Any = fn
    for _ in range(_MAX_CHAIN):
        if isinstance(inner, functools.partial):
            inner = inner.func  # pyright: ignore[reportUnknownMemberType]
        elif (wrapped := getattr(inner, "__wrapped__", None)) is not None:
            inner = wrapped
        else:
            break
    return inner


def _is_callable_object(value: object) -> bool:
    return not isinstance(value, type) and not inspect.isroutine(value) and callable(value)


def _described(fn: Callable[..., Any]) -> Any:
    """Whose name and docstring describe ``fn``: ``fn`` itself when it has a ``__name__`` (a
    function, a ``functools.wraps`` wrapper, a method), else what it finally calls."""
    return fn if isinstance(getattr(fn, "__name__", None), str) else _innermost(fn)


def callable_name(fn: Callable[..., Any]) -> str:
    """The default tool name of ``fn``: its ``__name__``; for a ``functools.partial`` the
    wrapped callable's; for a callable object its class's."""
    name = getattr(_described(fn), "__name__", None)
    return name if isinstance(name, str) else type(_innermost(fn)).__name__


def is_coroutine_callable(fn: Callable[..., Any]) -> bool:
    """True when calling ``fn`` returns a coroutine: an async function, a ``partial`` of one,
    or an object whose ``__call__`` is async."""
    if inspect.iscoroutinefunction(fn):
        return True
    inner = fn
    while isinstance(inner, functools.partial):
        inner = inner.func  # pyright: ignore[reportUnknownMemberType]
    if inspect.iscoroutinefunction(inner):
        return True
    return _is_callable_object(inner) and inspect.iscoroutinefunction(type(inner).__call__)


def callable_arguments(fn: Callable[..., Any]) -> ArgumentsModel:
    """The arguments model of a callable that is not a plain function (built anew each time).

    A ``functools.partial`` is described by its remaining parameters (what
    :func:`inspect.signature` gives for it: a parameter given by keyword keeps the partial's
    value as its default), with the type hints, name and docstring of the wrapped callable; a
    callable object by its ``__call__`` without ``self``, named after its class and documented
    by the class's (else ``__call__``'s) docstring; a ``functools.wraps`` wrapper of either by
    what it wraps. A class is described as :func:`arguments_model` does (its constructor's
    parameters).

    Raises:
        SchemaConversionError: the callable's signature or type hints cannot be read (e.g. a
            builtin), or see :func:`arguments_model`.
    """
    if isinstance(fn, type):
        return arguments_model(fn)
    inner = _innermost(fn)
    described = _described(fn)
    name = callable_name(fn)
    hinted: Any = type(inner).__call__ if _is_callable_object(inner) else inner
    try:
        signature = inspect.signature(fn)
        hints = typing.get_type_hints(hinted, include_extras=True)
    except (TypeError, ValueError, NameError) as error:
        raise SchemaConversionError(
            f"cannot read the parameters of {name!r} ({type(fn).__name__}): {error}; "
            "pass a function, a bound method, a functools.partial or an object with a typed "
            "__call__",
            field="",
        ) from error
    doc = inspect.getdoc(described)
    if doc is None and _is_callable_object(inner):
        doc = inspect.getdoc(type(inner).__call__)

    def stub(**kwargs: Any) -> Any:  # carries the signature, hints and docstring
        return kwargs

    stub.__name__ = name
    stub.__doc__ = doc
    stub.__signature__ = signature  # type: ignore[attr-defined]
    stub.__annotations__ = {n: hints[n] for n in signature.parameters if n in hints}
    return arguments_model(stub)


def copy_schema(schema: Any) -> Any:
    """A copy of a JSON-shaped ``schema`` sharing nothing mutable with it: dicts, lists and
    tuples are copied recursively; other values (str, numbers, bool, None) are kept."""
    if isinstance(schema, dict):
        items: dict[Any, Any] = schema  # pyright: ignore[reportUnknownVariableType]
        return {key: copy_schema(value) for key, value in items.items()}
    if isinstance(schema, list | tuple):
        members: list[Any] | tuple[Any, ...] = schema  # pyright: ignore[reportUnknownVariableType]
        copied = [copy_schema(member) for member in members]
        return copied if isinstance(schema, list) else tuple(copied)
    return schema
