"""The text tool-call protocol, for models without native tool calling.

chatcli's engine knows only native tool calls: it sends ``ChatRequest.tools`` and reads
:class:`chatcli.ToolCallEvent` objects. A provider whose model cannot take tool definitions wraps
itself in :class:`TextToolCalls` (:func:`text_tool_calls` at the end of its factory does it when
the kernel says so: ``ProviderConfig.native_tools`` is False for a spec with
``Capabilities(native_tools=False)`` or ``[providers.NAME] tool_calls = "text"``)::

    def make_provider(config: ProviderConfig) -> Provider:
        from chatcli_provider_kit.textcalls import text_tool_calls

        return text_tool_calls(MyProvider(config), config)

The wrapper describes the tools in the system prompt (:func:`catalog_section`), shows earlier
calls as the text the model wrote and their results as a user message (:func:`as_text`), and
parses the calls the model writes (:func:`parse_tool_calls`; the accepted forms, the limits and
what is not a call are described in its module) back into ``ToolCallEvent`` objects.
:func:`format_tool_call` writes the canonical form ``<tool_call name="NAME" args='{…}'/>``.

Importing this module is cheap; the parser (regular expressions) loads on the first request
that offers tools.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chatcli_provider_kit.textcalls._provider import (
    UNREAD_CALLS_NOTE,
    TextToolCalls,
    as_text,
    text_tool_calls,
)

if TYPE_CHECKING:
    from chatcli_provider_kit.textcalls._parse import (
        CATALOG_SECTION,
        MAX_CALLS,
        MAX_DEPTH,
        ParsedCall,
        ToolCalls,
        catalog_section,
        format_tool_call,
        parse_tool_calls,
        scan_tool_calls,
        to_tool_call,
    )

__all__ = [
    "CATALOG_SECTION",
    "MAX_CALLS",
    "MAX_DEPTH",
    "UNREAD_CALLS_NOTE",
    "ParsedCall",
    "TextToolCalls",
    "ToolCalls",
    "as_text",
    "catalog_section",
    "format_tool_call",
    "parse_tool_calls",
    "scan_tool_calls",
    "text_tool_calls",
    "to_tool_call",
]

_PARSER = {"CATALOG_SECTION", "MAX_CALLS", "MAX_DEPTH", "ParsedCall", "ToolCalls",
           "catalog_section", "format_tool_call", "parse_tool_calls", "scan_tool_calls",
           "to_tool_call"}


def __getattr__(name: str) -> Any:
    """The parser's names, imported on first use."""
    if name in _PARSER:
        from chatcli_provider_kit.textcalls import _parse

        value = getattr(_parse, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
