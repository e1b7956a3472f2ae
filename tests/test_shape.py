"""Shape first: every order and request file is checked against the JSON Schema of its round
before any game code sees it (orders/envelope.schema.json, orders/<game>/<kind>.schema.json).

One test per way a single signed file used to stall a campaign or slip past the envelope
(security findings H1, H2, H3, L8, the salt and seq notes), each through ``pbem intake`` on a
real Maria campaign, plus the schemas' own checks.
"""

from __future__ import annotations

import email
import email.policy
import json
import shutil
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from conftest import make_keys, player_args, run_cli

from pbem.common.canonical import sha256_hex
from pbem.common.fair import H, Rng
from pbem.core import shape
from pbem.core.campaign import Campaign
from pbem.core.envelope import format_document, sign_data
from pbem.core.keys import generate, load_private_key
from pbem.core.phase import gather
from pbem.demo import bot_orders_by_seat
from pbem.games import get_game
from pbem.games.base import Phase

NOW = "2027-01-04T12:00:00Z"
SEATS = ("maria_theresa", "louis", "frederick")
COMMIT = "ab" * 32


def _new(folder: Path, keys: dict[str, Path], scenario: str = "intro", *options: str) -> Path:
    camp = folder / "campaign"
    opts = [a for o in options for a in ("--option", o)]
    run_cli("new", str(camp), "--deal-now", "--game", "maria", "--scenario", scenario, "--id", "maria-a", "--outage-share", "0",
            "--now", "2027-01-04T08:00:00Z", "--lang", "frederick=zh-TW", *opts, *player_args(keys))
    return camp


def _advance(camp: Path, keys: dict[str, Path], until: str) -> None:
    """Play bot orders, signed and taken in as players do, until the phase id ends with ``until``."""
    for _ in range(12):
        c = Campaign(camp)
        game, (_, state) = c.game(), c.current()
        phase = game.current_phase(state)
        assert phase is not None
        if phase.id.endswith(until):
            return
        files = []
        for seat, orders in sorted(bot_orders_by_seat(game, state, phase, Rng(H(phase.id.encode()))).items()):
            data = {"pbem": 1, "campaign": "maria-a", "player": seat, "phase": phase.id, "seq": 1,
                    "entropy_commit": COMMIT, "orders": orders}
            files.append(_write(camp.parent, keys, data, f"{seat}-{phase.id.replace('/', '_')}"))
        if files:
            run_cli("intake", str(camp), *map(str, files), "--now", NOW)
        run_cli("resolve", str(camp), "--force", "--now", NOW)
    raise AssertionError(f"never reached {until}")


def _write(folder: Path, keys: dict[str, Path], data: dict[str, Any], name: str) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(format_document(sign_data(data, load_private_key(keys[data["player"]]))))
    return path


@pytest.fixture(scope="module")
def prussia(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path]]:
    """An intro campaign waiting for Prussia's first stage (1741-1/prussia)."""
    root = tmp_path_factory.mktemp("prussia")
    keys = make_keys(root / "keys", SEATS)
    camp = _new(root, keys)
    _advance(camp, keys, "prussia")
    return camp, keys


@pytest.fixture
def camp(prussia: tuple[Path, dict[str, Path]], tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    shutil.copytree(prussia[0], tmp_path / "campaign")
    return tmp_path / "campaign", prussia[1]


def _intake(camp: Path, keys: dict[str, Path], seat: str = "frederick", orders: Any = None, **fields: Any) -> str:
    phase = Campaign(camp).game().current_phase(Campaign(camp).current()[1])
    data = {"pbem": 1, "campaign": "maria-a", "player": seat, "phase": phase.id, "seq": 1,
            "entropy_commit": COMMIT, "orders": orders if orders is not None else {"PR": {}}}
    data.update(fields)
    path = _write(camp.parent, keys, {k: v for k, v in data.items() if v is not None}, "o")
    result = run_cli("intake", str(camp), str(path), "--now", NOW)
    assert "Traceback" not in result.output
    return result.stdout


def _resolves(camp: Path) -> None:
    out = run_cli("resolve", str(camp), "--force", "--now", NOW).output
    assert "resolved 1741-1/prussia" in out, out
    assert "audit passed" in run_cli("audit", str(camp)).output


def test_h1_odd_entropy_reveal_is_refused(camp: tuple[Path, dict[str, Path]]) -> None:
    path, keys = camp
    out = _intake(path, keys, entropy_reveal="a" * 33)
    assert out.startswith("refused: o.yaml, line ") and "entropy_reveal: " in out, out
    out = _intake(path, keys, entropy_reveal="g" * 64)
    assert out.startswith("refused:") and "entropy_reveal" in out, out
    _resolves(path)


def test_h1_a_stored_reveal_that_is_not_hex_counts_as_wrong() -> None:
    """An archive from before the envelope was strict may hold such a file: it still resolves,
    with the seat's committed value used as for any withheld reveal (its orders do not count)."""
    data = {"pbem": 1, "campaign": "c", "player": "frederick", "phase": "p", "seq": 1,
            "entropy_reveal": "a" * 33, "entropy_commit": COMMIT, "orders": {}}
    raw = format_document(sign_data(data, generate("fritz"))).encode()
    committed = sha256_hex(b"x")
    inputs = gather(get_game("maria"), {}, Phase("p", "stage", ()), {"frederick": (raw, "f.yaml")},
                    {"frederick": committed})
    assert inputs.entropy["frederick"] == {"reveal": "a" * 33, "used": committed, "status": "withheld"}


@pytest.mark.parametrize(("orders", "field"), [
    ({"PR": {"moves": [{"piece": ["dessauer"], "path": ["birnbaum"]}]}}, "orders.PR.moves[0].piece"),
    ({"PR": {"moves": [{"piece": {"a": 1}, "path": ["birnbaum"]}]}}, "orders.PR.moves[0].piece"),
    ({"PR": {"moves": [{"piece": "dessauer", "path": [["birnbaum"]]}]}}, "orders.PR.moves[0].path[0]"),
    ({"PR": {"standing": {"loss_order": [{"x": 1}]}}}, "orders.PR.standing.loss_order[0]"),
])
def test_h2_a_list_or_mapping_in_a_name_position_is_refused_with_its_path(
        camp: tuple[Path, dict[str, Path]], orders: dict[str, Any], field: str) -> None:
    path, keys = camp
    out = _intake(path, keys, orders=orders)
    assert out.startswith("refused: o.yaml, line ") and f": {field}: must be a name or text, not " in out, out
    assert not list((path / "orders").glob("*prussia/frederick.*"))
    _resolves(path)


@pytest.mark.parametrize("orders", [
    {"PR": {"recruits": [{"general": [], "troops": 1}]}},
    {"PR": {"returns": [{"general": [], "site": "breslau", "troops": 1}]}},
    {"PR": {"returns": [{"general": "schwerin", "site": {"x": 1}, "troops": 1}]}},
])
def test_h2_winter_names_are_checked_by_shape_and_rules_do_not_raise(orders: dict[str, Any]) -> None:
    assert shape.problem("maria", "winter", orders, "orders") is not None
    from pbem.games.maria import adjudicate
    from pbem.games.maria import orders as maria_orders

    state = adjudicate.new_game("intro", {}, _rng("w"))
    state["step"] = "winter"
    assert maria_orders.validate(state, "PR", orders["PR"])  # problems, not an exception


def _rng(label: str) -> Any:
    from pbem.common.fair import PhaseRng

    return PhaseRng(Rng(f"{label}-p".encode()), Rng(f"{label}-s".encode()))


def test_h3_a_mapping_in_a_stack_is_refused_and_never_reaches_resolve(camp: tuple[Path, dict[str, Path]]) -> None:
    path, keys = camp
    out = _intake(path, keys, orders={"PR": {"moves": [{"stack": [{"a": 1}, "schwerin"], "path": ["breslau"]}]}})
    assert out.startswith("refused:") and "orders.PR.moves[0].stack[0]: must be a name or text, not a mapping" in out, out
    _resolves(path)


def test_h3_the_rules_void_a_stack_naming_a_mapping() -> None:
    from pbem.games.maria import adjudicate

    state = adjudicate.new_game("intro", {}, _rng("g"))
    for i in range(3):
        state = adjudicate.resolve(state, {}, _rng(str(i))).state
    phase = adjudicate.current_phase(state)
    assert phase is not None
    power = phase.powers[0]
    general = next(g for g, v in state["generals"].items() if v["power"] == power and v["city"])
    orders = {"moves": [{"stack": [{"a": 1}, general], "path": [state["generals"][general]["city"]]}]}
    adjudicate.resolve(state, {power: orders}, _rng("x"))  # no exception


@pytest.mark.parametrize("version", [True, 1.0, "1"])
def test_l8_the_format_version_is_the_integer_1(camp: tuple[Path, dict[str, Path]], version: Any) -> None:
    path, keys = camp
    out = _intake(path, keys, pbem=version)
    assert out.startswith("refused:") and "unsupported format version" in out, out


def test_seq_has_a_bound_far_below_the_loader_limit(camp: tuple[Path, dict[str, Path]]) -> None:
    path, keys = camp
    out = _intake(path, keys, seq=2**63 - 1)
    assert out.startswith("refused:") and "seq: must be at most 999999" in out, out
    assert _intake(path, keys, seq=999_998).startswith("accepted:")
    assert _intake(path, keys, seq=999_999).startswith("accepted:")  # a correction still fits


def test_a_sealed_bid_needs_a_salt_of_at_least_32_hex_digits(tmp_path: Path) -> None:
    """Trustless bids (M11.4): the commitment is public from the commit round, and a bid map
    has only a few thousand values, so the salt alone keeps it secret. 32 hex digits (128 bits,
    what the order page draws) put a search of the commitment out of reach."""
    keys = make_keys(tmp_path / "keys", SEATS)
    camp = _new(tmp_path, keys, "advanced", "pbem.commitments=trustless")
    for _ in range(2):
        run_cli("resolve", str(camp), "--force", "--now", NOW)
    politics = {"PR": {"bid": {"S": "pass", "H": "pass", "D": "pass", "C": "pass"}, "salt": "abc123"}}
    out = _intake(camp, keys, orders=politics)
    assert out.startswith("refused:") and "orders.PR.salt: 'abc123' is not of the right form" in out, out
    assert "32 to 128 lowercase hex digits" in out
    politics["PR"]["salt"] = "0123456789abcdef" * 2
    assert _intake(camp, keys, orders=politics).startswith("accepted:")


def test_a_zh_tw_player_gets_the_refusal_in_chinese(camp: tuple[Path, dict[str, Path]]) -> None:
    path, keys = camp
    data = {"pbem": 1, "campaign": "maria-a", "player": "frederick", "phase": "1741-1/prussia", "seq": 1,
            "entropy_commit": COMMIT, "orders": {"PR": {"moves": [{"piece": ["dessauer"], "path": ["birnbaum"]}]}}}
    signed = _write(path.parent, keys, data, "o")
    m = EmailMessage(policy=email.policy.SMTP)
    m["From"], m["To"], m["Subject"], m["Message-ID"] = "frederick@example.org", "gm@example.org", "o", "<m0@example.org>"
    m.set_content("orders")
    m.add_attachment(signed.read_bytes(), maintype="text", subtype="yaml", filename="o.yaml")
    (path.parent / "o.eml").write_bytes(m.as_bytes())
    out = run_cli("intake", str(path), str(path.parent / "o.eml"), "--now", NOW).stdout
    assert "refused:" in out and "orders.PR.moves[0].piece: must be a name or text, not a list" in out, out
    (mail,) = list((path / "outbox").glob("refused-*.eml"))
    body = email.message_from_bytes(mail.read_bytes(), policy=email.policy.default).get_body()
    assert body is not None
    text = body.get_content()
    assert "orders.PR.moves[0].piece" in text and "必須是文字，不是清單" in text, text


def test_every_round_kind_of_both_games_has_a_strict_schema() -> None:
    kinds = {"maria": ("setup", "commit", "politics", "hussars", "stage", "winter"),
             "ror": ("senate", "revolution", "declare", "revolution-2", "endgame")}
    for game, names in kinds.items():
        for kind in names:
            v = shape.validator(game, kind)
            assert v is not None, (game, kind)
            v.check_schema(v.schema)
            text = json.dumps(v.schema)
            assert '"type": "string"' not in text.replace('"type": "string", "pattern"', "") or "maxLength" in text
    assert shape.validator("", "envelope") is not None


def test_a_file_without_a_schema_for_its_kind_is_not_refused_by_shape() -> None:
    assert shape.problem("mini", "bid", {"N": {"x": [1]}}) is None


def test_pbem_check_checks_the_shape_first(camp: tuple[Path, dict[str, Path]]) -> None:
    path, keys = camp
    data = {"pbem": 1, "campaign": "maria-a", "player": "frederick", "phase": "1741-1/prussia", "seq": 1,
            "orders": {"PR": {"moves": [{"piece": "dessauer", "path": "birnbaum"}]}}}
    (path.parent / "c.yaml").write_text(format_document(data))
    result = run_cli("check", str(path.parent / "c.yaml"), "--campaign", str(path), ok=False)
    assert result.exit_code == 1 and "orders.PR.moves[0].path: must be a list, not a name or text" in result.output, result.output
    assert "orders.PR.moves[0].path: must list the cities entered, in order" in result.output  # and the rules' word
