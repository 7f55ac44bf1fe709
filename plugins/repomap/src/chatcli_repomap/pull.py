"""The ``repomap`` kind of ``context_pull``: the whole map (every definition of every mapped
file, ranked), or the map of one file or folder, page by page."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chatcli import ToolContext
    from chatcli_plugin_records import PullKind

    from chatcli_repomap.settings import RepomapOptions

__all__ = ["RepomapPullError", "pull_call", "pull_kind"]


class RepomapPullError(LookupError):
    """A pull that cannot be answered; the message says what to do instead."""


def pull_call(**arguments: Any) -> str:
    """The exact call that reads (part of) the map: ``context_pull {"kind":"repomap"}``."""
    payload = {"kind": "repomap", **{k: v for k, v in arguments.items() if v not in (None, 0)}}
    return "context_pull " + json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def pull_kind(options: Callable[[Any], RepomapOptions]) -> PullKind:
    """The kind, reading the ``[repomap]`` options of the call's settings."""
    from chatcli_plugin_records import PullKind

    def fetch(arguments: Mapping[str, Any], context: ToolContext) -> str:
        return _fetch(arguments, context, options(context.settings))

    return PullKind("repomap", "the repository map whole: every definition (functions, "
                               "classes, methods…) of the project's source files, most "
                               "referenced first; or those of one file or folder",
                    fetch, "file (optional): a file or folder of the project; offset "
                           "(optional)")


def _fetch(arguments: Mapping[str, Any], context: ToolContext, options: RepomapOptions) -> str:
    from chatcli_repomap.build import build_map

    where = arguments.get("file") or arguments.get("name") or arguments.get("folder")
    path = str(where).strip() if where else None
    offset = arguments.get("offset")
    offset = offset if isinstance(offset, int) and offset > 0 else 0
    texts = [m.text for m in context.conversation.view()] if context.conversation else []
    built = build_map(context.workspace, tokens=None, mentioned_texts=texts,
                      max_files=options.max_files, max_file_bytes=options.max_file_kb * 1024,
                      path=path, seconds=options.seconds * 5)
    text = built.text
    if offset and offset >= len(text):
        raise RepomapPullError(  # (context_pull's answer: the model's, in English)
            f"offset {offset:,} is past the end (the map has {len(text):,} "  # untranslated
            "characters); call without offset to start at the beginning")
    limit = max(1_000, context.max_output - 400)
    chunk = text[offset:offset + limit]
    end = offset + len(chunk)
    if end < len(text):
        cut = chunk.rfind("\n")
        if cut > limit // 2:  # end the page on a whole line
            chunk, end = chunk[:cut], offset + cut + 1
        chunk += (f"\n\n[characters {offset:,}–{end:,} of {len(text):,}; the next page: "
                  f"{pull_call(file=path, offset=end)}]")
    return chunk
