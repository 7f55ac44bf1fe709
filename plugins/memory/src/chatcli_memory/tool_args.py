"""The argument models of the memory tools (pydantic): imported when a call's arguments are
validated, never to describe the tools (:data:`chatcli_memory.tools.SCHEMAS` holds their JSON
schemas, kept equal to these models' by a test)."""

from __future__ import annotations

from pydantic import BaseModel, Field

__all__ = ["SaveArgs", "SearchArgs"]


# The descriptions below are the tools' JSON schemas, for the model: never translated.


class SearchArgs(BaseModel):
    """Search long-term memory."""

    query: str = Field(
        description="words to look for (any order)")  # untranslated: for the model
    limit: int = Field(
        8, ge=1, le=30, description="most items to return")  # untranslated: for the model


class SaveArgs(BaseModel):
    """Save one durable fact to long-term memory."""

    text: str = Field(description="the fact, one self-contained sentence; "
                                  "never a secret")  # untranslated: for the model
    subject: str = Field("", description="what it is about, 1-4 words (a newer fact on the "
                                         "same subject replaces "
                                         "the older one)")  # untranslated: for the model
    scope: str = Field("project", description="'project' (this project only) "
                                              "or 'global'")  # untranslated: for the model
