"""A tool whose argument model (:mod:`chatcli_subagents._args`) is imported only when a call's
arguments are validated. The JSON schema the model sees is the model's own, kept in
``<cache dir>/subagents/tool-schemas.json`` under the status of ``_args.py`` and pydantic's
version (made from the models and written when they differ, or the file is missing or
damaged): a run that calls no tool of this plugin never builds the models."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import Tool

if TYPE_CHECKING:
    from chatcli import ToolSpec

__all__ = ["NAMES", "ArgsTool", "schemas"]

#: the argument models of :mod:`chatcli_subagents._args` (its ``__all__``)
NAMES = ("BranchArgs", "DelegateArgs")

_SCHEMAS: tuple[list[Any], dict[str, dict[str, Any]]] | None = None
_LOCK = threading.Lock()


def _made() -> dict[str, dict[str, Any]]:
    """Each argument model's JSON schema (without its title, as the kernel gives it)."""
    from chatcli_subagents import _args

    made = {}
    for name in NAMES:
        schema = getattr(_args, name).model_json_schema()
        schema.pop("title", None)
        made[name] = schema
    return made


def _key() -> list[Any] | None:
    import pydantic

    try:
        found = Path(__file__).with_name("_args.py").stat()
    except OSError:  # no source file to key the cache on
        return None
    return [found.st_mtime_ns, found.st_ctime_ns, found.st_size, found.st_ino,
            str(pydantic.VERSION)]


def schemas() -> dict[str, dict[str, Any]]:
    """The argument models' JSON schemas by model name."""
    global _SCHEMAS
    with _LOCK:
        key = _key()
        if _SCHEMAS is not None and key is not None and _SCHEMAS[0] == key:
            return _SCHEMAS[1]
        if key is None:
            return _made()
        import contextlib
        import json

        from chatcli import atomic_write, cache_dir

        path = cache_dir() / "subagents" / "tool-schemas.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = None
        kept = data.get("schemas") if isinstance(data, dict) and data.get("key") == key \
            else None
        if not (isinstance(kept, dict) and set(kept) == set(NAMES)
                and all(isinstance(value, dict) for value in kept.values())):
            kept = _made()
            with contextlib.suppress(OSError):  # a read-only cache folder: made next time too
                path.parent.mkdir(parents=True, exist_ok=True)
                atomic_write(path, json.dumps({"key": key, "schemas": kept}), mode=0o600)
        _SCHEMAS = (key, kept)
        return kept


class ArgsTool(Tool):
    """A tool whose arguments are validated by the model ``args`` names in
    :mod:`chatcli_subagents._args`. (Not a dataclass of its own: making one costs about a
    millisecond, in every run.)"""

    def __init__(self, *, args: str, **fields: Any) -> None:
        super().__init__(**fields)
        self.args = args

    def spec(self) -> ToolSpec:
        """The tool as the model sees it (made once)."""
        made: ToolSpec | None = self.__dict__.get("_args_spec")
        if made is None:
            import json

            from chatcli import ToolSpec

            schema = json.loads(json.dumps(schemas()[self.args]))  # its own copy
            made = ToolSpec(self.name, self.description, schema, self.risk, self.subject,
                            self.confined)
            self.__dict__["_args_spec"] = made
        return made

    def parse_arguments(self, arguments: dict[str, Any]) -> Any:
        """A validated instance of the argument model (raises ``pydantic.ValidationError``)."""
        from chatcli_subagents import _args

        return getattr(_args, self.args).model_validate(arguments)
