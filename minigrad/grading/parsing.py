"""What the grader reads from a submission's code without running it, at a bounded cost.

:func:`analyse` returns the top-level functions (and whether each is more than the student
stub) and the lines of top-level ``check(...)`` calls. Parsing costs memory in proportion to the
code: 2 MB of ``[1, 1, 1, ...]`` takes ~700 MB and seconds. So code up to
:data:`IN_PROCESS_CHARS` is parsed here, longer code in a helper process limited to 1 GB of
address space and 10 s of CPU (it loads this file alone: stdlib only, no numpy). Code that
does not parse, or whose helper fails, is read with a regular expression instead.

An exercise's source check (the capstone's rules: :mod:`minigrad.exercises.source_rules`)
reads the student's code too, more deeply; it always runs in a helper process with the same
limits (:func:`source_check_verdict`). A check that fails there (a 1.4 MB file, an expression
nested 1500 deep) refuses that exercise's answer, saying why; it never stops the grader.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Optional

IN_PROCESS_CHARS = 200_000
_DEF = re.compile(r"^def\s+([A-Za-z_]\w*)", re.MULTILINE)
_CHECK = re.compile(r"^check\(")
_HELPER = ("import resource, sys, json, importlib.util as u\n"
           "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
           "resource.setrlimit(resource.RLIMIT_CPU, (10, 10))\n"
           "s = u.spec_from_file_location('p', sys.argv[1]); m = u.module_from_spec(s)\n"
           "s.loader.exec_module(m)\n"
           "print(json.dumps(getattr(m, sys.argv[2])(sys.stdin.read())))\n")


#: Runs ``module.qualname(source)``: the module by name, or from its file (a private key's),
#: with the grader's own import path (minigrad may be importable only from a checkout).
_CHECK_HELPER = ("import resource, sys, json, importlib, importlib.util as u\n"
                 "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
                 "resource.setrlimit(resource.RLIMIT_CPU, (10, 10))\n"
                 "name, path, qualname = sys.argv[1:4]\n"
                 "sys.path[:] = json.loads(sys.argv[4])\n"
                 "if path:\n"
                 "    s = u.spec_from_file_location(name, path); m = u.module_from_spec(s)\n"
                 "    sys.modules[name] = m; s.loader.exec_module(m)\n"
                 "else:\n"
                 "    m = importlib.import_module(name)\n"
                 "for part in qualname.split('.'):\n"
                 "    m = getattr(m, part)\n"
                 "print(json.dumps({'message': m(sys.stdin.read())}))\n")
CHECK_LIMITS = "1 GB of memory, 10 s of CPU"


def _is_stub(body: list[ast.stmt]) -> bool:
    statements = [node for node in body
                  if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]
    if len(statements) != 1 or not isinstance(statements[0], ast.Raise):
        return False
    raised = statements[0].exc
    if isinstance(raised, ast.Call):
        raised = raised.func
    return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"


#: Names and attributes through which code can rebind a module's function without naming it.
_DYNAMIC = frozenset({"globals", "locals", "vars", "exec", "eval", "compile", "setattr",
                      "delattr", "__import__", "__dict__", "__builtins__", "modules",
                      "builtins", "importlib", "inspect", "types"})


def plainly_a_stub(code: str, function: str, given: str) -> bool:
    """True only when ``function`` of ``code`` is the stub of the file students are given
    (``given``), unchanged, and so can only end in the stub's ``raise NotImplementedError``
    (or in an error of the given lines before it: no answer either way).

    That is: ``code`` parses and defines ``function`` once at the top level, undecorated, with
    the body ``given`` gives it (docstrings aside), which reaches ``raise NotImplementedError``
    (with constant arguments, if any) at its top level with no ``return`` or ``yield`` before
    it; ``code`` binds neither that name nor ``NotImplementedError`` anywhere else
    (assignment, import, ``global``, another ``def`` or ``class``, a pattern, ``except ...
    as``), and uses none of the ways to rebind names without naming them (``globals()``,
    ``exec``, ``setattr``, ``sys.modules``, ...). Anything else, including code too long to
    parse here, is False: the exercise is then run as usual."""
    if len(code) > IN_PROCESS_CHARS:
        return False
    try:
        tree, stub = ast.parse(code), _defined_once(ast.parse(given), function)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    defined = _defined_once(tree, function)
    if defined is None or stub is None or not _ends_in_the_raise(stub.body):
        return False
    try:
        if _without_docstring(defined.body) != _without_docstring(stub.body):
            return False
        nodes = list(ast.walk(tree))
    except RecursionError:
        return False
    watched = {function, "NotImplementedError"}
    return not any(node is not defined and _binds(node, watched) for node in nodes)


def _defined_once(tree: ast.Module, function: str) -> Optional[ast.FunctionDef]:
    """The module's one top-level, undecorated ``def function``; None if not exactly that."""
    found = [node for node in tree.body
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function]
    if len(found) != 1 or found[0].decorator_list or not isinstance(found[0], ast.FunctionDef):
        return None
    return found[0]


def _without_docstring(body: list[ast.stmt]) -> list[str]:
    return [ast.dump(node) for node in body
            if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]


def _ends_in_the_raise(body: list[ast.stmt]) -> bool:
    """The body reaches ``raise NotImplementedError`` at its top level, and nothing before it
    can return a value (a ``return``, ``yield`` or ``await`` outside nested definitions)."""
    for index, node in enumerate(body):
        if not isinstance(node, ast.Raise):
            continue
        raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        if not (isinstance(raised, ast.Name) and raised.id == "NotImplementedError"):
            continue
        if isinstance(node.exc, ast.Call) and (node.exc.keywords or not all(
                isinstance(argument, ast.Constant) for argument in node.exc.args)):
            return False  # its arguments would run code first
        return not any(_returns(statement) for statement in body[:index])
    return False


def _returns(node: ast.AST) -> bool:
    if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await)):
        return True
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
        return False
    return any(_returns(child) for child in ast.iter_child_nodes(node))


def _binds(node: ast.AST, watched: set[str]) -> bool:
    """``node`` binds one of the ``watched`` names, or may rebind any name dynamically."""
    if isinstance(node, ast.Name):
        return node.id in _DYNAMIC or (node.id in watched and not isinstance(node.ctx, ast.Load))
    if isinstance(node, ast.Attribute):
        return node.attr in _DYNAMIC
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name in watched
    if isinstance(node, ast.alias):
        return node.name == "*" or (node.asname or node.name.split(".")[0]) in watched
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return bool(watched & set(node.names))
    if isinstance(node, ast.arg):
        return node.arg in watched
    if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
        return node.name in watched
    if isinstance(node, ast.MatchMapping):
        return node.rest in watched
    return False


def _by_regex(code: str) -> dict[str, Any]:
    return {"parsed": False, "functions": {name: True for name in _DEF.findall(code)},
            "check_lines": [number for number, line in enumerate(code.splitlines(), start=1)
                            if _CHECK.match(line)]}


def analyse_here(code: str) -> dict[str, Any]:
    """The analysis, in this process (see the module docstring)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _by_regex(code)
    functions = {node.name: not _is_stub(node.body) for node in tree.body
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    checks = [number for node in tree.body
              if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
              and isinstance(node.value.func, ast.Name) and node.value.func.id == "check"
              for number in range(node.lineno, (node.end_lineno or node.lineno) + 1)]
    return {"parsed": True, "functions": functions, "check_lines": checks}


@functools.lru_cache(maxsize=256)
def analyse(code: str) -> dict[str, Any]:
    """``{"parsed": bool, "functions": {name: attempted}, "check_lines": [line numbers]}``."""
    if len(code) <= IN_PROCESS_CHARS:
        return analyse_here(code)
    result = _in_helper("analyse_here", code)
    return result if isinstance(result, dict) else _by_regex(code)


def analyse_all_here(texts: str) -> list[dict[str, Any]]:
    """:func:`analyse_here` of each text in a JSON list (the helper's way to take many)."""
    return [analyse_here(text) for text in json.loads(texts)]


def analyse_all(texts: list[str]) -> list[dict[str, Any]]:
    """:func:`analyse` of each text (a notebook's cells): all in one helper process when they
    are long together, since each alone may be short enough to parse here (49 cells of
    199 kB took the grader 17 s)."""
    if sum(len(text) for text in texts) <= IN_PROCESS_CHARS:
        return [analyse(text) for text in texts]
    result = _in_helper("analyse_all_here", json.dumps(texts))
    if isinstance(result, list) and len(result) == len(texts):
        return result
    return [_by_regex(text) for text in texts]


def _in_helper(function: str, text: str) -> Any:
    """``function(text)`` run in the limited helper process; None if that fails."""
    try:
        done = subprocess.run([sys.executable, "-I", "-S", "-c", _HELPER, str(Path(__file__)),
                               function], input=text.encode("utf-8", "surrogateescape"),
                              capture_output=True, timeout=15, env={})
        return json.loads(done.stdout) if done.returncode == 0 else None
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def notebook_cells_here(text: str) -> Any:
    """``[[source, tags], ...]`` of a notebook's code cells, or an error message (a str)."""
    try:
        notebook = json.loads(text)
        cells = notebook["cells"]
        if not isinstance(cells, list):
            raise TypeError("'cells' is not a list")
        found = []
        for cell in cells:
            if not isinstance(cell, dict) or cell.get("cell_type") != "code":
                continue
            source = cell.get("source", "")
            source = "".join(source) if isinstance(source, list) else source
            if not isinstance(source, str):
                raise TypeError("a cell's source is not text")
            metadata = cell.get("metadata")
            tags = metadata.get("tags") if isinstance(metadata, dict) else None
            found.append([source, [tag for tag in tags if isinstance(tag, str)]
                          if isinstance(tags, list) else []])
        return found
    except (ValueError, KeyError, TypeError, RecursionError, MemoryError) as error:
        return f"{type(error).__name__}: {error}"[:200]


def notebook_cells(text: str) -> list[list]:
    """The code cells of a notebook's JSON ``text`` as ``[source, tags]`` (long text in the
    helper process); raises ValueError when it is not a notebook."""
    result = notebook_cells_here(text) if len(text) <= IN_PROCESS_CHARS * 10 else (
        _in_helper("notebook_cells_here", text) or "too costly to read")
    if isinstance(result, str):
        raise ValueError(result)
    return result


def source_check_verdict(check: Callable[[str], Optional[str]], code: str) -> Optional[str]:
    """What ``check`` (an exercise's ``source_check``) says of ``code``: None, or why the
    answer is refused. It runs in a helper process limited to :data:`CHECK_LIMITS`; when it
    fails there, the answer is refused with the reason, and the grader goes on."""
    module = sys.modules.get(getattr(check, "__module__", ""), None)
    qualname = getattr(check, "__qualname__", "")
    if module is None or "<" in qualname:  # a lambda or a local function: no helper can load
        return _check_here(check, code)
    name = module.__name__
    path = "" if name.startswith("minigrad.") else str(getattr(module, "__file__", "") or "")
    if not name.startswith("minigrad.") and not path:
        return _check_here(check, code)
    # (imported here: the parsing helper loads this file alone, without minigrad)
    from minigrad.grading.sandbox.environment import child_environment

    try:
        done = subprocess.run([sys.executable, "-I", "-c", _CHECK_HELPER, name, path, qualname,
                               json.dumps([item for item in sys.path
                                           if os.path.isabs(item)])],
                              input=code.encode("utf-8", "surrogateescape"),
                              capture_output=True, timeout=30,
                              env={"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
                                   **child_environment()})
        if done.returncode == 0:
            message = json.loads(done.stdout)["message"]
            return None if message is None else str(message)
        reason = (done.stderr.decode("utf-8", "replace").strip().splitlines() or
                  [f"exit status {done.returncode}"])[-1]
    except subprocess.TimeoutExpired:
        reason = "it took longer than 30 s"
    except (OSError, ValueError, KeyError, TypeError) as error:
        reason = f"{type(error).__name__}: {error}"
    return _refused(reason)


def _check_here(check: Callable[[str], Optional[str]], code: str) -> Optional[str]:
    try:
        return check(code)
    except (RecursionError, MemoryError, SyntaxError, ValueError) as error:
        return _refused(f"{type(error).__name__}: {error}")


def _refused(reason: str) -> str:
    return (f"the grader could not read this code's source within its limits ({CHECK_LIMITS}; "
            f"{reason[:200]}): make it simpler (no very deep expressions, no huge literals)")
