"""``pbem send``'s mail settings against a real SMTP server (aiosmtpd on loopback): where the
credentials come from (environment, mail.yaml, never the command line), that a password never
shows or travels unencrypted, STARTTLS and implicit TLS with a named CA, and settings mistakes
all reported at once. Delivery itself is test_send.py's."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from smtpserver import SmtpServer, make_certificate
from test_send import assert_exactly_once, campaign, no_user_config, send, write_config

from pbem.cli import main

__all__ = ["no_user_config"]  # the autouse fixture: no GM's own mail settings in these tests either


def test_credentials_from_environment(tmp_path: Path) -> None:
    root = campaign(tmp_path, 2)
    with SmtpServer(users={"gm": "s3cret"}) as srv:
        refused = send(root, srv)
        assert refused.exit_code == 1 and srv.accepted == []
        assert "530" in refused.stderr  # authentication required
        env = {"PBEM_SMTP_USER": "gm", "PBEM_SMTP_PASSWORD": "s3cret"}
        result = send(root, srv, env=env)
        assert result.exit_code == 0, result.output
        assert {m.user for m in srv.accepted} == {"gm"}
        assert_exactly_once(srv, 2, root)


def test_wrong_password_is_one_clear_line(tmp_path: Path) -> None:
    root = campaign(tmp_path, 1)
    with SmtpServer(users={"gm": "s3cret"}) as srv:
        result = send(root, srv, env={"PBEM_SMTP_USER": "gm", "PBEM_SMTP_PASSWORD": "nope"})
        assert result.exit_code == 1
        assert "refused the login of gm: 535" in result.stderr
        assert "Traceback" not in result.output and "nope" not in result.output


def test_settings_never_show_the_password(tmp_path: Path) -> None:
    from pbem.core.mailconfig import load_mail_config

    config = load_mail_config(tmp_path, {"PBEM_SMTP_USER": "gm", "PBEM_SMTP_PASSWORD": "s3cret",
                                         "XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    assert config.smtp.password == "s3cret" and config.smtp.user == "gm"
    assert "s3cret" not in repr(config) and "***" in repr(config.smtp)


def test_credentials_from_campaign_config_file(tmp_path: Path) -> None:
    root = campaign(tmp_path, 2)
    with SmtpServer(users={"gm": "s3cret"}) as srv:
        write_config(root, 0o600, f"smtp:\n  host: 127.0.0.1\n  port: {srv.port}\n"
                     "  security: none\n  user: gm\n  password: s3cret\n")
        result = CliRunner().invoke(main, ["send", str(root), "--retry-delay", "0"])
        assert result.exit_code == 0, result.output
        assert_exactly_once(srv, 2, root)


def test_user_config_file_in_xdg_config_home(tmp_path: Path) -> None:
    root = campaign(tmp_path, 1)
    with SmtpServer(users={"gm": "s3cret"}) as srv:
        user_file = tmp_path / "xdg" / "pbem" / "mail.yaml"
        user_file.parent.mkdir(parents=True)
        user_file.write_text("smtp:\n  user: gm\n  password: s3cret\n")
        user_file.chmod(0o600)
        write_config(root, 0o644, f"smtp:\n  host: 127.0.0.1\n  port: {srv.port}\n")
        result = CliRunner().invoke(main, ["send", str(root), "--security", "none"])
        assert result.exit_code == 0, result.output
        assert {m.user for m in srv.accepted} == {"gm"}


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_config_file_with_a_password_readable_by_others_is_refused(tmp_path: Path,
                                                                    mode: int) -> None:
    root = campaign(tmp_path, 1)
    with SmtpServer(users={"gm": "s3cret"}) as srv:
        write_config(root, mode, f"smtp:\n  host: 127.0.0.1\n  port: {srv.port}\n"
                     "  security: none\n  user: gm\n  password: s3cret\n")
        result = CliRunner().invoke(main, ["send", str(root)])
        assert result.exit_code == 1
        assert f"mode is {mode:04o}" in result.stderr and "chmod 600" in result.stderr
        assert srv.accepted == []


def test_no_credential_can_be_given_on_the_command_line() -> None:
    from pbem.cli.send import send as command

    names = {opt for param in command.params for opt in getattr(param, "opts", [])}
    assert not {n for n in names if "pass" in n or "user" in n or "auth" in n}
    result = CliRunner().invoke(main, ["send", "x", "--password", "p"])
    assert result.exit_code == 2


def test_password_is_not_sent_in_clear_to_a_remote_host(tmp_path: Path) -> None:
    root = campaign(tmp_path, 1)
    result = CliRunner().invoke(
        main, ["send", str(root), "--smtp", "mail.example.org:25", "--security", "none"],
        env={"PBEM_SMTP_USER": "gm", "PBEM_SMTP_PASSWORD": "s3cret"})
    assert result.exit_code == 1
    assert "refusing to send the SMTP password to mail.example.org unencrypted" in result.stderr


def test_starttls_needs_the_ca_and_then_delivers(tmp_path: Path) -> None:
    root = campaign(tmp_path, 2)
    cert, key = make_certificate(tmp_path)
    env = {"PBEM_SMTP_USER": "gm", "PBEM_SMTP_PASSWORD": "s3cret"}
    with SmtpServer(users={"gm": "s3cret"}, tls=(cert, key)) as srv:
        base = ["send", str(root), "--smtp", srv.address, "--retry-delay", "0"]
        untrusted = CliRunner().invoke(main, base + ["--security", "starttls"], env=env)
        assert untrusted.exit_code == 1
        assert "does not verify" in untrusted.stderr and "--cafile" in untrusted.stderr
        assert srv.accepted == []
        plain = CliRunner().invoke(main, base + ["--security", "none"], env=env)
        assert plain.exit_code == 1 and srv.accepted == []  # the server insists on TLS
        trusted = CliRunner().invoke(
            main, base + ["--security", "starttls", "--cafile", str(cert)], env=env)
        assert trusted.exit_code == 0, trusted.output
        assert_exactly_once(srv, 2, root)


def test_starttls_is_never_skipped_when_the_server_lacks_it(tmp_path: Path) -> None:
    root = campaign(tmp_path, 1)
    with SmtpServer() as srv:
        result = CliRunner().invoke(main, ["send", str(root), "--smtp", srv.address])
        assert result.exit_code == 1
        assert "does not offer STARTTLS; refusing to go on" in result.stderr
        assert srv.accepted == []


def test_every_problem_in_the_mail_settings_is_reported_at_once(tmp_path: Path) -> None:
    root = campaign(tmp_path, 1)
    write_config(root, 0o600, "smtp:\n  port: twenty-five\n  security: tls\n  pasword: x\n"
                 "pop3:\n  host: a\n")
    result = CliRunner().invoke(main, ["send", str(root)])
    assert result.exit_code == 1
    for problem in ("smtp.port: must be a port number", "smtp.security: must be one of",
                    "smtp.pasword: unknown setting", "pop3: unknown section"):
        assert problem in result.stderr


def test_implicit_tls(tmp_path: Path) -> None:
    root = campaign(tmp_path, 1)
    cert, key = make_certificate(tmp_path)
    with SmtpServer(tls=(cert, key), implicit_tls=True) as srv:
        result = CliRunner().invoke(main, ["send", str(root), "--smtp", srv.address,
                                           "--security", "ssl", "--cafile", str(cert)])
        assert result.exit_code == 0, result.output
        assert_exactly_once(srv, 1, root)
