"""The case runner itself: a broken case file gets a clear error naming the file and the entry."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from pbem.cli import main

CASE = """\
game: maria
cases:
  - id: fine
    rules: [M5.3]
    map:
      cities: {a: {suit: S}, b: {suit: S}}
      roads: [[a, b]]
    state:
      generals: {FR1: "FR1 a 5", AU1: "AU1 b 5"}
    expect: {}
  - id: bad-card
    rules: [M5.3]
    map:
      cities: {a: {suit: S}, b: {suit: S}}
      roads: [[a, b]]
    state:
      generals: {FR1: "FR1 a 5", AU1: "AU1 b 5"}
      hands: {FR: [S2.1, Z9.9], AU: [S2.2]}
      FIELD
    orders:
      FR:
        moves: [{piece: FR1, path: [b]}]
    expect: {}
"""


def _run(tmp_path: Path, text: str) -> tuple[int, str, BaseException | None, Path]:
    f = tmp_path / "bad.yaml"
    f.write_text(text, encoding="utf-8")
    res = CliRunner().invoke(main, ["case", "run", str(f)])
    return res.exit_code, res.output, res.exception, f


def test_bad_card_in_a_hand_names_file_case_and_entry(tmp_path: Path) -> None:
    code, out, exc, f = _run(tmp_path, CASE.replace("FIELD", ""))
    assert code == 1, out
    assert isinstance(exc, SystemExit), exc  # a failed case, not a crash with a traceback
    assert "Traceback" not in out
    assert "PASS fine" in out  # the other case still runs
    fail = next(ln for ln in out.splitlines() if ln.startswith("FAIL bad-card"))
    assert str(f) in fail
    assert "state.hands.FR[1]" in fail and "'Z9.9'" in fail
    assert "1 passed, 1 failed" in out


def test_bad_card_in_the_draw_and_discard_piles(tmp_path: Path) -> None:
    for field, entry in (("draw: [S3.1, 7]", "state.draw[1]"), ("discard: [R.5a]", "state.discard[0]")):
        text = CASE.replace("Z9.9", "S4.1").replace("FIELD", field)
        code, out, exc, f = _run(tmp_path, text)
        assert isinstance(exc, SystemExit), exc
        fail = next(ln for ln in out.splitlines() if ln.startswith("FAIL bad-card"))
        assert str(f) in fail and entry in fail, fail
