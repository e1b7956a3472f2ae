"""Mutation testing of one pbem module: which single-point changes of the code no test notices.

    python3 bench/mutate.py pbem/games/maria/rules/combat.py
    python3 bench/mutate.py pbem/core/envelope.py --jobs 2 --show survived
    python3 bench/mutate.py --stale    # equivalents-file entries whose mutant no longer exists

Each mutant changes one place of the module (a comparison, a constant, ``and``/``or``, a
negated condition, a removed statement, ...). The tests that cover the mutated lines run
against it, the adjudication cases first (``tests/cases/<game>``, the case runner) and then the
module's unit tests (pytest, in process; file by file in the order of the ``TESTS`` table,
fastest test first within a file); the first failing test kills the mutant. A mutant no
test kills survives: some rule behaviour there is unchecked, unless the mutant is listed in
``bench/mutants-equivalent.txt`` as equivalent (it cannot change any behaviour), each with its
reason. An entry whose mutant no longer exists (the code changed under it) is stale: a run lists
those of its module, and ``--stale`` lists those of every module the file names.

How: the unmutated package is imported once; the cases and test files are run once under a
line tracer to learn which of them reach which lines; then every mutant runs in a forked child
that re-executes the mutated source into the module (and rebinds the names other modules
imported from it) before running the covering tests. Mutants are numbered in source order and
the output does not depend on ``--jobs``: the run is deterministic.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import io
import os
import signal
import sys
import tempfile
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENT = ROOT / "bench" / "mutants-equivalent.txt"

# The tests of each module: (case folder or None, pytest files). The first matching prefix wins.
# A mutant runs the files' tests that reach its lines file by file in this order: fast, focused
# files first, so most mutants die in the first file's first tests.
TESTS: list[tuple[str, str | None, list[str]]] = [
    ("pbem/games/maria/rules/combat.py", "tests/cases/maria",
     ["tests/test_maria_combat.py", "tests/test_maria_cards.py"]),
    ("pbem/games/maria/", "tests/cases/maria",
     ["tests/test_maria_engine.py", "tests/test_maria_tracks.py", "tests/test_maria_cards.py",
      "tests/test_maria_combat.py"]),
    ("pbem/games/ror/", "tests/cases/ror", ["tests/test_ror_orders.py", "tests/test_ror_views.py"]),
    ("pbem/core/envelope.py", None, ["tests/test_envelope.py", "tests/test_signing.py"]),
    ("pbem/core/intake.py", None, ["tests/test_intake_checks.py", "tests/test_intake_requests.py", "tests/test_intake_mail.py", "tests/test_signing.py",
                                   "tests/test_core_flow.py", "tests/test_replies.py", "tests/test_gm.py",
                                   "tests/test_safety_net.py"]),
    ("pbem/core/audit.py", None, ["tests/test_audit_checks.py", "tests/test_audit_tamper.py", "tests/test_core_flow.py",
                                  "tests/test_gm_adversary.py", "tests/test_gm.py"]),
    ("pbem/core/auditfiles.py", None, ["tests/test_audit_checks.py", "tests/test_audit_tamper.py", "tests/test_core_flow.py",
                                       "tests/test_gm_adversary.py", "tests/test_gm.py"]),
    ("pbem/common/fair.py", None, ["tests/test_fair.py", "tests/test_report_dice.py"]),
]

FLIP: dict[type[ast.cmpop], list[type[ast.cmpop]]] = {
    ast.Lt: [ast.LtE, ast.Gt], ast.LtE: [ast.Lt, ast.GtE], ast.Gt: [ast.GtE, ast.Lt], ast.GtE: [ast.Gt, ast.LtE],
    ast.Eq: [ast.NotEq], ast.NotEq: [ast.Eq], ast.In: [ast.NotIn], ast.NotIn: [ast.In],
    ast.Is: [ast.IsNot], ast.IsNot: [ast.Is]}
BINOP: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult, ast.Mod: ast.FloorDiv}


@dataclass
class Mutant:
    number: int
    line: int
    end_line: int
    where: str  # the enclosing function or class, "<module>" at the top
    before: str  # the source segment replaced
    after: str  # its replacement
    source: str  # the whole mutated module
    key: str = ""  # stable name, for the equivalents file
    toplevel: bool = False  # runs at import (module or class body): every test may see it
    outcome: str = ""  # killed (by what), survived, equivalent
    by: str = ""


# -- generating mutants -------------------------------------------------------------------------

def _segments(tree: ast.Module) -> Iterator[tuple[ast.AST, str, list[ast.AST]]]:
    """Every node with the qualified name of its enclosing function and its parents."""
    def walk(node: ast.AST, where: str, parents: list[ast.AST]) -> Iterator[tuple[ast.AST, str, list[ast.AST]]]:
        for child in ast.iter_child_nodes(node):
            name = where
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = child.name if where == "<module>" else f"{where}.{child.name}"
            yield child, name, parents
            yield from walk(child, name, [*parents, child])
    yield from walk(tree, "<module>", [tree])


def _skip(node: ast.AST, parents: list[ast.AST]) -> bool:
    """Docstrings, annotations, ``TYPE_CHECKING`` blocks and ``__all__`` are not behaviour."""
    for p in parents:
        if isinstance(p, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and any(
                _inside(node, d) for d in p.decorator_list):
            return True
        if isinstance(p, ast.If) and "TYPE_CHECKING" in ast.unparse(p.test):
            return True
        if isinstance(p, ast.AnnAssign) and node is not p.value and not _inside(node, p.value):
            return True
        if isinstance(p, ast.arg):
            return True
        if isinstance(p, ast.FunctionDef | ast.AsyncFunctionDef) and p.returns is not None and _inside(node, p.returns):
            return True
    return False


def _inside(node: ast.AST, root: ast.AST | None) -> bool:
    return root is not None and any(n is node for n in ast.walk(root))


def _replacements(node: ast.AST) -> Iterator[str]:
    """The mutated forms of one node, as source text."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        for new in FLIP.get(type(node.ops[0]), []):
            cmp = copy.deepcopy(node)
            cmp.ops = [new()]
            yield ast.unparse(cmp)
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        yield repr(node.value + 1)
        yield repr(node.value - 1)
    elif isinstance(node, ast.Constant) and type(node.value) is bool:
        yield repr(not node.value)
    elif isinstance(node, ast.BoolOp):
        boolop = copy.deepcopy(node)
        boolop.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        yield ast.unparse(boolop)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield ast.unparse(node.operand)
    elif isinstance(node, ast.BinOp) and type(node.op) in BINOP:
        binop = copy.deepcopy(node)
        binop.op = BINOP[type(node.op)]()
        yield ast.unparse(binop)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("min", "max"):
        call = copy.deepcopy(node)
        call.func = ast.Name("max" if node.func.id == "min" else "min", ast.Load())
        yield ast.unparse(call)


def _tests_of(node: ast.AST) -> list[ast.expr]:
    """Conditions whose negation is a mutant: if/while/ternary tests, comprehension filters."""
    if isinstance(node, ast.If | ast.While | ast.IfExp):
        tests: list[ast.expr] = [node.test]
    elif isinstance(node, ast.comprehension):
        tests = list(node.ifs)
    else:
        return []
    # ``not x`` loses its ``not`` and ``a == b`` flips already: negating them again adds nothing
    same = (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is, ast.IsNot)
    return [t for t in tests if not (isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not)) and not (
        isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], same))]


def _removable(node: ast.AST) -> bool:
    """Statements whose removal is a mutant (an assignment to a plain name would only raise)."""
    if isinstance(node, ast.Expr):
        return not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str))
    if isinstance(node, ast.Assign):
        return all(isinstance(t, ast.Subscript | ast.Attribute) for t in node.targets)
    return isinstance(node, ast.AugAssign | ast.Raise | ast.Continue | ast.Break | ast.Delete)


def mutants(path: Path) -> list[Mutant]:
    """Every single-point mutant of the module at ``path``, in source order, duplicates removed."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln))

    def offset(line: int, col: int) -> int:  # ast columns count UTF-8 bytes
        return starts[line - 1] + len(lines[line - 1].encode("utf-8")[:col].decode("utf-8"))

    tree = ast.parse(text)
    found: list[tuple[int, int, int, str, str, str, int, int, bool]] = []
    for node, where, parents in _segments(tree):
        if _skip(node, parents) or not hasattr(node, "lineno"):
            continue
        # code of a function body runs when called; its defaults run at import, like the module's
        toplevel = not any(isinstance(p, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
                           and not any(_inside(node, d) for d in [*p.args.defaults, *p.args.kw_defaults] if d)
                           for p in parents)
        edits: list[tuple[ast.AST, str]] = [(node, r) for r in _replacements(node)]
        edits += [(t, ast.unparse(ast.UnaryOp(ast.Not(), t))) for t in _tests_of(node)]
        if isinstance(node, ast.Return) and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None):
            edits.append((node, "return None"))
        if isinstance(node, ast.stmt) and _removable(node):
            edits.append((node, "pass"))
        for target, new in edits:
            line, end = getattr(target, "lineno"), getattr(target, "end_lineno")  # noqa: B009 - any node kind
            a = offset(line, getattr(target, "col_offset"))  # noqa: B009
            b = offset(end, getattr(target, "end_col_offset"))  # noqa: B009
            old = text[a:b]
            if not isinstance(target, ast.stmt) and "\n" in old or isinstance(target, ast.expr):
                new = f"({new})"
            found.append((a, b, len(found), where, old, new, line, end, toplevel))
    out: list[Mutant] = []
    seen: set[str] = set()
    occurrences: dict[str, int] = {}
    for a, b, _, where, old, new, line, end, toplevel in sorted(found):
        source = text[:a] + new + text[b:]
        if source in seen or source == text:
            continue
        try:
            compile(source, str(path), "exec")
        except SyntaxError:
            continue
        seen.add(source)
        before = " ".join(old.split())
        after = " ".join(new.split())
        base = f"{where}: {before} -> {after}"
        occurrences[base] = occurrences.get(base, 0) + 1
        n = occurrences[base]
        key = base if n == 1 else f"{base} #{n}"
        out.append(Mutant(len(out) + 1, line, end, where, before, after, source, key, toplevel))
    return out


# -- knowing which test reaches which line ------------------------------------------------------

def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


@contextlib.contextmanager
def tracing(filename: str, lines: set[int]) -> Iterator[None]:
    """Record the lines of ``filename`` run in this thread."""
    def local(frame: types.FrameType, event: str, arg: object) -> Callable | None:
        if event in ("line", "call"):
            lines.add(frame.f_lineno)
        return local

    def glob(frame: types.FrameType, event: str, arg: object) -> Callable | None:
        if frame.f_code.co_filename == filename:
            lines.add(frame.f_lineno)
            return local
        return None

    old = sys.gettrace()
    sys.settrace(glob)
    try:
        yield
    finally:
        sys.settrace(old)


def _cpu() -> float:
    """CPU seconds of this process and of the children it waited for: what a test costs, the
    same on a loaded machine as on a quiet one (wall time would leave out more tests under
    load and so change the score)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


@dataclass
class Unit:
    """One runnable test: a case or a pytest node id, and the module lines it reaches."""
    kind: str  # "case" or "pytest"
    name: str
    ref: Any  # a pbem.cases.Case, or a pytest node id
    lines: set[int] = field(default_factory=set)
    seconds: float = 0.0  # CPU time, traced
    rank: int = 0  # its file's place in the module's list of test files: the focused files first


def case_units(folder: str, filename: str) -> list[Unit]:
    from pbem.cases import iter_case_files, load_cases, run_case
    units = []
    for f in iter_case_files([ROOT / folder]):
        for case in load_cases(f):
            u = Unit("case", f"case {case.id}", case)
            t0 = _cpu()
            with tracing(filename, u.lines):
                result = run_case(case)
            u.seconds = _cpu() - t0
            if not result.passed:
                sys.exit(f"the unmutated code fails {u.name}: {result.line()}")
            units.append(u)
    return units


def pytest_units(files: list[str], filename: str) -> list[Unit]:
    """One unit per test, traced while it runs. What fixtures reach while being set up or torn
    down counts for every test of their file: a module-scoped fixture is built inside whichever
    test comes first, and a mutant of the code it runs must be judged by all the tests that use
    what it built. A test's time is its call alone: the fixtures are paid once per run."""
    import pytest

    units: dict[str, Unit] = {}
    fixture_lines: dict[str, set[int]] = {}

    def unit(item: pytest.Item) -> Unit:
        return units.setdefault(item.nodeid, Unit("pytest", item.nodeid, item.nodeid))

    class Recorder:
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_setup(self, item: pytest.Item) -> Iterator[None]:
            unit(item)
            with tracing(filename, fixture_lines.setdefault(item.nodeid.split("::")[0], set())):
                yield

        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_call(self, item: pytest.Item) -> Iterator[None]:
            u = unit(item)
            t0 = _cpu()
            with tracing(filename, u.lines):
                yield
            u.seconds = _cpu() - t0

        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_teardown(self, item: pytest.Item, nextitem: object) -> Iterator[None]:
            with tracing(filename, fixture_lines.setdefault(item.nodeid.split("::")[0], set())):
                yield

        def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
            if report.failed:
                units.pop(report.nodeid, None)  # fails unmutated: it cannot judge a mutant

    existing = [f for f in files if (ROOT / f).is_file()]
    if not existing:
        return []
    with contextlib.redirect_stdout(io.StringIO()):
        pytest.main(["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(ROOT),
                     *[str(ROOT / f) for f in existing]], plugins=[Recorder()])
    for u in units.values():
        u.lines |= fixture_lines.get(u.name.split("::")[0], set())
        u.rank = next((i for i, f in enumerate(existing) if u.name.startswith(f + "::")), len(existing))
    # a test that reaches no line may still read a module constant: it judges the top-level mutants
    return list(units.values())


# -- running a mutant ---------------------------------------------------------------------------

IMMUTABLE = (int, float, str, bytes, bool, type(None), frozenset, tuple)


def apply(module_name: str, source: str) -> None:
    """Re-execute the mutated ``source`` into the imported module and rebind, in every other
    loaded module, the names that pointed at the module's old objects."""
    mod = sys.modules[module_name]
    old = dict(mod.__dict__)
    exec(compile(source, mod.__file__ or module_name, "exec"), mod.__dict__)  # noqa: S102
    by_id = {id(v): (k, v, mod.__dict__[k]) for k, v in old.items()
             if not k.startswith("__") and k in mod.__dict__ and mod.__dict__[k] is not v
             and not isinstance(v, types.ModuleType)}
    for other in list(sys.modules.values()):
        d = getattr(other, "__dict__", None)
        if other is mod or not isinstance(d, dict):
            continue
        for name, value in list(d.items()):
            hit = by_id.get(id(value))
            if hit is None or hit[1] is not value:
                continue
            if isinstance(value, IMMUTABLE) and name != hit[0]:
                continue  # a shared small constant under another name
            d[name] = hit[2]


def run_units(units: list[Unit]) -> str:
    """'' if every unit passes, else the name of the first that fails."""
    cases = [u for u in units if u.kind == "case"]
    if cases:
        from pbem.cases import run_case
        for u in cases:
            try:
                if not run_case(u.ref).passed:
                    return u.name
            except Exception:  # noqa: BLE001 - a mutant that crashes is killed
                return u.name
    ids = [str(u.ref) for u in units if u.kind == "pytest"]
    if ids:
        import pytest
        with contextlib.redirect_stdout(io.StringIO()):
            code = pytest.main(["-q", "-x", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(ROOT), *ids])
        if code != 0:
            return "pytest " + ids[0] if len(ids) == 1 else f"pytest ({len(ids)} tests)"
    return ""


def judge(m: Mutant, module_name: str, stages: list[list[Unit]], timeout: int, notes: Path) -> int:
    """Fork a child that applies ``m`` and runs the units reaching its lines; its exit status:
    0 survived, 10+i killed by stage i, 20 the mutant could not even load."""
    pid = os.fork()
    if pid == 0:  # the child
        code = 0
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            signal.alarm(timeout)
            try:
                apply(module_name, m.source)
            except Exception:  # noqa: BLE001
                os._exit(20)
            lines = set(range(m.line, m.end_line + 1))
            for i, units in enumerate(stages):
                reach = [u for u in units if u.lines & lines or m.toplevel]
                # file by file (a module-scoped fixture is then built once, not again each time
                # the order comes back to its file), in the list's order, fastest test first
                reach.sort(key=lambda u: (u.rank, u.seconds))
                failed = run_units(reach)
                if failed:
                    with open(notes / str(m.number), "w", encoding="utf-8") as fh:
                        fh.write(failed)
                    code = 10 + i
                    break
        finally:
            os._exit(code)
    return pid


def load_equivalents(path: Path, rel: str) -> dict[str, str]:
    """``path::key  # reason`` lines of the equivalents file that concern module ``rel``."""
    out: dict[str, str] = {}
    if not path.is_file():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        entry, _, reason = line.partition("  # ")
        file, _, key = entry.partition("::")
        if file == rel:
            if not reason.strip():
                sys.exit(f"{path}: every equivalent mutant needs a reason: {line}")
            out[key.strip()] = reason.strip()
    return out


def stale_equivalents(path: Path) -> dict[str, list[str]]:
    """The entries of the equivalents file at ``path`` that name no mutant of their module (the
    code changed under them), by module; a module that is gone has every entry stale."""
    modules = sorted({line.partition("::")[0] for line in path.read_text(encoding="utf-8").splitlines()
                      if line.strip() and not line.startswith("#")})
    out: dict[str, list[str]] = {}
    for rel in modules:
        keys = {m.key for m in mutants(ROOT / rel)} if (ROOT / rel).is_file() else set()
        stale = sorted(set(load_equivalents(path, rel)) - keys)
        if stale:
            out[rel] = stale
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("modules", nargs="*", help="module files, e.g. pbem/games/maria/rules/combat.py")
    ap.add_argument("--jobs", type=int, default=2, help="mutants judged at once (default 2)")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per mutant before it counts as killed")
    ap.add_argument("--cases-only", action="store_true", help="only the case runner, no unit tests")
    ap.add_argument("--tests", nargs="*", help="pytest files instead of the module's default list")
    ap.add_argument("--show", choices=["survived", "all", "none"], default="survived")
    ap.add_argument("--equivalent", type=Path, default=EQUIVALENT)
    ap.add_argument("--limit", type=int, default=0, help="judge only the first N mutants (a smoke run)")
    ap.add_argument("--lines", help="judge only the mutants within these lines of the module, e.g. 300-350")
    ap.add_argument("--max-seconds", type=float, default=3.0,
                    help="leave out unit tests that take more CPU seconds than this (traced); the cases always run")
    ap.add_argument("--stale", action="store_true",
                    help="only list the entries of the equivalents file that name no mutant of any module it names (runs no test)")
    args = ap.parse_args()
    if args.stale:
        found = stale_equivalents(args.equivalent)
        for rel, keys in found.items():
            for key in keys:
                print(f"{rel}: the equivalents file names a mutant that no longer exists: {key}")
        sys.exit(1 if found else 0)
    if not args.modules:
        ap.error("name a module file, or give --stale")
    os.chdir(ROOT)
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    os.environ.setdefault("PYTHONHASHSEED", "0")
    table = []
    for raw in args.modules:
        path = (ROOT / raw).resolve()
        rel = str(path.relative_to(ROOT))
        name = _module_name(path)
        __import__(name)
        folder, files = next(((c, f) for prefix, c, f in TESTS if rel.startswith(prefix)), (None, []))
        if args.tests is not None:
            files = args.tests
        if args.cases_only:
            files = []
        filename = sys.modules[name].__file__ or ""
        stages = []
        if folder:
            stages.append(case_units(folder, filename))
        if files:
            units = pytest_units(files, filename)
            slow = [u for u in units if u.seconds > args.max_seconds]
            if slow:
                print(f"{rel}: {len(slow)} slow unit tests left out (over {args.max_seconds} s)", file=sys.stderr)
            stages.append([u for u in units if u.seconds <= args.max_seconds])
        all_mutants = mutants(path)
        if args.limit:
            all_mutants = all_mutants[:args.limit]
        if args.lines:
            first, _, last = args.lines.partition("-")
            all_mutants = [m for m in all_mutants if int(first) <= m.line and m.end_line <= int(last or first)]
        equivalents = load_equivalents(args.equivalent, rel)
        todo = [m for m in all_mutants if m.key not in equivalents]
        for m in all_mutants:
            if m.key in equivalents:
                m.outcome, m.by = "equivalent", equivalents[m.key]
        running: dict[int, Mutant] = {}
        queue = list(todo)
        done = 0
        with tempfile.TemporaryDirectory(prefix="pbem-mutate-") as tmp:
            notes = Path(tmp)
            try:
                while queue or running:
                    while queue and len(running) < max(1, args.jobs):
                        m = queue.pop(0)
                        running[judge(m, name, stages, args.timeout, notes)] = m
                    pid, status = os.wait()
                    m = running.pop(pid)
                    note = notes / str(m.number)
                    if os.WIFSIGNALED(status):
                        m.outcome, m.by = "killed", "timeout or crash"
                    else:
                        code = os.WEXITSTATUS(status)
                        m.outcome = "survived" if code == 0 else "killed"
                        m.by = "does not load" if code == 20 else (note.read_text() if note.exists() else "")
                    done += 1
                    print(f"[{done}/{len(todo)}] {m.outcome}: {rel}:{m.line} {m.key}", file=sys.stderr, flush=True)
            finally:
                for pid in running:
                    os.kill(pid, signal.SIGKILL)
        stale = sorted(set(equivalents) - {m.key for m in all_mutants})
        killed = sum(m.outcome == "killed" for m in all_mutants)
        survived = [m for m in all_mutants if m.outcome == "survived"]
        equivalent = sum(m.outcome == "equivalent" for m in all_mutants)
        judged = killed + len(survived)
        score = 100.0 * killed / judged if judged else 100.0
        table.append((rel, len(all_mutants), killed, len(survived), equivalent, score))
        timeouts = sum(m.by == "timeout or crash" for m in all_mutants)
        if timeouts:  # a slow survivor on a loaded machine would count here too: look at them
            print(f"{rel}: {timeouts} of the killed ran past --timeout or crashed the runner", file=sys.stderr)
        if args.show != "none":
            for m in all_mutants:
                if args.show == "all" or m.outcome == "survived":
                    print(f"{rel}:{m.line}: {m.outcome}{' (' + m.by + ')' if m.by else ''}: {m.key}")
        for key in stale:
            print(f"{rel}: the equivalents file names a mutant that no longer exists: {key}")
    print(f"{'module':52} {'mutants':>7} {'killed':>7} {'survived':>8} {'equiv.':>6} {'score':>7}")
    for rel, n, k, s, e, score in table:
        print(f"{rel:52} {n:7} {k:7} {s:8} {e:6} {score:6.1f}%")


if __name__ == "__main__":
    main()
