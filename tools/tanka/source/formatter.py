"""go-jsonnet's formatter (jsonnetfmt with default options), reached without any Go toolchain.

The `gojsonnet` wheel's extension module is a cgo shared library that also exports libjsonnet's C
API, formatter included (`jsonnet_fmt_snippet`, declared in go-jsonnet's libjsonnet.h). It is not a
documented Python API, so we probe for the symbols and fall back to a `jsonnetfmt` on PATH. Both
give the same bytes as `tk fmt`, which calls the same Go formatter with default options.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import threading
from collections.abc import Callable
from functools import lru_cache

from tools.sandbox import scrubbed_env
from tools.tanka.errors import FormatError, FormatterUnavailable

FormatFn = Callable[[str, str], str]  # (source, filename) -> formatted source

CLI_TIMEOUT = 60.0
_SYMBOLS = ("jsonnet_make", "jsonnet_destroy", "jsonnet_fmt_snippet", "jsonnet_realloc")


class _SharedLibrary:
    """ctypes binding of the four C API functions formatting needs."""

    def __init__(self, path: str) -> None:
        lib = ctypes.CDLL(path)
        missing = [name for name in _SYMBOLS if not hasattr(lib, name)]
        if missing:
            raise OSError(f"{path} does not export {', '.join(missing)}")
        lib.jsonnet_make.restype = ctypes.c_void_p
        lib.jsonnet_make.argtypes = []
        lib.jsonnet_destroy.restype = None
        lib.jsonnet_destroy.argtypes = [ctypes.c_void_p]
        lib.jsonnet_fmt_snippet.restype = ctypes.c_void_p
        lib.jsonnet_fmt_snippet.argtypes = [
            ctypes.c_void_p,
            ctypes.c_char_p,
            ctypes.c_char_p,
            ctypes.POINTER(ctypes.c_int),
        ]
        lib.jsonnet_realloc.restype = ctypes.c_void_p
        lib.jsonnet_realloc.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
        self._lib = lib
        # Calls are serialised: the binding's VM handle table is not documented as thread-safe,
        # and a format takes well under a millisecond for typical files.
        self._lock = threading.Lock()

    def __call__(self, source: str, filename: str) -> str:
        lib = self._lib
        failed = ctypes.c_int(0)
        with self._lock:
            vm = lib.jsonnet_make()
            try:
                result = lib.jsonnet_fmt_snippet(
                    vm, filename.encode(), source.encode(), ctypes.byref(failed)
                )
                text = ctypes.string_at(result).decode("utf-8", errors="replace")
                lib.jsonnet_realloc(vm, result, 0)
            finally:
                lib.jsonnet_destroy(vm)
        if failed.value:
            raise FormatError(text)
        return text


def _format_with_cli(binary: str) -> FormatFn:
    def run(source: str, filename: str) -> str:
        try:
            done = subprocess.run(
                [binary, "-"],
                input=source.encode(),
                capture_output=True,
                timeout=CLI_TIMEOUT,
                check=False,
                env=scrubbed_env(),  # no token of the service's reaches the binary
            )
        except subprocess.TimeoutExpired as exc:
            raise FormatError(f"{filename}: jsonnetfmt took over {CLI_TIMEOUT:.0f}s") from exc
        if done.returncode != 0:
            # The CLI names the input `<stdin>`; say which file it really was.
            message = done.stderr.decode("utf-8", errors="replace").strip()
            raise FormatError(message.replace("<stdin>", filename))
        return done.stdout.decode("utf-8", errors="replace")

    return run


def _shared_library() -> FormatFn | None:
    try:
        import _gojsonnet  # noqa: PLC0415 - the native formatter is optional; jsonnetfmt is the fallback

        return _SharedLibrary(_gojsonnet.__file__)
    except (ImportError, OSError, AttributeError):
        return None


@lru_cache(maxsize=1)
def default_formatter() -> FormatFn:
    """The best available formatter, probed once per process."""
    found = _shared_library()
    if found is not None:
        return found
    binary = shutil.which("jsonnetfmt")
    if binary is not None:
        return _format_with_cli(binary)
    return _unavailable


def _unavailable(source: str, filename: str) -> str:
    raise FormatterUnavailable(
        "no Jsonnet formatter available: install the `gojsonnet` Python package (its shared "
        "library provides go-jsonnet's formatter) or put `jsonnetfmt` on PATH"
    )


def cli_formatter(binary: str) -> FormatFn:
    """A formatter that runs the given jsonnetfmt binary (the fallback path, usable directly)."""
    return _format_with_cli(binary)


def format_source(
    text: str, filename: str = "<snippet>", *, formatter: FormatFn | None = None
) -> str:
    """`text` formatted as `jsonnetfmt` would with default options; FormatError on bad input."""
    if "\x00" in text:
        raise FormatError(f"{filename}: contains a NUL byte; Jsonnet source must be text")
    return (formatter or default_formatter())(text, filename)
