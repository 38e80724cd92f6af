"""The documentation site (docs/, mkdocs.yml) builds with MkDocs --strict, so a broken
link or anchor fails the test run; every console example of its pages is re-run and
shows what the command prints today and the exit code it gives; the sparkfold commands
of its bash blocks that read the repository's files run and exit as the page says; the
rules catalogue is current; and the README's links into docs/ resolve."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

if __name__ == "__main__":  # run as a script to update the pages: import from the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sparkfold.optimizer.cli import rule_catalogue, rules_markdown

from tests.test_examples import _without_timings, copy_examples, rerun_console, run_tour_command

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
RULES_BEGIN, RULES_END = "<!-- rules:begin -->\n", "<!-- rules:end -->"
BASH = re.compile(r"```bash\n(.*?)```", re.S)
EXITS = re.compile(r"#.*\bexits (\d)\b")
READS = ("-f", "--file", "--schema", "--table")  # the options whose values a command reads


def mkdocs_build(config: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    proc = mkdocs_build(ROOT / "mkdocs.yml", out)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def test_the_site_builds_strict_with_every_page(site):
    built = {p.parent.name if p.parent != site else "index" for p in site.rglob("index.html")}
    assert {p.stem for p in PAGES} <= built, built


def test_a_broken_link_or_anchor_fails_the_strict_build(tmp_path):
    shutil.copytree(DOCS, tmp_path / "docs")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    page = tmp_path / "docs" / "index.md"
    page.write_text(page.read_text() + "\n[gone](no-such-page.md) and [moved](cli.md#no-such-section)\n")
    proc = mkdocs_build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert proc.returncode != 0
    assert "no-such-page.md" in proc.stderr and "no-such-section" in proc.stderr, proc.stderr


def test_the_readmes_links_resolve(site):
    """Every relative link of the README names a file of the repository; one into docs/
    with an anchor names a section of the built page."""
    readme = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(((?!https?:)[^)\s]+)\)", readme)
    assert any(link.startswith("docs/") and "#" in link for link in links)
    for link in links:
        path, _, anchor = link.partition("#")
        assert (ROOT / path).exists(), link
        if anchor and path.startswith("docs/"):
            stem = Path(path).stem
            html = site / ("index.html" if stem == "index" else f"{stem}/index.html")
            assert f'id="{anchor}"' in html.read_text(), link


@pytest.mark.parametrize("page", [p for p in PAGES if "```console" in p.read_text()], ids=lambda p: p.name)
def test_the_console_examples_are_current(page, tmp_path):
    text = page.read_text()
    assert _without_timings(text) == _without_timings(rerun_console(text, tmp_path)), \
        f"{page.name}'s examples are stale: run `python tests/test_docs.py --update`"


def _reads(args: list[str]) -> list[str]:
    """The paths a sparkfold command line reads (its SQL text arguments aside)."""
    paths = []
    for i, arg in enumerate(args[2:], 2):
        if args[i - 1] in READS:
            paths.append(arg.split("=", 1)[1] if "=" in arg and not arg.startswith(("/", ".")) else arg)
        elif not arg.startswith("-") and args[i - 1] not in ("-o", "--out", "--output", "--format", "--fail-on",
                                                              "--conf", "--rule", "--exclude-rule") \
                and re.fullmatch(r"[\w./-]+", arg):
            paths.append(arg)
    return paths


def bash_commands() -> list[tuple[str, str, int]]:
    """(page, command, expected exit code) of each sparkfold line of a bash block that
    reads only files of the repository; the exit code is the comment's `exits N`, else 0."""
    found = []
    for page in PAGES:
        for block in BASH.findall(page.read_text()):
            for line in block.splitlines():
                if not line.startswith("sparkfold "):
                    continue
                command = line.split("#", 1)[0].strip()
                args = shlex.split(command)
                paths = _reads(args)
                if args[1] != "run" and paths and all((ROOT / p).exists() for p in paths):
                    m = EXITS.search(line)
                    found.append((page.name, command, int(m.group(1)) if m else 0))
    return found


def test_the_bash_examples_over_the_repositorys_files_run(tmp_path):
    commands = bash_commands()
    assert len(commands) >= 4, commands
    copy_examples(tmp_path)
    for page, command, expected in commands:
        out, status = run_tour_command(command, tmp_path)
        assert status == expected, f"{page}: `{command}` exits {status}, the page says {expected}\n{out}"


def rules_page(text: str) -> str:
    head, rest = text.split(RULES_BEGIN, 1)
    return f"{head}{RULES_BEGIN}{rules_markdown(rule_catalogue())}\n{RULES_END}{rest.split(RULES_END, 1)[1]}"


def test_the_rule_catalogue_is_current():
    text = (DOCS / "rules.md").read_text()
    assert text == rules_page(text), \
        "docs/rules.md's catalogue is stale: run `python tests/test_docs.py --update`"


if __name__ == "__main__":
    import tempfile

    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/test_docs.py --update")
    for page in PAGES:
        with tempfile.TemporaryDirectory() as tmp:
            text = rerun_console(page.read_text(), Path(tmp))
        if page.name == "rules.md":
            text = rules_page(text)
        page.write_text(text)
    print("docs/ updated: review with `git diff docs/`")
