"""Compiled templates kept between runs: a daily ``pbem run`` loads the report templates it
compiled on an earlier day instead of compiling them again (about 40 templates a language), and
never reads a compiled template made for another catalog or another pbem."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from pbem.render import i18n

ROOT = Path(__file__).resolve().parent.parent

# renders one report page in both languages; with NO_COMPILE, compiling a template fails
RENDER = """
import sys, jinja2
if "NO_COMPILE" in sys.argv:
    def refuse(*a, **k):
        raise SystemExit("compiled a template")
    jinja2.Environment._parse = refuse
from pbem.render import i18n
for lang in ("en", "zh-TW"):
    sys.stdout.write(i18n.render(lang, "base/mail_subject.txt", {"phase": {"campaign": "c", "kind": "phase", "id": "1741-1/france"}, "next": None}))
"""


def _render(cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", RENDER, *args], env=env, capture_output=True, text=True, cwd=ROOT)


def test_a_second_run_loads_the_templates_the_first_compiled(tmp_path: Path) -> None:
    first = _render(tmp_path)
    assert first.returncode == 0, first.stderr
    folders = sorted(p.name for p in (tmp_path / "pbem").iterdir())
    assert len(folders) == 2 and all(f.startswith("templates-") for f in folders)  # one a language
    second = _render(tmp_path, "NO_COMPILE")
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout == "[c] Phase 1741-1/france[c] 階段 1741-1/france"


def test_a_damaged_cache_is_compiled_again(tmp_path: Path) -> None:
    assert _render(tmp_path).returncode == 0
    for f in (tmp_path / "pbem").rglob("*.cache"):
        f.write_bytes(f.read_bytes()[:40])
    again = _render(tmp_path)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("[c] Phase 1741-1/france")


def test_no_writable_cache_still_renders(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    out = _render(blocked)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("[c] Phase 1741-1/france")


def test_the_cache_is_keyed_by_language_catalog_and_pbem() -> None:
    en, zh = i18n.cache_key("en"), i18n.cache_key("zh-TW")
    assert en != zh
    assert i18n.cache_key("zh-TW", catalog=b"another catalog") != zh
    assert i18n.cache_key("en", version="0.0.0-other") != en
