"""End to end: the Maria demo campaign passes `pbem audit`, replaying bit for bit, and a one-byte
change in any kind of archived file makes the audit fail and name that file."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import main


@pytest.fixture(scope="module")
def demo_campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("demo")
    result = CliRunner().invoke(main, ["demo", str(folder / "d"), "-q"])
    assert result.exit_code == 0, result.output
    assert "phases replayed: every state, event and commitment hash matches" in result.output
    return folder / "d" / "campaign"


def test_demo_campaign_replays_bit_for_bit(demo_campaign: Path) -> None:
    result = CliRunner().invoke(main, ["audit", str(demo_campaign)])
    assert result.exit_code == 0, result.output
    assert "audit passed" in result.output
    records = sorted((demo_campaign / "archive").glob("*.json"))
    assert records[-1].read_text().startswith('{"index":') and '"kind":"end"' in records[-1].read_text()
    reports = demo_campaign / "reports"
    assert any(reports.glob("*/public.html")) and any(reports.glob("*/private/*.html"))


def _kinds(camp: Path) -> dict[str, Path]:
    orders = sorted(p for p in (camp / "orders").rglob("*.yaml") if "requests" not in p.parts)
    return {
        "first record": camp / "archive" / "000000.json",
        "middle record": sorted((camp / "archive").glob("*.json"))[len(list((camp / "archive").glob("*.json"))) // 2],
        "order file": orders[len(orders) // 2],
        "verdict": Path(str(orders[len(orders) // 2]) + ".verdict.json"),
        "state": sorted(p for p in (camp / "states").glob("*.json") if "events" not in p.name)[5],
        "events": sorted((camp / "states").glob("*.events.json"))[5],
        "seed": camp / "secret" / "seed",
    }


@pytest.mark.parametrize("kind", ["first record", "middle record", "order file", "verdict", "state", "events", "seed"])
def test_one_byte_changed_anywhere_fails_the_audit_naming_the_file(demo_campaign: Path, tmp_path: Path, kind: str) -> None:
    camp = tmp_path / "c"
    shutil.copytree(demo_campaign, camp)
    target = _kinds(camp)[kind]
    data = bytearray(target.read_bytes())
    i = len(data) // 2
    while not chr(data[i]).isalnum():  # change a letter or digit, so the file stays readable
        i += 1
    data[i] = ord("0") if data[i] != ord("0") else ord("1")
    target.write_bytes(bytes(data))
    result = CliRunner().invoke(main, ["audit", str(camp)])
    assert result.exit_code == 1, f"{kind}: the audit did not notice\n{result.output}"
    assert target.name in result.output, f"{kind}: the audit did not name {target.name}: {result.output}"


def test_demo_writes_the_history_site_with_the_revealed_secrets(demo_campaign: Path) -> None:
    index = demo_campaign / "site" / "index.html"
    assert index.is_file()
    text = index.read_text()
    # the index links each phase's folder (after the two rounds before the deal)
    assert re.search(r'href="\d{4}-1741-1_politics/', text) and "audit" in text.lower()
    seed = (demo_campaign / "secret" / "seed").read_text().strip()
    assert seed in "".join(p.read_text() for p in (demo_campaign / "site").rglob("*.html")), "the end of game reveals the seed"


def test_stored_reports_link_the_phase_map_instead_of_copying_it(demo_campaign: Path) -> None:
    """Each phase stores its map once per language (map.svg); the HTML reports under reports/
    show it through a link, so the drawing is not stored again in every report."""
    import re

    pages = sorted((demo_campaign / "reports").glob("*/public*.html")) + sorted((demo_campaign / "reports").glob("*/private/*[!s].html"))
    pages = [p for p in pages if not p.name.endswith(".orders.html")]
    # only the start and the first round before the deal have no board to draw yet
    no_map = {p.name for p in (demo_campaign / "reports").iterdir() if p.is_dir() and not (p / "map.svg").exists()}
    assert no_map and all("deal_" in f or f.endswith("-start") for f in no_map), no_map
    pages = [p for p in pages if next(q for q in p.parents if q.parent.name == "reports").name not in no_map]
    assert len(pages) > 20
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert "<svg" not in html and "<style>" not in html, page
        (sheet,) = re.findall(r'<link rel="stylesheet" href="([^"]+)">', html)  # one style sheet, stored once
        assert (page.parent / sheet).resolve() == (demo_campaign / "reports" / Path(sheet).name).resolve(), page
        assert (page.parent / sheet).is_file(), page
        linked = re.findall(r'<object data="([^"]+)"', html)
        assert linked, page
        assert all((page.parent / name).is_file() and (page.parent / name).name.startswith("map") for name in linked), page


def test_the_history_site_links_the_public_files_instead_of_copying_them(demo_campaign: Path) -> None:
    import os

    copies = sorted((demo_campaign / "site").glob("*/map.svg")) + sorted((demo_campaign / "site").glob("*/public.html"))
    assert len(copies) > 20
    for copy in copies:
        assert os.path.samefile(copy, demo_campaign / "reports" / copy.parent.name / copy.name), copy
    # the unchanging ground every phase's map.svg shows from ../, one per language, and the style sheet
    grounds = sorted((demo_campaign / "site").glob("map-ground.*.svg"))
    assert len(grounds) == 2
    for shared in [*grounds, *(demo_campaign / "site").glob("map-names.*.svg"), *(demo_campaign / "site").glob("report.*.css")]:
        assert os.path.samefile(shared, demo_campaign / "reports" / shared.name), shared
    for page in (demo_campaign / "site").rglob("index*.html"):
        (sheet,) = re.findall(r'<link rel="stylesheet" href="([^"]+)">', page.read_text(encoding="utf-8"))
        assert (page.parent / sheet).is_file(), page
    for copy in (c for c in copies if c.name == "map.svg"):
        assert re.findall(r'href="\.\./(map-ground[^"]+)"', copy.read_text(encoding="utf-8"))[0] in {g.name for g in grounds}


def test_report_mails_stay_light(demo_campaign: Path) -> None:
    """The advanced demo's report mails: median at most 250 KB, none over 400 KB, and every HTML
    body under 100 KB (Gmail clips a body over 102 KB); bench/reports.py prints these figures."""
    import email
    import email.policy
    import statistics

    mails = [p.read_bytes() for p in sorted(demo_campaign.glob("outbox/report-*.eml"))]
    assert len(mails) >= 100
    sizes = sorted(map(len, mails))
    assert statistics.median(sizes) <= 250_000, f"median report mail {statistics.median(sizes)} bytes"
    assert sizes[-1] <= 400_000, f"largest report mail {sizes[-1]} bytes"
    for raw in mails:
        body = email.message_from_bytes(raw, policy=email.policy.default).get_body(preferencelist=("html",))
        assert body is not None and len(body.get_content().encode("utf-8")) < 100_000


def _disk(folder: Path) -> int:
    """What ``du`` counts: the blocks of every file and folder (a hard-linked file once)."""
    import os

    total, seen = 0, set()
    for path in [folder, *folder.rglob("*")]:
        st = os.lstat(path)
        if (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            total += st.st_blocks * 512
    return total


def test_stored_reports_take_little_disk_per_phase(demo_campaign: Path) -> None:
    """reports/ of the advanced demo: at most 300 KB per phase folder on disk (everything a phase
    stores: the public and private reports in both languages, its maps and forms); a map stores
    only what the phase changes, the unchanging board drawn once per campaign, and the order
    pages are kept in the mails only (bench/gm.py prints the whole campaign's figure)."""
    reports = demo_campaign / "reports"
    phases = [p for p in reports.iterdir() if p.is_dir()]
    assert len(phases) > 50
    schemas = sorted(reports.glob("*/forms/*.schema.json"))
    assert len(schemas) > 20 and len({s.stat().st_ino for s in schemas}) < 10, "one copy of each schema, linked"
    per_phase = _disk(reports) / len(phases)
    assert per_phase <= 300_000, f"{per_phase / 1e3:.0f} KB per phase"


def test_the_secrets_page_prints_each_value_as_the_check_hashes_it(demo_campaign: Path) -> None:
    """site/secrets.html: the value, salt and commitment printed for each secret open it by the
    page's own recipe, SHA-256 of label|value|salt, taking the value's text as it stands in the
    page's source (quotes as they are, not as character references five bytes long)."""
    import hashlib
    import html

    page = (demo_campaign / "site" / "secrets.html").read_text(encoding="utf-8")
    rows = re.findall(r'<code>([^<]+)</code></td><td><span class="ok">.*?<dd class="hash">(.*?)</dd>'
                      r'<dt>[^<]*</dt><dd class="hash">([0-9a-f]+)</dd><dt>[^<]*</dt><dd class="hash">([0-9a-f]+)</dd>', page, re.S)
    assert len(rows) > 500
    for label, value, salt, commitment in rows:
        assert "&#34;" not in value
        assert hashlib.sha256(f"{html.unescape(label)}|{html.unescape(value)}|{salt}".encode()).hexdigest() == commitment, label
