"""The package's shape: no import cycle, no private name used outside its file, and the engine never
imports the workflow subpackage."""
import ast
import os

import pytest

from conftest import ROOT

PACKAGE = os.path.join(ROOT, "gpu_kernels")


def module_name(path: str) -> str:
    rel = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
    return rel[: -len(".__init__")] if rel.endswith(".__init__") else rel


def imports_of(path: str) -> set[str]:
    """Every gpu_kernels module a file imports, at the top or inside a function."""
    name = module_name(path)
    package = name if path.endswith("__init__.py") else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(open(path).read())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("gpu_kernels"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("gpu_kernels"):
                continue
            for alias in node.names:  # `from . import words` imports the module gpu_kernels.words
                sub = f"{target}.{alias.name}"
                found.add(sub if os.path.exists(os.path.join(ROOT, *sub.split(".")) + ".py") else target)
    found.discard(name)
    return found


def graph() -> dict[str, set[str]]:
    out = {}
    for folder, _, files in os.walk(PACKAGE):
        for file in files:
            if file.endswith(".py"):
                path = os.path.join(folder, file)
                out[module_name(path)] = imports_of(path)
    return out


def test_the_walk_sees_the_package():
    g = graph()
    assert "gpu_kernels.engine" in g and "gpu_kernels.workflow.jobs" in g
    assert "gpu_kernels.backend" in g["gpu_kernels.engine"]
    assert "gpu_kernels.words" in g["gpu_kernels.backend"]  # `from . import words`


def find_cycle(g: dict[str, set[str]]):
    """One import cycle as a list of modules, or None. A package's __init__ is left out of its
    submodules' edges: Python imports it first anyway, so it cannot close a cycle by itself."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(g.get(node, ())):
            if nxt not in g or node.startswith(nxt + "."):
                continue
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(g):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_no_import_cycle():
    assert find_cycle(graph()) is None, " -> ".join(find_cycle(graph()))


def test_no_module_imports_the_package_root():
    """The root's __init__ imports the engine: a module that imports it back (`from .. import
    __version__`) closes a loop that the cycle walk leaves out."""
    back = sorted(module for module, imported in graph().items() if "gpu_kernels" in imported)
    assert not back, back


def test_a_cycle_is_found():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_crossings(path: str, source: str | None = None) -> list[str]:
    """Private names (one leading underscore) of other gpu_kernels modules that a file uses: imported
    by name, or read off a module of the package it imported (`native._x`)."""
    name = module_name(path)
    package = name if path.endswith("__init__.py") else name.rsplit(".", 1)[0]
    tree = ast.parse(open(path).read() if source is None else source)
    found, modules = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                target = ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("gpu_kernels"):
                continue
            for alias in node.names:
                if private(alias.name):
                    found.append(f"{target}.{alias.name}")
                elif os.path.exists(os.path.join(ROOT, *f"{target}.{alias.name}".split(".")) + ".py"):
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            modules.update(a.asname for a in node.names if a.name.startswith("gpu_kernels") and a.asname)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules \
                and private(node.attr):
            found.append(f"{node.value.id}.{node.attr}")
    return found


def test_no_private_name_crosses_a_file():
    crossings = {}
    for folder, _, files in os.walk(PACKAGE):
        for file in files:
            if file.endswith(".py"):
                path = os.path.join(folder, file)
                if found := private_crossings(path):
                    crossings[os.path.relpath(path, ROOT)] = found
    assert not crossings, crossings


def test_a_private_crossing_is_found():
    path = os.path.join(PACKAGE, "align.py")
    source = "from .chains import _helper, public\nfrom . import native\nnative._module\nnative.module\n"
    assert private_crossings(path, source) == ["gpu_kernels.chains._helper", "native._module"]


def test_engine_never_imports_the_workflow():
    for module, imported in graph().items():
        # the command line sits above both: its `filter` command makes the workflow's outputs again
        if module.startswith("gpu_kernels.workflow") or module == "gpu_kernels.__main__":
            continue
        bad = sorted(i for i in imported if i.startswith("gpu_kernels.workflow"))
        assert not bad, f"{module} imports {bad}"


def test_import_gpu_kernels_is_the_engine_alone():
    import subprocess
    import sys

    code = "import sys, gpu_kernels; print(sorted(m for m in sys.modules if m.startswith('gpu_kernels.workflow') or m in ('cupy', 'matplotlib', 'snakemake')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out.strip() == "[]"


def device_twins() -> dict[str, list[str]]:
    """{module: its public functions named NAME_cupy} of every module of the package."""
    import importlib
    import pkgutil

    import gpu_kernels

    found = {}
    for info in pkgutil.walk_packages(gpu_kernels.__path__, "gpu_kernels."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        names = [name for name in vars(module) if name.endswith("_cupy") and not name.startswith("_") and
                 callable(getattr(module, name)) and getattr(module, name).__module__ == module.__name__]
        if names:
            found[info.name] = names
    return found


def test_every_device_function_sits_beside_its_numpy_twin():
    """Every public CuPy function NAME_cupy of every module has its NumPy twin NAME in the same module,
    with the same parameters (the docstring says where the results differ, e.g. positions int64)."""
    import importlib
    import inspect

    twins = device_twins()
    assert {"gpu_kernels.words", "gpu_kernels.align", "gpu_kernels.chains", "gpu_kernels.matches"} <= set(twins)
    for module_name, names in twins.items():
        module = importlib.import_module(module_name)
        for name in names:
            numpy_fn = getattr(module, name[: -len("_cupy")], None)
            assert numpy_fn is not None, f"{module_name}.{name} has no NumPy twin"
            assert list(inspect.signature(numpy_fn).parameters.values()) == \
                list(inspect.signature(getattr(module, name)).parameters.values()), f"{module_name}.{name}"


def test_prebuilt_kernels_are_named_by_their_source(monkeypatch):
    """A fatbin is found only for the source it was built from: an edited .cu file gets a new name,
    so an install's old binary is never loaded for it. Where nvcc was there at install, every file
    has its fatbin."""
    import shutil

    from gpu_kernels import kernels

    names = {f: kernels.fatbin_name(f) for f in kernels.files()}
    assert len(set(names.values())) == len(names) >= 7
    if shutil.which("nvcc"):
        assert all(kernels.prebuilt(f) for f in kernels.files()), "pip install -e . built no fatbins"
    text = kernels.source("scan.cu")
    monkeypatch.setattr(kernels, "source", lambda file: text + "\n// edited\n" if file == "scan.cu" else text)
    assert kernels.fatbin_name("scan.cu") != names["scan.cu"]
    assert kernels.prebuilt("scan.cu") is None


def test_fatbin_architectures_follow_the_nvcc():
    """Machine code for every architecture the nvcc knows among ARCHS, PTX of the newest; an nvcc that
    cannot list them gets sm_80 and sm_90."""
    import shutil

    from gpu_kernels import kernels

    assert kernels.gencode("/bin/false") == ["-gencode", "arch=compute_80,code=sm_80",
                                             "-gencode", "arch=compute_90,code=[sm_90,compute_90]"]
    if shutil.which("nvcc"):
        last = kernels.gencode("nvcc")[-1]  # e.g. arch=compute_120,code=[sm_120,compute_120]
        arch = last.split(",")[0].split("_")[1]
        assert "arch=compute_80,code=sm_80" in kernels.gencode("nvcc") and last.endswith(f"[sm_{arch},compute_{arch}]")


# Files past the layout's 450 lines when the rule was set, each held to its length then: they may
# shrink (and leave this list), never grow; every other file stays within 450 lines.
LONG_FILES: dict = {}  # files allowed past MOST_LINES (none now: a split is the fix, not an entry here)
MOST_LINES = 450


def test_no_source_file_grows_past_450_lines():
    long = {}
    for top in ("gpu_kernels", "workflow", "tests", "bench"):
        for folder, subfolders, files in os.walk(os.path.join(ROOT, top)):
            subfolders[:] = [f for f in subfolders if f not in ("out", "__pycache__", "cubins")]
            for name in files:
                if name.endswith((".py", ".c", ".cu", ".h", ".smk", ".sh")) or name == "Snakefile":
                    path = os.path.join(folder, name)
                    with open(path, errors="replace") as handle:
                        lines = sum(1 for _ in handle)
                    rel = os.path.relpath(path, ROOT)
                    if lines > LONG_FILES.get(rel, MOST_LINES):
                        long[rel] = lines
    assert not long, long


# What the C and CUDA twins compute the same way, written once in a header both include: (header,
# the sources that include it, what would be written out again (a pattern of a definition or of its
# arithmetic), a line the device's source (what NVRTC compiles and the fatbins' digests read) holds).
SHARED_HEADERS = {
    "scoring.h": (("align.c", "align.cu"),
                  (r"a < 4 \? (x->|f->)?match",  # a column's score
                   r"^[\w ]*\b(void|int|uint8_t|bool|char) \*?(cell|band_of|periodic|column_score)\("),
                  ("align.cu", "SCORING_FN unsigned char cell(")),
    "spaced.h": (("spaced.c", "spaced.cu"),
                 (r"\b(91|-114|-125)\b",  # HOXD70
                  r"^[\w ]*\b(void|int|int64_t|long long|spaced_i64) \*?(window_key|key_range|walk_side|spaced_hsp|"
                  r"hoxd70)\("),
                 ("spaced.cu", "SPACED_FN int hoxd70(")),
    "codes.h": (("fasta.c", "fasta.cu", "matches.c", "matches.cu"),
                (r"#define (SKIP|INVALID|HASH_BASE)\b|0x9E3779B97F4A7C15", r"hash_symbol\([^)]*\) *\{"),
                ("matches.cu", "CODES_FN codes_u64 hash_symbol(")),
    "link.h": (("chains.c", "chains.cu"),
               (r"gap \* (d->)?gap_base / 100",  # the link's cost
                r"^[\w ]*\b(bool|int) linkable\("),
               ("chains.cu", "LINK_FN link_i64 link_add(")),
    "placement.h": (("placement.c", "chains.cu"),
                    (r"a == N_CODE \|\| b == N_CODE",  # a block column's score
                     r"^[\w ]*\b(void|int|bool|long long|int64_t) \*?(repeats|repeat_run|tandem_span|any_tandem|"
                     r"past_tandems|block_score)\("),
                    ("chains.cu", "PLACEMENT_CALL int past_tandems(")),
}


@pytest.mark.parametrize("header", sorted(SHARED_HEADERS))
def test_twins_share_what_they_compute_alike(header):
    """Each source includes its header and writes none of it again; the device's source holds the
    header's text (kernels.source puts it in place of the include)."""
    import re

    from gpu_kernels import kernels

    sources, written_again, (device_source, line) = SHARED_HEADERS[header]
    for name in sources:
        with open(os.path.join(ROOT, "gpu_kernels", name)) as handle:
            text = handle.read()
        assert f'#include "{header}"' in text, name
        for pattern in written_again:
            assert not re.search(pattern, text, re.M), (name, pattern)
    assert line in kernels.source(device_source)


def test_python_twins_constants_are_the_headers():
    """fasta.py's SKIP and matches_runs.py's HASH_BASE are codes.h's."""
    import re

    from gpu_kernels import fasta, matches_runs

    with open(os.path.join(ROOT, "gpu_kernels", "codes.h")) as handle:
        defined = {name: int(value, 16) for name, value in re.findall(r"#define (\w+) (0x[0-9A-Fa-f]+)", handle.read())}
    assert defined["SKIP"] == fasta.SKIP and defined["HASH_BASE"] == matches_runs.HASH_BASE


def test_the_citation_file_names_this_release():
    """CITATION.cff (GitHub's "Cite this repository", Zenodo): the fields the format requires, and the
    version and licence pyproject.toml gives."""
    import tomllib

    import yaml

    citation = yaml.safe_load(open(os.path.join(ROOT, "CITATION.cff")))
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
        project = tomllib.load(handle)["project"]
    assert citation["cff-version"] == "1.2.0" and citation["message"] and citation["title"]
    assert all(author.get("name") or author.get("family-names") for author in citation["authors"])
    assert citation["version"] == project["version"] and citation["license"] == project["license"]
