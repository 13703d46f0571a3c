"""Installed distributions' versions, found as :mod:`importlib.metadata` finds them, faster.

Every run records a dozen or more packages' versions (:data:`harness.results.provenance.PACKAGES`).
``importlib.metadata.version`` costs ~10 ms to import (it brings the ``email`` package) and
~1.5 ms a name (it parses the whole METADATA file); here each ``sys.path`` folder is listed
once, the first ``*.dist-info`` or ``*.egg-info`` whose name matches is taken, in the order
``importlib.metadata`` takes them (``sys.path`` order, dist-info and egg-info folders alike
per folder), and only its ``Version`` header is read. Names compare as ``importlib.metadata``
compares them: PEP 503 normalisation (runs of ``-``, ``_`` and ``.`` are one separator, case
ignored). Wherever this search could differ from ``importlib.metadata``'s (a zip archive or
an ``.egg`` folder on ``sys.path``, another finder that declares distributions, a metadata
file without a plain ``Version`` header), that name is left to ``importlib.metadata``.
"""

from __future__ import annotations

import itertools
import os
import re
import sys
from collections.abc import Iterable
from importlib.machinery import PathFinder

_SEPARATORS = re.compile(r"[-_.]+")
#: A header line's name, as the ``email`` parser accepts one (printable ASCII but ':').
_HEADER_NAME = re.compile(r"[\041-\071\073-\176]*")
_INFO_SUFFIXES = (".dist-info", ".egg-info")


class _Unsure(Exception):
    """This search cannot promise importlib.metadata's answer: ask it instead."""


def normalize(name: str) -> str:
    """``Foo.Bar-baz`` -> ``foo_bar_baz``: the key both searches compare names by."""
    return _SEPARATORS.sub("_", name).lower()


def versions(names: Iterable[str]) -> dict[str, str | None]:
    """Each name's installed version, or None where no distribution of that name is found."""
    asked = list(names)
    keys = {normalize(name) for name in asked}
    by_key: dict[str, str | None] = {}
    unsure: set[str] = set()
    try:
        for key, info in _first_infos(set(keys)):
            try:
                by_key[key] = _version_in(info)
            except _Unsure:
                unsure.add(key)
    except _Unsure:  # the rest of the search: importlib.metadata's
        unsure.update(keys - by_key.keys())
    fallback = _from_importlib(name for name in asked if normalize(name) in unsure)
    return {
        name: fallback[name] if name in fallback else by_key.get(normalize(name)) for name in asked
    }


def _first_infos(keys: set[str]) -> Iterable[tuple[str, str]]:
    """(key, metadata path) of the first distribution of each key along ``sys.path``."""
    if any(
        finder is not PathFinder and getattr(finder, "find_distributions", None) is not None
        for finder in sys.meta_path
    ):
        raise _Unsure  # another finder may declare distributions before or among the paths
    for root in list(sys.path):
        if not keys:
            return
        folder = root or "."
        if os.path.basename(root).lower().endswith(".egg"):
            raise _Unsure
        try:
            children = os.listdir(folder)
        except OSError:
            if os.path.isfile(folder):  # a zip archive, which importlib.metadata reads
                raise _Unsure from None
            continue
        for child in children:
            low = child.lower()
            if low.endswith(_INFO_SUFFIXES):
                key = normalize(low.rpartition(".")[0].partition("-")[0])
                if key in keys:
                    keys.discard(key)
                    yield key, os.path.join(folder, child)


def _version_in(info: str) -> str:
    """The ``Version`` header of a distribution's metadata (METADATA, else PKG-INFO, else the
    egg-info file itself): the first one of these files that is not empty."""
    for path in (os.path.join(info, "METADATA"), os.path.join(info, "PKG-INFO"), info):
        try:
            with open(path, encoding="utf-8") as f:
                first = f.readline()
                if first:
                    return _version_header(itertools.chain((first,), f))
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
            continue
        except (OSError, ValueError):  # unreadable or not UTF-8: importlib.metadata says how
            raise _Unsure from None
    raise _Unsure


def _version_header(lines: Iterable[str]) -> str:
    """The value of the first ``Version`` header in the header block that ``lines`` start
    with; read up to the line after it (a folded value is left to the email package)."""
    version: str | None = None
    for line in lines:
        text = line.rstrip("\r\n")
        if version is not None:
            if text[:1] in (" ", "\t"):
                raise _Unsure
            return version
        if not text:  # the blank line that ends the headers
            break
        if text[0] in " \t":  # a folded line of an earlier header
            continue
        name, colon, value = text.partition(":")
        if not (colon and _HEADER_NAME.fullmatch(name)):  # the body starts without a blank
            break
        if name.lower() == "version":
            version = value.lstrip(" \t")
    if version is None:
        raise _Unsure
    return version


def _from_importlib(names: Iterable[str]) -> dict[str, str | None]:
    """``importlib.metadata``'s answers, imported only when some name needs it."""
    found: dict[str, str | None] = {}
    for name in names:
        from importlib import metadata

        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found
