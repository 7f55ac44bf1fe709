"""The tools: descriptions, risks, and their argument models' JSON schemas (what the model sees).

Imported when chatcli builds an engine (``register_tools``), never at start-up. The argument
models (:mod:`chatcli_coder._args`, pydantic) are imported when a call's arguments are
validated; the schemas come from ``<cache dir>/coder/tool-schemas.json`` when it was written for
the same ``_args.py`` and pydantic (made from the models and written otherwise), so a run that
calls no tool never builds the models.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import Risk, Tool

from chatcli_coder._settings import coder_settings

if TYPE_CHECKING:
    from collections.abc import Callable

    from chatcli import Settings, ToolContext, ToolSpec

_SCHEMAS: dict[str, dict[str, Any]] | None = None
_SCHEMAS_LOCK = threading.Lock()


def _made_schemas() -> dict[str, dict[str, Any]]:
    """Each argument model's JSON schema (without its title, as the kernel gives it)."""
    from chatcli_coder import _args

    schemas = {}
    for name in _args.__all__:
        schema = getattr(_args, name).model_json_schema()
        schema.pop("title", None)
        schemas[name] = schema
    return schemas


def schemas() -> dict[str, dict[str, Any]]:
    """The argument models' JSON schemas by model name: from the cache file when its key (the
    status of ``_args.py`` and pydantic's version) matches, else made and written there."""
    global _SCHEMAS
    with _SCHEMAS_LOCK:
        if _SCHEMAS is not None:
            return _SCHEMAS
        import json

        import pydantic
        from chatcli import atomic_write, cache_dir

        try:
            found = Path(__file__).with_name("_args.py").stat()
        except OSError:  # no source file to key the cache on: made every time
            _SCHEMAS = _made_schemas()
            return _SCHEMAS
        key = [found.st_mtime_ns, found.st_ctime_ns, found.st_size, found.st_ino,
               pydantic.VERSION]
        path = cache_dir() / "coder" / "tool-schemas.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = None
        if (isinstance(data, dict) and data.get("key") == key
                and isinstance(data.get("schemas"), dict)):
            _SCHEMAS = data["schemas"]
            return _SCHEMAS
        _SCHEMAS = _made_schemas()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, json.dumps({"key": key, "schemas": _SCHEMAS}))
        except OSError:
            pass
        return _SCHEMAS


class CoderTool(Tool):
    """A coder tool: ``args`` names its argument model in :mod:`chatcli_coder._args`, which
    validates a call (imported then); the schema the model sees comes from :func:`schemas`.
    (Not a dataclass of its own: making one costs about a millisecond, in every run.)"""

    def __init__(self, *, args: str = "", **fields: Any) -> None:
        super().__init__(**fields)
        self.args = args

    def spec(self) -> ToolSpec:
        """The tool as the model sees it (made once)."""
        made: ToolSpec | None = self.__dict__.get("_coder_spec")
        if made is None:
            import json

            from chatcli import ToolSpec

            schema = json.loads(json.dumps(schemas()[self.args]))  # its own copy, at C speed
            made = ToolSpec(self.name, self.description, schema, self.risk, self.subject,
                            self.confined)
            self.__dict__["_coder_spec"] = made
        return made

    def parse_arguments(self, arguments: dict[str, Any]) -> Any:
        """A validated instance of the argument model (raises ``pydantic.ValidationError``)."""
        from chatcli_coder import _args

        return getattr(_args, self.args).model_validate(arguments)


def _lazy(module: str, name: str) -> Any:
    """``run`` importing its module on the first call."""

    def run(args: Any, context: ToolContext) -> str:
        import importlib

        tool: Callable[[Any, ToolContext], str] = getattr(importlib.import_module(module), name)
        return tool(args, context)

    run.__name__ = name
    return run


def make_tools(settings: Settings, workspace: Path) -> list[Tool]:
    """The tools, described for the model."""
    coder = coder_settings(settings)
    sandbox = {"off": "The sandbox is off: commands run with your permissions.",
               "bwrap": "Commands run in a bubblewrap sandbox: the filesystem is read-only but "
                        "for the workspace and a private /tmp, and there is no network unless "
                        "network=true.",
               "auto": "Where bubblewrap is installed, commands run in its sandbox: the "
                       "filesystem is read-only but for the workspace and a private /tmp, and "
                       "there is no network unless network=true (without it, the result says "
                       "so)."}[coder.sandbox]
    if coder.sandbox != "off":
        sandbox += (" In the sandbox, files the user denied are empty, chatcli's and git's "
                    "control files (.git, .chatcli, .mcp.json, .gitattributes) are read-only "
                    "unless the user approved writing them, and a command not approved for "
                    "writing sees the workspace read-only.")
    limits = (f"Default timeout {coder.exec_timeout:g} s, at most {coder.exec_timeout_max:g} s; "
              "on timeout or when the user stops it, the command and everything it started are "
              "killed. Output (stdout and stderr together) is shown to the user live; the "
              "result keeps its beginning and end when long.")
    from chatcli_coder._detect import test_hint
    from chatcli_coder._probe import will_confine

    confined = will_confine(coder)

    return [
        CoderTool(
            name="read", args="ReadArgs", risk=Risk.READ, subject="path",
            run=_lazy("chatcli_coder._files", "read_file"),
            description=(
                "Read a text file, with line numbers ('   12<TAB>text'). Shows up to 2000 "
                "lines from offset (default 1), or head/tail N lines; says which lines were "
                "left out and the offset to continue with. Lines over 2000 characters are cut. "
                "Binary files are refused. Read a file before editing it: edit, multiedit, "
                "apply_patch and write refuse files not read in this conversation, or changed "
                "since."),  # untranslated: model-facing
        ),
        CoderTool(
            name="write", args="WriteArgs", risk=Risk.WRITE, subject="path",
            run=_lazy("chatcli_coder._files", "write_file"),
            preview=_lazy("chatcli_coder._files", "preview_write"),
            description=(
                "Create a file, or replace all of an existing one (read it first), atomically "
                "(a temporary file, then a rename; permissions kept). Prefer edit for changes "
                "to part of a file."),  # untranslated: model-facing
        ),
        CoderTool(
            name="edit", args="EditArgs", risk=Risk.WRITE, subject="path",
            run=_lazy("chatcli_coder._files", "edit_file"),
            preview=_lazy("chatcli_coder._files", "preview_edit"),
            description=(
                "Replace text in a file you have read: old must occur exactly once (or set "
                "replace_all). When old is not found as it is, it is looked for ignoring line "
                "endings, then trailing whitespace, then a different indentation of whole "
                "lines (new is re-indented the same way); otherwise the error quotes the "
                "closest lines. Returns the changed lines."),  # untranslated: model-facing
        ),
        CoderTool(
            name="multiedit", args="MultiEditArgs", risk=Risk.WRITE, subject=None,
            run=_lazy("chatcli_coder._files", "multiedit_files"),
            preview=_lazy("chatcli_coder._files", "preview_multiedit"),
            description=(
                "Several edits (like the edit tool's) to one or more files you have read, all "
                "or nothing: if one fails, no file changes and the error "
                "names it."),  # untranslated: model-facing
        ),
        CoderTool(
            name="apply_patch", args="PatchArgs", risk=Risk.WRITE, subject=None,
            run=_lazy("chatcli_coder._files", "apply_patch"),
            preview=_lazy("chatcli_coder._files", "preview_patch"),
            description=(
                "Apply a patch to files you have read: a unified diff, or the '*** Begin "
                "Patch' format; adds, deletes, renames and updates files, all or nothing. "
                "Hunks are found by their lines (exact, else ignoring trailing whitespace or "
                "a different indentation), near the line numbers given; line counts in @@ "
                "headers need not be right."),  # untranslated: model-facing
        ),
        CoderTool(
            name="search", args="SearchArgs", risk=Risk.READ, subject="path",
            run=_lazy("chatcli_coder._find", "search"),
            description=(
                "Search file contents with ripgrep: regex (Rust syntax) or literal text, "
                "optionally case-insensitive, in a folder or file, filtered by glob, with "
                "context lines. Output 'path:line:text' (context lines 'path-line-text'). "
                "Skips .git, .gitignored files (unless include_ignored), binary files and "
                "credential files (.env, keys). Shows up to max_results matching lines and "
                "says how many more there are."),  # untranslated: model-facing
        ),
        CoderTool(
            name="glob", args="GlobArgs", risk=Risk.READ, subject="path",
            run=_lazy("chatcli_coder._find", "glob_files"),
            description=(
                "List files whose path matches a glob, sorted by path: '*.py' at any depth, "
                "'src/*.py' directly in src, 'tests/**/test_*.py'. Skips .git, .gitignored "
                "files (unless include_ignored) and credential files; files only, not "
                "folders."),  # untranslated: model-facing
        ),
        CoderTool(
            name="tree", args="TreeArgs", risk=Risk.READ, subject="path",
            run=_lazy("chatcli_coder._find", "tree"),
            description=(
                "Show a folder's layout as an indented tree (folders first, 'name/'; symbolic "
                "links as 'name -> target'), down to depth levels; deeper folders show their "
                "entry count. Honours .gitignore, skips .git and credential files; at most "
                "max_entries entries and 100 per folder."),  # untranslated: model-facing
        ),
        CoderTool(
            name="exec", args="ExecArgs", risk=Risk.EXECUTE, subject="command",
            confined=confined,
            run=_lazy("chatcli_coder._shell", "exec_command"),
            description=(
                "Run a shell command with bash -c in the workspace (or cwd inside it); stdin "
                "is empty, so it must not wait for input. Returns the exit code and the "
                f"output. {limits} Background processes are killed when the command ends. "
                f"{sandbox} Use the dedicated tools to read, search and edit "
                "files."),  # untranslated: model-facing
        ),
        CoderTool(
            name="git", args="GitArgs", risk=Risk.READ, subject=None,
            run=_lazy("chatcli_coder._shell", "git_tool"),
            description=(
                "Look at the workspace's git repository, read-only: status, diff (or staged "
                "diff), log, changed files, branches; optionally for one path. It never "
                "commits, checks out or changes anything (use exec for that, with the user's "
                "approval)."),  # untranslated: model-facing
        ),
        CoderTool(
            name="test", args="TestArgs", risk=Risk.EXECUTE, subject="command",
            confined=confined,
            run=_lazy("chatcli_coder._shell", "run_tests"),
            description=(
                "Run the project's tests and report pass or fail with the output. Without "
                "command it detects the test command: pytest (the project's .venv python, "
                "uv run, or python3 -m pytest), npm test, go test ./..., cargo test, make "
                f"test.{test_hint(Path(workspace))} Runs like exec: {limits} "
                f"{sandbox}"),  # untranslated: model-facing
        ),
    ]
