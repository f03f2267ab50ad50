"""Contracts of the package as a whole: the public API, start-up cost, the error tree."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import json
import subprocess
import sys
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

import skillshelf
from skillshelf import errors

HEAVY = (
    "rich",
    "mcp",
    "openai",
    "anthropic",
    "psycopg",
    "numpy",
    "bm25s",
    "httpx",
    "pydantic",
    "tomlkit",
    "watchfiles",
    "starlette",
    "uvicorn",
    "anyio",
)


def _type_checking_exports() -> dict[str, str]:
    """name -> module of the ``if TYPE_CHECKING:`` imports in skillshelf/__init__.py."""
    tree = ast.parse(Path(skillshelf.__file__).read_text(encoding="utf-8"))
    blocks = [n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"]
    assert len(blocks) == 1, "skillshelf/__init__.py needs one `if TYPE_CHECKING:` block"
    found: dict[str, str] = {}
    for node in blocks[0].body:
        assert isinstance(node, ast.ImportFrom) and node.module, ast.unparse(node)
        for alias in node.names:
            # `import X as X` is what marks a re-export for type checkers (mypy strict)
            assert alias.asname == alias.name, f"write `{alias.name} as {alias.name}`"
            is_module = node.module == "skillshelf"
            found[alias.name] = f"skillshelf.{alias.name}" if is_module else node.module
    return found


def test_the_type_checking_imports_match_the_lazy_export_table() -> None:
    assert _type_checking_exports() == skillshelf._EXPORTS


def test_every_export_is_the_object_its_module_defines() -> None:
    assert set(skillshelf.__all__) == set(skillshelf._EXPORTS)
    for name, module_name in skillshelf._EXPORTS.items():
        module = importlib.import_module(module_name)
        expected = module if name == "errors" else getattr(module, name)
        assert getattr(skillshelf, name) is expected, name
    assert set(skillshelf.__all__) <= set(dir(skillshelf))


def _type_checking_namespace(module: ModuleType) -> dict[str, object]:
    """The names a module imports under ``if TYPE_CHECKING:`` (its annotations may use them)."""
    namespace: dict[str, object] = {}
    for node in ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            exec(
                compile(ast.Module(body=node.body, type_ignores=[]), str(module.__file__), "exec"), namespace
            )
    return namespace


def _return_type(function: Callable[..., object]) -> object:
    module = sys.modules[function.__module__]
    namespace = {**_type_checking_namespace(module), **vars(module)}
    return typing.get_type_hints(function, globalns=namespace).get("return")


def _classes_in(annotation: object) -> Iterator[type]:
    if typing.get_origin(annotation) is None:
        if isinstance(annotation, type):
            yield annotation
        return
    for argument in typing.get_args(annotation):
        yield from _classes_in(argument)


def _exported_functions() -> Iterator[Callable[..., object]]:
    """Each exported function, and each public method of an exported class."""
    for name in skillshelf.__all__:
        value = getattr(skillshelf, name)
        if inspect.isfunction(value):
            yield value
        elif isinstance(value, type) and not issubclass(value, BaseException):
            for attribute, member in vars(value).items():
                function = getattr(member, "__func__", member)
                if inspect.isfunction(function) and not attribute.startswith("_"):
                    yield function


def _exported(cls: type) -> bool:
    if cls.__module__ == "skillshelf.errors":  # the error tree is exported as a module
        return getattr(errors, cls.__name__, None) is cls
    return getattr(skillshelf, cls.__name__, None) is cls


def test_the_api_exports_every_type_its_functions_return() -> None:
    unexported = {
        f"{function.__qualname__} returns {cls.__module__}.{cls.__name__}"
        for function in _exported_functions()
        for cls in _classes_in(_return_type(function))
        if cls.__module__.split(".")[0] == "skillshelf" and not _exported(cls)
    }
    assert not unexported, sorted(unexported)


def test_unknown_attributes_raise_attribute_error() -> None:
    with pytest.raises(AttributeError):
        _ = skillshelf.no_such_thing  # type: ignore[attr-defined]


def _imported_after(code: str) -> set[str]:
    probe = f"import sys; {code}; import json; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, encoding="utf-8", check=True
    ).stdout
    return {name.split(".")[0] for name in json.loads(out.strip().splitlines()[-1])}


def test_importing_skillshelf_loads_no_heavy_dependency() -> None:
    assert not _imported_after("import skillshelf") & set(HEAVY)


def test_the_cli_help_loads_no_heavy_dependency() -> None:
    code = "from skillshelf.cli.main import cli; import click; cli.main(['--help'], standalone_mode=False)"
    assert not _imported_after(code) & set(HEAVY)


def test_every_error_has_a_code_and_an_exit_code() -> None:
    classes = [
        c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, errors.SkillshelfError)
    ]
    assert len(classes) >= 10
    for cls in classes:
        assert cls.default_code and cls.exit_code in (1, 2)
    assert errors.UsageError("x").exit_code == 2


def test_skill_not_found_suggests_close_matches() -> None:
    exc = errors.SkillNotFoundError("pdff", available=["pdf", "docx"], close=["pdf"])
    assert exc.code == "SK404" and "'pdf'" in exc.hint


AREAS = sorted(p.parent.name for p in Path(skillshelf.__file__).parent.glob("*/__init__.py"))


@pytest.mark.parametrize("area", AREAS)
def test_each_area_states_its_public_surface(area: str) -> None:
    package = importlib.import_module(f"skillshelf.{area}")
    assert isinstance(package.__dict__.get("__all__"), list), f"skillshelf/{area}/__init__.py has no __all__"
    for name in package.__all__:  # a name the package defines, or one of its submodules
        assert hasattr(package, name) or importlib.util.find_spec(f"skillshelf.{area}.{name}"), name
