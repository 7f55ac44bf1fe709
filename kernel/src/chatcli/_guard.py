"""Failure isolation inside pluggy's hook calls.

pluggy stops a hook call at the first implementation that raises. chatcli wants the opposite: one
misbehaving plugin is reported and skipped, the others still count. So when a plugin is
registered, each of its hook implementations gets a guard in place of its function
(``HookImpl.function``): pluggy still does the calling — ordering, ``tryfirst``/``trylast``,
wrappers, tracing — and the guard turns an exception or a result of the wrong type into a
reported failure and ``None``, which pluggy skips.

Two shapes are guarded: plain implementations and wrappers (``wrapper=True``: a generator that
yields once and returns the result). pluggy's old-style wrappers (``hookwrapper=True``: a
generator that receives the outcome object) are refused since kernel 2.0: reported in one line
and left out of the call, so the implementations they wrap count as they are.
"""

from __future__ import annotations

import threading
import types
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any, Union, get_args, get_origin

if TYPE_CHECKING:
    from pluggy import HookImpl

__all__ = ["ResultCheck", "current_plugin", "describe", "guard"]

#: The plugin whose hook implementation is running (registration callbacks read it).
class _Current(threading.local):
    """Which plugin's implementation this thread runs: ``set`` returns what ``reset`` restores
    (the ``contextvars`` API, without importing it at start-up)."""

    plugin: str | None = None

    def set(self, plugin: str | None) -> str | None:
        previous, self.plugin = self.plugin, plugin
        return previous

    def reset(self, previous: str | None) -> None:
        self.plugin = previous

    def get(self) -> str | None:
        return self.plugin


current_plugin = _Current()

#: ``report(plugin, hook, reason)``: record one failure of a plugin's hook implementation.
Report = Callable[[str, str, str], None]


class ResultCheck:
    """Whether a value has a hook's declared result type, and how to name that type.

    The annotation is a string (the hookspecs use ``from __future__ import annotations``); it is
    evaluated on first use, so registering a plugin imports none of the types it names.
    """

    def __init__(self, spec_function: Callable[..., Any],
                 namespace: Callable[[], dict[str, Any]]) -> None:
        self._spec_function = spec_function
        self._namespace = namespace
        self._annotation: Any = _UNSET

    @property
    def annotation(self) -> Any:
        """The declared result type."""
        if self._annotation is _UNSET:
            annotation = self._spec_function.__annotations__.get("return", "None")
            if isinstance(annotation, str):  # the kernel's own annotations
                try:  # builtins only (list[str]): no kernel module to import
                    annotation = eval(annotation, {})
                except NameError:
                    try:
                        annotation = eval(annotation, self._namespace())
                    except NameError:  # a plugin's hookspec names a type only for type checkers
                        annotation = Any
            self._annotation = annotation
        return self._annotation

    @property
    def expected(self) -> str:
        """The declared result type, for people."""
        return _name(self.annotation)

    def __call__(self, value: Any) -> bool:
        return _matches(value, self.annotation)


_UNSET = object()


def _matches(value: Any, annotation: Any) -> bool:
    if annotation is Any:
        return True
    if annotation is None or annotation is type(None):
        return value is None
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        return any(_matches(value, arg) for arg in get_args(annotation))
    if origin in (list, tuple, set, frozenset):
        args = get_args(annotation)
        return isinstance(value, origin) and (
            not args or all(_matches(item, args[0]) for item in value))
    if origin is not None:
        return isinstance(value, origin)
    if annotation is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, annotation) if isinstance(annotation, type) else True


def _name(annotation: Any) -> str:
    if annotation is None or annotation is type(None):
        return "None"
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        return " or ".join(_name(arg) for arg in get_args(annotation))
    if origin is not None:
        args = ", ".join(_name(arg) for arg in get_args(annotation))
        return f"{origin.__name__}[{args}]" if args else origin.__name__
    return getattr(annotation, "__name__", str(annotation))


def describe(value: Any) -> str:
    """A short description of a wrong result: its type and a clipped repr."""
    text = repr(value)
    text = text if len(text) <= 60 else text[:59] + "…"
    return f"{type(value).__name__} {text}"


def _one_line(err: BaseException) -> str:
    from chatcli._errors import redact

    lines = [line.strip() for line in f"{type(err).__name__}: {err}".splitlines() if line.strip()]
    return redact(lines[0] if lines else type(err).__name__)


def guard(impl: HookImpl, hook: str, check: ResultCheck, report: Report,
          passthrough: tuple[type[BaseException], ...] = (), firstresult: bool = False) -> None:
    """Replace ``impl.function`` with a guard (see the module docstring).

    ``check`` is the hook's declared result type; a wrapper of a hook that collects results
    returns the list of them. ``passthrough`` names exceptions the hook's contract lets through
    (``ChatcliError`` from ``open_conversation``); ``KeyboardInterrupt`` always passes.
    """
    original = impl.function
    plugin = impl.plugin_name
    let_through: tuple[type[BaseException], ...] = (KeyboardInterrupt, *passthrough)
    results = impl.wrapper and not firstresult  # a wrapper returning the list of results

    def fail(reason: str) -> None:
        report(plugin, hook, reason)

    def wrong(value: Any) -> bool:
        if (isinstance(value, list) and all(item is not None and check(item) for item in value)
                if results else check(value)):
            return False
        expected = f"a list of ({check.expected}) results" if results else check.expected
        fail(f"returned {describe(value)}, expected {expected}")
        return True

    if impl.hookwrapper:
        fail("hookwrapper=True is not supported (chatcli-kernel 2.0): use wrapper=True")
        _swap(impl, _left_out)
    elif impl.wrapper:
        _swap(impl, _new_style(original, plugin, fail, wrong, let_through))
    else:
        def guarded(*args: Any) -> Any:
            token = current_plugin.set(plugin)
            try:
                result = original(*args)
            except let_through:
                raise
            except BaseException as err:  # isolation is the point
                fail(_one_line(err))
                return None
            finally:
                current_plugin.reset(token)
            return None if result is not None and wrong(result) else result

        _swap(impl, guarded)


def _swap(impl: HookImpl, function: Callable[..., Any]) -> None:
    # pluggy declares HookImpl.function Final (read-only for its users); swapping in the guard
    # is this module's whole point, and pluggy calls whatever the attribute holds.
    setattr(impl, "function", function)  # noqa: B010


def _start(original: Callable[..., Any], args: tuple[Any, ...], plugin: str,
           fail: Callable[[str], None], let_through: tuple[type[BaseException], ...]
           ) -> Generator[None, Any, Any] | None:
    """Run a wrapper up to its ``yield``; None (reported) when it fails or does not yield."""
    token = current_plugin.set(plugin)
    try:
        inner: Generator[None, Any, Any] = original(*args)
        next(inner)
        return inner
    except StopIteration:
        fail("wrapper did not yield")
    except let_through:
        raise
    except BaseException as err:
        fail(_one_line(err))
    finally:
        current_plugin.reset(token)
    return None


def _new_style(original: Callable[..., Any], plugin: str, fail: Callable[[str], None],
               wrong: Callable[[Any], bool], let_through: tuple[type[BaseException], ...]
               ) -> Callable[..., Generator[None, Any, Any]]:
    """A guard for ``wrapper=True``: a failing wrapper passes the inner result through."""

    def guarded(*args: Any) -> Generator[None, Any, Any]:
        inner = _start(original, args, plugin, fail, let_through)
        if inner is None:
            return (yield)
        try:
            result = yield
        except BaseException as exc:  # the inner call raised: let the wrapper see it
            token = current_plugin.set(plugin)
            try:
                inner.throw(exc)
            except StopIteration as stop:
                return stop.value
            finally:
                current_plugin.reset(token)
            inner.close()
            raise
        token = current_plugin.set(plugin)
        try:
            inner.send(result)
        except StopIteration as stop:
            return result if wrong(stop.value) else stop.value
        except let_through:
            raise
        except BaseException as err:
            fail(_one_line(err))
            return result
        finally:
            current_plugin.reset(token)
        inner.close()
        fail("wrapper yielded more than once")
        return result

    return guarded


def _left_out(*args: Any) -> Generator[None, Any, None]:
    """What a refused old-style wrapper becomes: it leaves the outcome as it is."""
    yield
