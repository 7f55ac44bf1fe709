"""The argument model of ``context_pull`` (pydantic): imported when a call's arguments are
validated, never to describe the tool (:data:`chatcli_context.pull.PULL_SCHEMA` holds its JSON
schema, kept equal to this model's by a test)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from chatcli_context.pull_args import normalise

__all__ = ["PullArgs"]


def _compact_schema(schema: dict[str, Any], _model: Any = None) -> None:
    """Show ``str | None`` fields as plain strings (the model needs no ``anyOf``/``null``)."""
    for prop in schema.get("properties", {}).values():
        options = prop.pop("anyOf", None)
        if options:
            types = [o for o in options if o.get("type") != "null"]
            if len(types) == 1:
                prop.update(types[0])
        prop.pop("default", None)
        prop.pop("title", None)


class PullArgs(BaseModel):
    """The arguments of ``context_pull``; any other key is kept (and read by the kind)."""

    model_config = ConfigDict(extra="allow", json_schema_extra=_compact_schema)

    # (the tool's JSON schema: the model's, in English)
    kind: str | None = Field(None, description=(
        "what to read back: one of the kinds listed in the tool's description"))  # untranslated
    name: str | None = Field(None, description=(
        "which one (a context's name, a bootstrap file's, a skill's …)"))  # untranslated
    id: str | None = Field(None, description="a compaction's id (kind history)")  # untranslated
    file: str | None = Field(None, description=(
        "one file of a context (kind context)"))  # untranslated
    offset: int | None = Field(None, description=(
        "where the next page starts, as the previous result says"))  # untranslated

    @model_validator(mode="before")
    @classmethod
    def _tolerant(cls, data: Any) -> dict[str, Any]:
        return normalise(data)
