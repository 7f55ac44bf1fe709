"""The public API is ``chatcli.__all__``: plugins and libraries use nothing else, every public
name is documented and typed, and the distributions ship ``py.typed``."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import chatcli
import chatcli_provider_kit
import chatcli_testing
import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Every consumer of the kernel, chatcli-admin (the administration commands) included: the
#: command-line helpers they need (``cli_host``, ``error_line``, ``require_utf8``)
#: are public names like the rest.
CONSUMERS = ["plugins", "providers", "libs", "plugin-template", "skills"]

#: chatcli-cli (libs/cli) is the kernel's own front end (the command line left the kernel in
#: 2.0): it may use these private names too, which the kernel keeps through 2.x (chatcli-cli
#: requires chatcli-kernel>=2,<3). Nothing else of the kernel's private modules.
FRONT_END_PRIVATE = {
    "chatcli._cli": {"set_running_host"},
    "chatcli._cli.common": {"AppState", "get_state"},
    "chatcli._discovery": {"find_entry_points"},
    "chatcli._guard": {"current_plugin"},
    "chatcli._paths": {"directory"},
    # the settings file the cached help page depends on (its language), without pathlib
    "chatcli._tomlfile": {"user_file"},
}

_IMPORT = re.compile(r"^\s*import (chatcli(?:\.[\w.]+)?)\b", re.M)


def _sources() -> list[Path]:
    return [p for top in CONSUMERS for p in (ROOT / top).rglob("*.py")
            if ".venv" not in p.parts and "__pycache__" not in p.parts]


def _imports(text: str) -> list[tuple[str, list[str]]]:
    found = []
    for match in re.finditer(r"^\s*from (chatcli(?:\.[\w.]+)?) import (\([^)]*\)|[^\n]*)",
                             text, re.M):
        names = re.sub(r"#[^\n]*", "", match.group(2)).strip("()")
        found.append((match.group(1), [n.split(" as ")[0].strip()
                                       for n in names.replace("\n", " ").split(",") if n.strip()]))
    found += [(module, []) for module in _IMPORT.findall(text)]
    return found


def test_plugins_and_libraries_import_only_public_names() -> None:
    public = set(chatcli.__all__)
    problems = []
    sources = _sources()
    assert len(sources) > 40
    for path in sources:
        for module, names in _imports(path.read_text()):
            where = path.relative_to(ROOT)
            if where.parts[:2] == ("libs", "cli") and set(names) <= FRONT_END_PRIVATE.get(
                    module, set()) and names:
                continue
            if module != "chatcli":
                problems.append(f"{where}: imports {module}")
            problems += [f"{where}: {name} is not public" for name in names if name not in public]
    assert problems == []


def test_every_public_name_exists_and_is_documented() -> None:
    for name in chatcli.__all__:
        value = getattr(chatcli, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert (value.__doc__ or "").strip(), f"chatcli.{name} has no docstring"


@pytest.mark.parametrize("package", [chatcli, chatcli_provider_kit, chatcli_testing])
def test_typed_packages_ship_py_typed(package) -> None:
    assert (Path(package.__file__).parent / "py.typed").is_file()


def test_every_kernel_module_but_the_contract_is_private() -> None:
    kernel = Path(chatcli.__file__).parent
    public = sorted(p.name for p in kernel.glob("*.py")
                    if not p.name.startswith("_") and p.name != "hookspecs.py")
    assert public == []
    assert all(p.name.startswith("_") for p in kernel.iterdir() if p.is_dir()
               and p.name not in ("__pycache__", "locale"))  # locale: the catalogs, no code
    assert not list((kernel / "locale").rglob("*.py"))


def test_importing_chatcli_imports_no_module_of_the_kernel() -> None:
    import subprocess
    import sys

    code = ("import sys, chatcli; print(sorted(m for m in sys.modules if m.startswith('chatcli')"
            " or m in ('typing', 'pydantic', 'pluggy')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['chatcli']"


def test_the_text_tool_call_protocol_is_provider_kit_api_not_the_kernels() -> None:
    """The engine knows only native tool calls: no kernel module writes or reads the text
    protocol; providers get it from ``chatcli_provider_kit.textcalls`` (documented names)."""
    from chatcli_provider_kit import textcalls

    kernel = Path(chatcli.__file__).parent
    assert not (kernel / "_toolcall.py").exists()
    assert [p.name for p in kernel.rglob("*.py") if "<tool_call" in p.read_text()] == []
    assert set(textcalls.__all__) & set(chatcli.__all__) == set()
    for name in textcalls.__all__:
        value = getattr(textcalls, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert (value.__doc__ or "").strip(), f"textcalls.{name} has no docstring"
    for path in _sources():
        text = path.read_text()
        if "chatcli_provider_kit.textcalls._" in text and "provider-kit" not in path.parts:
            raise AssertionError(f"{path.relative_to(ROOT)} imports a private textcalls module")


def test_importing_textcalls_leaves_the_parser_unloaded() -> None:
    import subprocess
    import sys

    code = ("import sys, chatcli_provider_kit.textcalls as t; "
            "print('chatcli_provider_kit.textcalls._parse' in sys.modules, "
            "t.parse_tool_calls.__module__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "chatcli_provider_kit.textcalls._parse"]
