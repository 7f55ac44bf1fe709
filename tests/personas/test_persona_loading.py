"""Loading personas: the sources and their precedence (project, user, packages), the fields of
the frontmatter, lenient loading with one-line warnings, and files read again when they change."""

from __future__ import annotations

import os
from pathlib import Path

import chatcli_personas.plugin as personas_plugin
from chatcli import PluginHost, hookimpl
from chatcli_personas.catalog import Catalog, project_folders
from chatcli_personas.persona import load_persona
from chatcli_plugin_records import PersonaSource
from personas_support import persona_file, write


class Pack:
    """A persona pack registering ``folder`` as the source ``name``."""

    def __init__(self, name: str, folder: Path) -> None:
        self.name, self.folder = name, folder

    @hookimpl
    def register_persona_sources(self, register):
        register(PersonaSource(name=self.name, path=self.folder))


def catalog_with(workspace: Path, *packs: Pack) -> tuple[Catalog, list[str]]:
    warned: list[str] = []
    host = PluginHost(warn=warned.append)
    host.register(personas_plugin, "personas")  # declares register_persona_sources
    for index, pack in enumerate(packs):
        assert host.register(pack, f"pack{index}")
    return Catalog(host, workspace, warn=warned.append), warned


# ------------------------------------------------------------------------ sources


def test_project_beats_user_beats_packages(workspace: Path, config: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "pack-one", tmp_path / "pack-two"
    write(first, "reviewer.md", persona_file("reviewer", "from the first pack",
                                             description="pack one"))
    write(first, "only-pack.md", persona_file("only-pack", "only in a pack", description="p"))
    write(second, "reviewer.md", persona_file("reviewer", "from the second pack",
                                              description="pack two"))
    write(second, "helper.md", persona_file("helper", "the second pack's helper",
                                            description="p"))
    write(config, "agents/helper.md", persona_file("helper", "the user's helper",
                                                   description="u"))
    write(config, "agents/reviewer.md", persona_file("reviewer", "the user's reviewer",
                                                     description="u"))
    write(workspace, ".chatcli/agents/reviewer.md",
          persona_file("reviewer", "the project's reviewer", description="project"))
    catalog, warned = catalog_with(workspace, Pack("one", first), Pack("two", second))
    personas = catalog.personas()
    assert personas["reviewer"].prompt == "the project's reviewer"
    assert personas["reviewer"].source == "project"
    assert personas["helper"].prompt == "the user's helper"
    assert personas["helper"].source == "user"
    assert personas["only-pack"].source in {"one", "two"}
    assert warned == []


def test_the_first_registered_pack_wins_between_packages(workspace: Path, tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    write(one, "same.md", persona_file("same", "pack one's", description="d"))
    write(two, "same.md", persona_file("same", "pack two's", description="d"))
    catalog, _ = catalog_with(workspace, Pack("one", one), Pack("two", two))
    folders = [source for source, _ in catalog.folders()]
    winner = catalog.get("same")
    assert winner is not None
    assert folders.index(winner.source) == min(folders.index("one"), folders.index("two"))


def test_the_nearest_project_folder_wins_up_to_the_repository_root(workspace: Path,
                                                                   tmp_path: Path) -> None:
    inner = workspace / "services" / "api"
    inner.mkdir(parents=True)
    write(workspace, ".chatcli/agents/ops.md", persona_file("ops", "the root's", description="d"))
    write(workspace, ".chatcli/agents/root-only.md", persona_file("root-only", "r",
                                                                  description="d"))
    write(inner, ".chatcli/agents/ops.md", persona_file("ops", "the service's", description="d"))
    # above the repository's root: not the project's
    write(workspace.parent, ".chatcli/agents/outside.md", persona_file("outside", "o",
                                                                       description="d"))
    catalog, _ = catalog_with(inner)
    personas = catalog.personas()
    assert personas["ops"].prompt == "the service's"
    assert "root-only" in personas
    assert "outside" not in personas
    assert project_folders(inner, "x") == [inner / "x", inner.parent / "x", workspace / "x"]


def test_outside_a_repository_only_the_workspace_is_the_project(tmp_path: Path) -> None:
    plain = Path(os.path.realpath(tmp_path)) / "plain" / "sub"
    plain.mkdir(parents=True)
    assert project_folders(plain, ".chatcli/agents") == [plain / ".chatcli/agents"]


def test_names_are_matched_in_any_case_and_with_an_at(workspace: Path) -> None:
    write(workspace, ".chatcli/agents/sec.md", persona_file("sec", description="d"))
    catalog, _ = catalog_with(workspace)
    assert catalog.get("SEC") is catalog.get("@sec") is catalog.get("sec") is not None
    assert catalog.get("nobody") is None and catalog.get("") is None


# ------------------------------------------------------------------------ fields


def test_every_field_of_the_frontmatter_is_read(workspace: Path) -> None:
    path = write(workspace, ".chatcli/agents/full.md", """
        ---
        name: full
        title: The Full One
        description: Has every field.
        traits: [careful, kind]
        tone: warm
        approach: look, then act
        specialties: reading, writing
        capabilities:
          - review: reads changes
          - name: plan
            description: makes plans
          - just a sentence
        skills: [commit-message]
        tools: Read, Bash(git status:*), search
        provider: openai
        model: gpt-4.1
        colour: "#FFD700"
        icon: 🛡
        unknown-field: ignored
        ---
        The body is the prompt.

        It has paragraphs.
        """)
    persona, problems = load_persona(path, "project")
    assert problems == []
    assert persona is not None
    assert (persona.name, persona.title, persona.label) == ("full", "The Full One",
                                                            "🛡 The Full One")
    assert persona.traits == ("careful", "kind") and persona.tone == "warm"
    assert persona.specialties == ("reading", "writing")
    assert persona.capabilities == ("review: reads changes", "plan: makes plans",
                                    "just a sentence")
    assert persona.skills == ("commit-message",)
    assert persona.tools == ("Read", "Bash(git status:*)", "search")
    assert (persona.provider, persona.model, persona.colour) == ("openai", "gpt-4.1", "#FFD700")
    assert persona.prompt == "The body is the prompt.\n\nIt has paragraphs."


def test_no_tools_key_means_no_limit_and_an_empty_list_means_none(workspace: Path) -> None:
    free = write(workspace, "a/free.md", persona_file("free", description="d"))
    bare = write(workspace, "a/bare.md", persona_file("bare", description="d", tools=[]))
    assert load_persona(free)[0].tools is None
    assert load_persona(bare)[0].tools == ()


def test_the_file_name_and_the_name_give_the_title(workspace: Path) -> None:
    path = write(workspace, "a/data-wizard.md", "---\ndescription: d\n---\nbody\n")
    persona, problems = load_persona(path)
    assert (persona.name, persona.title, persona.label) == ("data-wizard", "Data Wizard",
                                                            "Data Wizard")
    assert problems == []
    no_frontmatter = write(workspace, "a/plain.md", "Only a body.\n")
    persona, problems = load_persona(no_frontmatter)
    assert persona.name == "plain" and persona.prompt == "Only a body."
    assert problems == ["it has no description (shown by /personas)"]


# ------------------------------------------------------------------------ lenient loading


def test_sloppy_files_load_with_one_line_warnings(workspace: Path) -> None:
    write(workspace, ".chatcli/agents/colon.md",
          "---\nname: colon\ndescription: Reviews: the code, carefully\ntools:\n  - read\n"
          "  - search\n---\nBody.\n")
    write(workspace, ".chatcli/agents/spaced.md",
          "---\nname: Security Reviewer\ndescription: d\n---\nBody.\n")
    write(workspace, ".chatcli/agents/tint.md",
          "---\nname: tint\ndescription: d\ncolour: not-a-colour\n---\nBody.\n")
    write(workspace, ".chatcli/agents/open.md", "---\nname: open\ndescription: d\nBody.\n")
    write(workspace, ".chatcli/agents/empty.md", "---\nname: empty\ndescription: d\n---\n\n")
    write(workspace, ".chatcli/agents/list.md", "---\n- a\n- b\n---\nBody.\n")
    catalog, warned = catalog_with(workspace)
    personas = catalog.personas()
    assert personas["colon"].description == "Reviews: the code, carefully"
    assert personas["colon"].tools == ("read", "search")
    assert personas["security-reviewer"].title == "Security Reviewer"
    assert personas["tint"].colour is None
    assert "open" in personas  # read whole as the body: it answers to its file name
    assert "empty" not in personas
    assert "list" in personas
    by_file: dict[str, str] = {}
    for line in warned:
        by_file[line.split(":")[0]] = by_file.get(line.split(":")[0], "") + line
    assert set(by_file) == {f"persona .chatcli/agents/{n}.md" for n in
                            ("colon", "spaced", "tint", "open", "empty", "list")}
    assert "not valid YAML (line 3)" in by_file["persona .chatcli/agents/colon.md"]
    assert "it answers to @security-reviewer" in by_file["persona .chatcli/agents/spaced.md"]
    assert "is not a colour" in by_file["persona .chatcli/agents/tint.md"]
    assert "no closing '---'" in by_file["persona .chatcli/agents/open.md"]
    assert "no body" in by_file["persona .chatcli/agents/empty.md"]
    assert "not a mapping" in by_file["persona .chatcli/agents/list.md"]
    assert all("\n" not in line for line in warned)
    count = len(warned)
    assert count == 8  # the unclosed one and the list have no description either
    catalog.personas()  # asked again: nothing is reported twice
    assert len(warned) == count


def test_readme_and_hidden_files_are_not_personas(workspace: Path) -> None:
    write(workspace, ".chatcli/agents/README.md", "# my personas\n")
    write(workspace, ".chatcli/agents/.draft.md", persona_file("draft", description="d"))
    write(workspace, ".chatcli/agents/notes.txt", "not markdown")
    catalog, warned = catalog_with(workspace)
    assert catalog.personas() == {} and warned == []


def test_an_edited_file_is_read_again(workspace: Path) -> None:
    path = write(workspace, ".chatcli/agents/ed.md", persona_file("ed", "first", description="d"))
    catalog, _ = catalog_with(workspace)
    assert catalog.get("ed").prompt == "first"
    path.write_text(persona_file("ed", "second, and longer", description="d"))
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    assert catalog.get("ed").prompt == "second, and longer"
    path.unlink()
    assert catalog.get("ed") is None
