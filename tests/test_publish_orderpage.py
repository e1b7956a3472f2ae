"""Publishing gives each seat that owes orders its offline order page, attached to its mail (reports/
keeps no second copy); a seat whose private part is encrypted gets it with its data sealed."""

from __future__ import annotations

import email
import email.policy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import NOW, mailed_order_page, make_keys, player_args, run_cli

from pbem.core.campaign import Campaign
from pbem.render.orderpage import unpack


def _campaign(tmp_path: Path, *extra: str) -> Path:
    keys = make_keys(tmp_path / "keys", ("maria_theresa", "louis", "frederick"))
    camp = tmp_path / "m"
    run_cli("new", str(camp), "--deal-now", "--game", "maria", "--scenario", "intro", "--id", "m-1", "--outage-share", "0",
            *player_args(keys), *extra, "--now", NOW)
    run_cli("resolve", str(camp), "--force", "--now", NOW)  # set-up with default splits; AU's hussars next
    return camp


def _attachments(mail: Path) -> dict[str, str]:
    msg = email.message_from_bytes(mail.read_bytes(), policy=email.policy.default)
    return {part.get_filename(): part.get_content_type() for part in msg.walk() if part.get_filename()}


def test_the_seat_that_owes_orders_gets_its_page(tmp_path: Path) -> None:
    camp = _campaign(tmp_path)
    folder = next(camp.glob("reports/0001-*"))
    assert (folder / "private" / "maria_theresa.html").is_file()
    assert not list(folder.glob("private/*.orders.html")), "the mail carries the page: reports/ keeps no second copy"
    assert mailed_order_page(camp, folder.name, "louis") is None, "louis sends nothing in the hussar round"
    stored = mailed_order_page(camp, folder.name, "maria_theresa")
    assert stored is not None
    page = stored.read_text()
    assert "1741-1/hussars" in page and "<script" in page and "http://" not in page.replace("http://www.w3.org", "")
    mails = sorted(camp.glob(f"outbox/report-{folder.name}-maria_theresa.eml"))
    assert len(mails) == 1
    files = _attachments(mails[0])
    assert files[f"orders-{folder.name}-maria_theresa.html"] == "text/html"


@pytest.mark.parametrize("flag", ["--encrypt-private"])
def test_the_page_is_sealed_when_the_private_part_is(tmp_path: Path, flag: str) -> None:
    camp = _campaign(tmp_path, flag)
    folder = next(camp.glob("reports/0001-*"))
    mail = next(camp.glob(f"outbox/report-{folder.name}-maria_theresa.eml"))
    files = _attachments(mail)
    assert files["private-maria_theresa.html"] == "text/html"  # the sealed report's page
    page = f"orders-{folder.name}-maria_theresa.html"
    assert sorted(name for name in files if name.endswith(".html")) == [page, "private-maria_theresa.html"]
    msg = email.message_from_bytes(mail.read_bytes(), policy=email.policy.default)
    html = next(p for p in msg.walk() if p.get_filename() == page).get_content()
    assert 'id="pbem-pack"' not in html and "BEGIN PBEM SEALED REPORT" in html, "the page's data is sealed, not in clear"


def _page_data(page: Path) -> dict[str, Any]:
    html = page.read_text(encoding="utf-8")
    start = html.index('<script type="text/plain" id="pbem-pack">') + len('<script type="text/plain" id="pbem-pack">')
    return json.loads(unpack(html[start:html.index("</script>", start)]))  # type: ignore[no-any-return]


@pytest.mark.parametrize("mode,kinds", [("trusted_gm", ["politics"]), ("trustless", ["commit", "politics"])])
def test_political_rounds_get_pages_with_only_the_seats_own_choices(tmp_path: Path, mode: str, kinds: list[str]) -> None:
    """The advanced game's political rounds (M9, M11.4) have order pages for every seat that
    bids; each embeds the legal choices, hand and commitment of the seat's own powers only."""
    keys = make_keys(tmp_path / "keys", ("maria_theresa", "louis", "frederick"))
    camp = tmp_path / "m"
    run_cli("new", str(camp), "--deal-now", "--game", "maria", "--scenario", "advanced", "--id", "m-2", "--outage-share", "0",
            "--option", f"pbem.commitments={mode}", "--lang", "louis=zh-TW", *player_args(keys), "--now", NOW)
    for kind in kinds:
        run_cli("resolve", str(camp), "--force", "--now", NOW)  # the set-up (trustless: then the commit round)
        folder = sorted(camp.glob("reports/0*"))[-1]
        c = Campaign(camp)
        _, state = c.current()
        phase = c.game().current_phase(state)
        assert phase is not None and phase.kind == kind
        for seat in keys:
            page = mailed_order_page(camp, folder.name, seat)
            assert page is not None and page.stat().st_size < 300 * 1024, seat
            data = _page_data(page)
            own = sorted(p for p in phase.powers if c.game().seat_of(state, p) == seat)
            assert data["kind"] == kind and sorted(data["legal"]) == own and sorted(data["own"]) == own
            assert set(data["commitments"]) <= set(own) and set(data["reentry_sites"]) <= set(own)
            for p in own:
                assert data["legal"][p]["hand"] == state["cards"]["hands"][p]
                assert data["legal"][p]["trustless"] is (mode == "trustless")
            mail = next(camp.glob(f"outbox/report-{folder.name}-{seat}.eml"))
            assert _attachments(mail)[f"orders-{folder.name}-{seat}.html"] == "text/html"


def test_the_page_shows_the_deadline_in_the_seats_time_zone_with_utc_beside_it(tmp_path: Path) -> None:
    camp = _campaign(tmp_path, "--tz", "maria_theresa=Asia/Taipei")
    folder = next(camp.glob("reports/0001-*"))
    page = mailed_order_page(camp, folder.name, "maria_theresa")
    assert page is not None
    deadline = _page_data(page)["deadline"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d Asia/Taipei \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)", deadline), deadline


def test_publishing_freezes_what_lived_before_and_leaves_the_collector_as_it_found_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While a phase is published, what was alive before it is frozen out of the cycle
    collector (each collection then walks only the phase's own objects) and the youngest
    generation waits for more new objects; after, nothing stays frozen and the thresholds are
    the caller's again, and a caller's own freeze is left as it was."""
    import gc

    from pbem.core import publish

    camp = Campaign(_campaign(tmp_path))
    record = camp.effective_records()[-1]["index"]
    seen: list[tuple[int, int]] = []

    def note(phase: str, _info: dict[str, Any]) -> None:
        if phase == "start":
            seen.append((gc.get_freeze_count(), gc.get_threshold()[0]))

    assert gc.isenabled() and gc.get_freeze_count() == 0
    thresholds = gc.get_threshold()
    monkeypatch.setattr(publish, "YOUNG_OBJECTS", 50)  # collections often, whatever the caches spare the phase
    gc.callbacks.append(note)
    try:
        publish.publish_phase(camp, record)
    finally:
        gc.callbacks.remove(note)
    assert seen, "publishing a phase makes enough objects for the collector to run"
    assert all(frozen > 0 and young == 50 for frozen, young in seen), "every collection left the older objects alone"
    assert gc.isenabled() and gc.get_freeze_count() == 0 and gc.get_threshold() == thresholds
    gc.freeze()  # a caller's own freeze stays (what publishing freed of it aside)
    try:
        publish.publish_phase(camp, record)
        assert gc.get_freeze_count() > 0 and gc.get_threshold() == thresholds
    finally:
        gc.unfreeze()
