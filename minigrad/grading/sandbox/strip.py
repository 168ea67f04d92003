"""A copy of minigrad without some of its modules, for an exercise that must not reach them.

The lesson 08 capstone asks for a network of the student's own pieces. Forbidding the
library's layers by reading the student's source is a deny-list, and a deny-list has holes;
so the capstone's child gets a minigrad in which those layers do not exist. :func:`strip`
deletes the absent modules' files from a copy of the package, then takes out of every
remaining module what came from them: an import of an absent module (or of a name that is gone
from the module it names), every top-level statement that uses a name that is gone (so
``nn.functional.conv2d`` and ``nn.CrossEntropyLoss`` are gone with ``ops.conv`` and
``ops.loss``), and the gone names from ``__all__``. What is left imports and works as before.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path


def strip(package: Path, absent: tuple[str, ...]) -> None:
    """Delete the modules ``absent`` (dotted names, ``"minigrad.ops.conv"``, a package or a
    module) from the package folder ``package`` and rewrite what imported them."""
    root = package.parent
    for name in absent:
        path = root.joinpath(*name.split("."))
        if path.is_dir():
            shutil.rmtree(path)
        elif path.with_suffix(".py").is_file():
            path.with_suffix(".py").unlink()
    modules = {_module_name(path, root): path for path in sorted(package.rglob("*.py"))}
    trees = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in modules.items()}
    gone: dict[str, set[str]] = {name: set() for name in modules}
    changed = set()
    while True:  # a name gone from one module is gone from those that import it: repeat
        progress = False
        for name, tree in trees.items():
            kept = _kept(tree, name, absent, modules, gone)
            if len(kept) != len(tree.body):
                tree.body = kept
                changed.add(name)
                progress = True
        if not progress:
            break
    for name in changed:
        tree = trees[name]
        _filter_all(tree, gone[name])
        modules[name].write_text(ast.unparse(tree) + "\n", encoding="utf-8")


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_absent(module: str, absent: tuple[str, ...]) -> bool:
    return any(module == name or module.startswith(name + ".") for name in absent)


def _kept(tree: ast.Module, name: str, absent: tuple[str, ...], modules: dict[str, Path],
          gone: dict[str, set[str]]) -> list[ast.stmt]:
    """The top-level statements of module ``name`` that still work; records what goes."""
    is_package = modules[name].name == "__init__.py"
    kept = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            node = _strip_import(node, name, is_package, absent, gone)
            if node is None:
                continue
        elif _names_used(node) & gone[name]:
            gone[name] |= _names_bound(node)
            continue
        kept.append(node)
    return kept


def _strip_import(node: ast.Import | ast.ImportFrom, name: str, is_package: bool,
                  absent: tuple[str, ...], gone: dict[str, set[str]]
                  ) -> ast.Import | ast.ImportFrom | None:
    """``node`` without the names it can no longer import (None when none is left)."""
    aliases = []
    for alias in node.names:
        bound = (alias.asname or alias.name).split(".")[0]
        if isinstance(node, ast.Import):
            lost = _is_absent(alias.name, absent)
        else:
            source = _resolve(node, name, is_package)
            lost = _is_absent(source, absent) or _is_absent(f"{source}.{alias.name}", absent) \
                or alias.name in gone.get(source, ())
        if lost:
            gone[name].add(bound)
        else:
            aliases.append(alias)
    if not aliases:
        return None
    node.names = aliases
    return node


def _resolve(node: ast.ImportFrom, name: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    parts = name.split(".") if is_package else name.split(".")[:-1]
    parts = parts[:len(parts) - node.level + 1]
    return ".".join(parts + ([node.module] if node.module else []))


def _names_used(node: ast.AST) -> set[str]:
    """The global names a statement reads (names it binds inside itself left out)."""
    read, bound = set(), set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            (read if isinstance(inner.ctx, ast.Load) else bound).add(inner.id)
        elif isinstance(inner, ast.arg):
            bound.add(inner.arg)
    inner_bound = bound - _names_bound(node)  # a local variable, not the module's name
    return read - inner_bound


def _names_bound(node: ast.stmt) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    targets: list[ast.AST] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    else:
        targets = [node]
    return {inner.id for target in targets for inner in ast.walk(target)
            if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store)}


def _filter_all(tree: ast.Module, gone: set[str]) -> None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id == "__all__"
                for target in node.targets) and isinstance(node.value, (ast.List, ast.Tuple)):
            node.value.elts = [item for item in node.value.elts
                               if not (isinstance(item, ast.Constant) and item.value in gone)]
