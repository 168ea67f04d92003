"""What an exercise's source may use: early, readable messages from reading the code itself.

The lesson 08 capstone asks for a network of the student's own pieces. What holds that is not
here: the grader scores the capstone's answers against labels only it has, and runs it against
a minigrad in which the library's layers and optimizers do not exist (``Exercise.answer``,
``Exercise.runtime``). These rules come first, in ``check()`` and in the grader, to tell a
student at once, in words, what the capstone is not meant to use:

- the graded function, and every top-level definition, assignment or import whose name it
  uses (transitively), are the student's code; the given definitions must be unchanged;
- that code may import only from an allow-list of modules, and may not name what the
  exercise forbids (``F.conv2d``, ``optim``, ``getattr``, ``exec``, ``open``…) — except
  ``getattr(obj, "name")`` with a literal, allowed name on the student's own object (not on
  an imported module): it reaches no more than ``obj.name``, which is checked the same way;
- the function must end with its given ``return`` and have no other.

They are a deny-list, so a determined student gets past them (a statement they do not
follow, an ``eval`` they do not name); that student then meets the missing layers and the
labels that are not there.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from typing import Optional

#: Longest literal a graded function may hold: weights pasted in as text are data, not code.
MAX_LITERAL = 2000


@dataclass(frozen=True)
class SourceRules:
    """The rules of one exercise.

    Attributes:
        function: the graded function's name.
        final_return: the source of the function's one ``return`` statement, which must be
            its last statement.
        given: the top-level names whose definitions are given and must stay as given.
        modules: the modules the student's code may import from (a module ``a.b`` allows
            ``a.b`` only; a trailing ``.*`` allows its submodules).
        names: names that may not appear in the student's code (as a name, an attribute, an
            imported name or an alias), each with why.
        attributes: names refused as an attribute (``nn.Conv2d``) or an import only: the
            student may give them to their own classes.
        imports: names refused as imports only.
    """

    function: str
    final_return: str
    given: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    names: dict[str, str] = field(default_factory=dict)
    attributes: dict[str, str] = field(default_factory=dict)
    imports: dict[str, str] = field(default_factory=dict)


def _bound_names(node: ast.stmt) -> set[str]:
    """The names a top-level statement binds."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    targets = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    return {name.id for target in targets for name in ast.walk(target)
            if isinstance(name, ast.Name)}


def _free_names(node: ast.AST) -> set[str]:
    """The names a statement reads but does not bind itself (its globals, roughly)."""
    read, bound = set(), set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            (read if isinstance(inner.ctx, ast.Load) else bound).add(inner.id)
        elif isinstance(inner, ast.arg):
            bound.add(inner.arg)
        elif isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                and inner is not node:
            bound.add(inner.name)
        elif isinstance(inner, (ast.Import, ast.ImportFrom)):
            bound |= _bound_names(inner)
    return read - bound if not isinstance(node, (ast.Assign, ast.AnnAssign)) else read


def _given_touched(code: ast.AST, given: tuple[str, ...], skip: ast.AST) -> Optional[str]:
    """A given name the student's code binds, reads or patches (outside the final line)."""
    for inner in ast.walk(code):
        if inner is skip:
            continue
        name = inner.id if isinstance(inner, ast.Name) else \
            inner.name if isinstance(inner, (ast.FunctionDef, ast.ClassDef)) else \
            inner.arg if isinstance(inner, ast.arg) else None
        if name in given and not _inside(inner, skip):
            return name
    return None


def _inside(node: ast.AST, container: ast.AST) -> bool:
    return any(inner is node for inner in ast.walk(container))


def _module_allowed(module: str, allowed: tuple[str, ...]) -> bool:
    return any(module == pattern or (pattern.endswith(".*")
                                     and (module + ".").startswith(pattern[:-1]))
               for pattern in allowed)


def _returns(body: list[ast.stmt]) -> list[ast.Return]:
    """The return statements of a function body, not those of functions defined in it."""
    found, todo = [], list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Return):
            found.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                 ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))
    return found


def _own_getattr(call: ast.Call, rules: SourceRules, modules_bound: set[str]) -> bool:
    """``getattr(obj, "name")`` on the student's own objects (``getattr(self, "conv1")``):
    a literal name that the rules would allow as ``obj.name``, and an ``obj`` that is not an
    imported module (mg, F, nn…). Everything else a refused ``getattr`` stays refused."""
    if not (isinstance(call.func, ast.Name) and call.func.id == "getattr"
            and 2 <= len(call.args) <= 3 and not call.keywords):
        return False
    target, name = call.args[0], call.args[1]
    root = target
    while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
        root = root.func if isinstance(root, ast.Call) else root.value
    if isinstance(root, ast.Name) and root.id in modules_bound:
        return False
    refused = {**rules.attributes, **rules.names}
    return (isinstance(name, ast.Constant) and isinstance(name.value, str)
            and name.value.isidentifier() and not name.value.startswith("_")
            and name.value not in refused)


def _first_problem(code: ast.AST, rules: SourceRules, modules_bound: set[str]) -> Optional[str]:
    """The first rule this piece of the student's code breaks; ``modules_bound`` are the
    top-level names that imports bind (mg, nn, F, np…), whose attributes it may not set."""
    own_getattrs = {id(call.func) for call in ast.walk(code) if isinstance(call, ast.Call)
                    and _own_getattr(call, rules, modules_bound)}
    docstrings = {id(item.body[0].value) for item in ast.walk(code)
                  if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                       ast.Module)) and item.body
                  and isinstance(item.body[0], ast.Expr)
                  and isinstance(item.body[0].value, ast.Constant)}
    for node in ast.walk(code):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                       else [node.module or ""])
            for module in modules:
                if getattr(node, "level", 0) or not _module_allowed(module, rules.modules):
                    return (f"it imports {'.' * getattr(node, 'level', 0)}{module}: the "
                            f"capstone may import only from {', '.join(rules.modules)}")
            for alias in node.names:
                if alias.name == "*":
                    return f"it imports * from {modules[0]}: import the names you use"
                refused = {**rules.imports, **rules.attributes, **rules.names}
                for name in (*alias.name.split("."), alias.asname):
                    if name in refused:
                        return f"it imports {name}: {refused[name]}"
        elif isinstance(node, ast.Name) and node.id in rules.names \
                and id(node) not in own_getattrs:
            return f"it uses {node.id}: {rules.names[node.id]}"
        elif isinstance(node, ast.Attribute) and node.attr in {**rules.attributes,
                                                              **rules.names}:
            return f"it uses .{node.attr}: {({**rules.attributes, **rules.names})[node.attr]}"
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) \
                else [node.target]
            for target in targets:
                root = target
                while isinstance(root, (ast.Attribute, ast.Subscript)):
                    root = root.value
                if root is not target and isinstance(root, ast.Name) \
                        and root.id in modules_bound:
                    return (f"it changes {root.id}.{ast.unparse(target)[len(root.id) + 1:]}: "
                            f"the capstone may use minigrad and numpy, not change them")
        elif isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)) \
                and len(node.value) > MAX_LITERAL and id(node) not in docstrings:
            return (f"it holds a literal of {len(node.value)} characters: the capstone's "
                    f"weights must come from its own training, not from pasted data")
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)) and len(node.elts) > MAX_LITERAL:
            return (f"it holds a literal of {len(node.elts)} values: the capstone's weights "
                    f"must come from its own training, not from pasted data")
    return None


def check_source(source: str, template: str, rules: SourceRules) -> Optional[str]:
    """``None`` when ``source`` keeps ``rules``, else a message saying which rule it breaks.

    ``template`` is the exercise file as the student got it (the given definitions)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None  # the grader reports the syntax error itself
    given = {name: [ast.dump(node) for node in ast.parse(template).body
                    if name in _bound_names(node)] for name in rules.given}
    top = tree.body
    definitions = [node for node in top if rules.function in _bound_names(node)]
    if not definitions:
        return None  # the grader reports a missing function itself
    function = definitions[-1]
    for node in top:
        for name in _bound_names(node) & set(rules.given):
            if ast.dump(node) not in given[name]:
                return (f"{name} is given: leave it as it is (the grader reads the "
                        f"capstone's report from it)")
    if not isinstance(function, ast.FunctionDef):
        return f"{rules.function} must stay a function, as given"
    final = ast.dump(ast.parse(rules.final_return).body[0])
    returns = _returns(function.body)
    if not function.body or ast.dump(function.body[-1]) != final or len(returns) != 1:
        return f"{rules.function} must end with its given line, `{rules.final_return}`, " \
               f"and return nowhere else"
    # The student's code: the function, and the top-level statements it reaches by name.
    reached, todo, pieces = set(), [function], []
    while todo:
        node = todo.pop()
        pieces.append(node)
        touched = _given_touched(node, rules.given, function.body[-1])
        if touched:
            return (f"{rules.function} uses {touched} outside its given last line: "
                    f"{touched} is given, leave it alone")
        for name in _free_names(node) - reached - set(dir(builtins)):
            reached.add(name)
            if name in rules.given:
                continue
            todo.extend(other for other in top
                        if name in _bound_names(other) and other is not function)
    modules_bound = {name for node in top if isinstance(node, (ast.Import, ast.ImportFrom))
                     for name in _bound_names(node)}
    for piece in pieces:
        problem = _first_problem(piece, rules, modules_bound)
        if problem:
            where = f"{rules.function}" if piece is function else \
                f"{', '.join(sorted(_bound_names(piece)))} (used by {rules.function})"
            return f"{where}: {problem}"
    return None
