"""The shape of the code: no import cycles, one ABI layer, one owner of the worker's state."""
import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "py_src"
PKG = SRC / "decodelab"  # the page's package (it goes into decodelab.zip as it is)
TOOLS = SRC / "decodelab_tools"  # CPython only: training, reference, benchmarks, browser harness


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """decodelab modules that `path` imports anywhere in it (inside functions too)."""
    mod = _module_name(path)
    package = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names = [target] + [f"{target}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        out.update(n for n in names if n.startswith("decodelab"))
    return out


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for pkg in (PKG, TOOLS) for p in pkg.rglob("*.py")}
    return {m: {t for t in _imports(p) if t in files and t != m} for m, p in files.items()}


def test_no_import_cycles_anywhere_in_py_src():
    g = _graph()
    assert "decodelab.api" in g and "decodelab.session" in g
    state: dict[str, int] = {}
    cycles = []

    def visit(m, stack):
        state[m] = 1
        for t in sorted(g[m]):
            if state.get(t) == 1:
                cycles.append(stack[stack.index(t):] + [t])
            elif not state.get(t):
                visit(t, stack + [t])
        state[m] = 2

    for m in sorted(g):
        if not state.get(m):
            visit(m, [m])
    assert cycles == []


def test_the_page_package_never_imports_the_tools_package():
    """What runs in the page imports nothing CPython-only, so the page's zip can be the whole
    package; the tools import the page's modules freely."""
    g = _graph()
    page = {m: deps for m, deps in g.items() if m.split(".")[0] == "decodelab"}
    assert len(page) > 15 and any(m.startswith("decodelab_tools.") for m in g)
    assert {m: sorted(d for d in deps if d.startswith("decodelab_tools")) for m, deps in page.items()
            if any(d.startswith("decodelab_tools") for d in deps)} == {}
    assert "decodelab.engine" in g["decodelab_tools.golden"]


def test_chapters_reach_state_only_through_the_session():
    g = _graph()
    for ch in ("ch1", "ch2", "ch3", "perf"):
        deps = g[f"decodelab.{ch}"]
        assert "decodelab.session" in deps
        assert "decodelab.api" not in deps  # api imports the chapters, never the other way round
    assert {"decodelab.ch1", "decodelab.ch2", "decodelab.ch3", "decodelab.perf"} <= g["decodelab.api"]
    assert not (g["decodelab.session"] & {"decodelab.api", "decodelab.ch1", "decodelab.ch2", "decodelab.ch3"})


def test_nothing_above_the_engine_touches_private_members_or_the_host():
    """Only kernel.py (the ABI layer) and engine.py (its one user of raw buffers) may reach
    underscored members of other objects or `.host`; everything else uses public methods."""
    allowed = {"kernel.py", "engine.py"}
    found = []
    for p in PKG.rglob("*.py"):
        if p.name in allowed:
            continue
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Attribute):
                private = node.attr.startswith("_") and not node.attr.startswith("__")
                owner_is_self = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
                if (private and not owner_is_self) or node.attr == "host":
                    found.append(f"{p.relative_to(PKG)}:{node.lineno} .{node.attr}")
    assert found == []


def test_endpoints_reach_the_kernel_only_through_the_engine():
    """The chapters, the session and the probes use what Engine offers (kept_logits, twin, simd,
    logit_source, ...), never its kernel `.k`: a change to kernel memory's layout stays in
    engine.py and kernel.py."""
    found = []
    for p in PKG.rglob("*.py"):
        if p.name in ("kernel.py", "engine.py"):
            continue
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == "k" and not (
                    isinstance(node.value, ast.Name) and node.value.id == "self"):
                found.append(f"{p.relative_to(PKG)}:{node.lineno}")
    assert found == []


def test_no_module_imports_another_modules_private_names():
    """`from .ch1 import _source` made a private helper part of two modules' contracts: a name
    another module needs is public, or it lives in the module both depend on."""
    found = []
    for p in PKG.rglob("*.py"):
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("decodelab")):
                found += [f"{p.relative_to(PKG)}: from {node.module} import {a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    assert found == []
