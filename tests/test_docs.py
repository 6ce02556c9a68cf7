"""The README stays short and every link in it and in docs/ resolves: a file that exists, and a
heading there for an anchor (as GitHub makes anchors of headings)."""
import glob
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = ["README.md", "bench/README.md", "config/README.md"] + sorted(
    os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but hyphens dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: str) -> set:
    with open(path) as handle:
        return {anchor(line.lstrip("#")) for line in handle if re.match(r"#{1,6} ", line)}


def test_the_readme_is_at_most_300_lines():
    with open(os.path.join(ROOT, "README.md")) as handle:
        assert len(handle.read().splitlines()) <= 300


def test_anchor_is_githubs():
    assert anchor("The workflow's unit of work: the homology pipeline") == \
        "the-workflows-unit-of-work-the-homology-pipeline"
    assert anchor("Gapped alignments: `align`") == "gapped-alignments-align"


@pytest.mark.parametrize("page", PAGES)
def test_every_link_resolves(page):
    path = os.path.join(ROOT, page)
    with open(path) as handle:
        text = handle.read()
    # links in code blocks are examples, not links
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = "\n".join(line for line in text.splitlines() if not line.startswith("    "))
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):  # https:, mailto:: not checked here (no network)
            continue
        file, _, fragment = target.partition("#")
        goal = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
        if not os.path.exists(goal):
            broken.append(target)
        elif fragment and goal.endswith(".md") and fragment not in anchors(goal):
            broken.append(target)
    assert not broken, f"{page}: {broken}"
