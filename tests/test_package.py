"""The package as installed: what a client that imports it relies on."""

from __future__ import annotations

from importlib import resources


def test_the_package_marks_itself_typed_so_clients_type_check_against_its_hints() -> None:
    assert resources.files("skillshelf").joinpath("py.typed").is_file()
