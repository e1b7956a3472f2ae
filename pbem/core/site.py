"""The static history site of a campaign, ``DIR/site/``, that a club can publish as it is.

``site/index.html`` (and ``index.zh-TW.html``) lists every phase with its public report and map;
each phase's public files are hard-linked (copied where links are impossible) under
``site/<phase_key>/``, so the site takes no disk for them, and so is what they use from the
folder above them: the parts every phase's map shows (``map-ground.<hash>.svg``,
``map-names.<hash>.svg``) and the style sheet and script the pages link (``report.<hash>.css``,
``report.<hash>.js``). Once the game has ended (an ``end`` record revealed the seed) the index
also shows the seed, the final audit result, and ``site/secrets.html`` opens every commitment
of every phase. Before the end nothing secret is written: the site is built from the public
files and the records' public fields only.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from pbem.core.atomic import link_or_copy, write_if_changed
from pbem.core.campaign import Campaign, derive_keys
from pbem.core.publish import publish_phase, report_key
from pbem.core.seal import derive_salt, opens
from pbem.errors import PbemError
from pbem.render import i18n, report
from pbem.render.reportpage import glossary, linked_assets, names_dir

# what every phase's reports share, stored once beside the phase folders (pbem.core.publish):
# the parts of a map every phase shows, and the reports' style sheet
SHARED = ("map-*.svg", "report.*.css", "report.*.js")
PUBLIC_FILES = ("public.html", "public.txt", "public.zh-TW.html", "public.zh-TW.txt", "map.svg", "map.zh-TW.svg")


def build_site(camp: Campaign) -> list[Path]:
    """Write ``DIR/site/``; render any missing report first. Returns the files written."""
    site = camp.root / "site"
    written: list[Path] = []
    phases: list[dict[str, Any]] = []
    for rec in camp.effective_records():
        if rec["kind"] not in ("create", "phase"):
            continue
        key = report_key(rec)
        folder = camp.reports_dir / key
        if not (folder / "public.html").is_file():
            publish_phase(camp, rec["index"])
        for name in PUBLIC_FILES:
            if (folder / name).is_file():
                link_or_copy(folder / name, site / key / name)
                written.append(site / key / name)
        phases.append({
            "key": key, "number": rec.get("phase_number", 0), "id": rec.get("phase"), "kind": rec["kind"],
            "resolved_at": rec.get("resolved_at") or rec.get("opened_at"),
            "map": (folder / "map.svg").is_file(),
            "summary": _summary(camp, rec),
        })
    for part in sorted(p for pattern in SHARED for p in camp.reports_dir.glob(pattern)):  # what the public files use from ../
        link_or_copy(part, site / part.name)
        written.append(site / part.name)
    end = _end(camp)
    written += _phase_pages(camp, site, phases)
    for lang in i18n.LOCALES:
        ctx = report.site_index_context(camp.id, str(camp.create_record()["game"]), phases, end)
        ctx["create"] = _create_summary(camp)
        ctx["glossary"], ctx["names_dir"] = glossary(ctx["game"], lang), names_dir(ctx["game"])
        suffix = "" if lang == "en" else f".{lang}"
        html = _styled(site, i18n.render(lang, "base/site_index.html", ctx), "")
        write_if_changed(site / f"index{suffix}.html", html.encode("utf-8"))
        written.append(site / f"index{suffix}.html")
        if end is not None:
            html = _styled(site, i18n.render(lang, "base/site_secrets.html", dict(ctx, openings=end["openings"])), "")
            write_if_changed(site / f"secrets{suffix}.html", html.encode("utf-8"))
            written.append(site / f"secrets{suffix}.html")
    _prune(site, {p["key"] for p in phases})
    return written


def _summary(camp: Campaign, rec: dict[str, Any]) -> dict[str, Any]:
    """The public summary of a phase record (:func:`pbem.render.report.phase_summary`)."""
    import json

    game = camp.game()
    events_path = camp.states_dir / f"{rec['index']:06d}.events.json"
    events = json.loads(events_path.read_bytes()) if rec["kind"] == "phase" and events_path.is_file() else []
    view = game.view(camp.read_state(rec.get("state_of", rec["index"])), report.PUBLIC)
    return report.phase_summary(str(camp.create_record()["game"]), report.visible_events(events, report.PUBLIC), view)


def _phase_pages(camp: Campaign, site: Path, phases: list[dict[str, Any]]) -> list[Path]:
    """Each phase's own page, ``site/<key>/index.html`` (and ``index.zh-TW.html``): its summary,
    links to the previous and next phase, the index, the map and the full report."""
    written = []
    game = str(camp.create_record()["game"])
    for i, p in enumerate(phases):
        for lang in i18n.LOCALES:
            ctx = {"campaign": camp.id, "game": game, "phase": p,
                   "previous": phases[i - 1] if i > 0 else None,
                   "next": phases[i + 1] if i + 1 < len(phases) else None,
                   "glossary": glossary(game, lang), "names_dir": names_dir(game)}
            suffix = "" if lang == "en" else f".{lang}"
            html = _styled(site, i18n.render(lang, "base/site_phase.html", ctx), "../")
            write_if_changed(site / p["key"] / f"index{suffix}.html", html.encode("utf-8"))
            written.append(site / p["key"] / f"index{suffix}.html")
    return written


def _create_summary(camp: Campaign) -> dict[str, Any]:
    create = camp.create_record()
    return {
        "scenario": create["scenario"],
        "seats": sorted(create["roster"]),
        "opened_at": create["opened_at"],
        "public_anchor": create["public_anchor"],
        "secret_commitment": create["secret_commitment"],
        "nonce": create.get("nonce"),
    }


def _end(camp: Campaign) -> dict[str, Any] | None:
    """The end of the game: result, seed, audit verdict and every commitment opened."""
    ends = [r for r in camp.effective_records() if r["kind"] == "end"]
    if not ends:
        return None
    from pbem.core.audit import audit

    try:
        audit_lines = audit(camp).lines()
        audit_ok = True
    except PbemError as exc:
        audit_lines, audit_ok = [str(exc)], False
    seed = bytes.fromhex(ends[-1]["seed"])
    secret_key = derive_keys(seed)["secret"]
    game = camp.game()
    openings = []
    for rec in camp.effective_records():
        if rec["kind"] != "phase":
            continue
        state = camp.read_state(rec.get("state_of", rec["index"]))
        values = {s.label: s.value for s in game.secrets(state)}
        for label, commitment in sorted(rec.get("commitments", {}).items()):
            salt = derive_salt(secret_key, f"{rec['phase_number']}|{label}")
            o: dict[str, Any] = dict(report.opening(label, commitment, values.get(label), salt))
            o["phase"] = rec["phase"]
            o["number"] = rec["phase_number"]
            o["ok"] = label in values and opens(commitment, label, values[label], salt)
            openings.append(o)
    return {
        "result": ends[-1].get("result") or {},
        "seed": ends[-1]["seed"],
        "audit_ok": audit_ok,
        "audit": audit_lines,
        "openings": openings,
        "opened": sum(1 for o in openings if o["ok"]),
    }


def _styled(site: Path, html: str, up: str) -> str:
    """A site page linking the style sheet (and scripts) every page shares, ``site/report.<hash>.css``
    (``up`` leads there), written once."""
    page, files = linked_assets(html, up)
    for name, text in files.items():
        write_if_changed(site / name, text.encode("utf-8"))
    return page


def _prune(site: Path, keys: set[str]) -> None:
    """Drop the folders of phases no longer in force (a rollback superseded them)."""
    if not site.is_dir():
        return
    for child in sorted(site.iterdir()):
        if child.is_dir() and child.name[:4].isdigit() and child.name not in keys:
            shutil.rmtree(child)
