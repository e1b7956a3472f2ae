"""Player commands: ``keygen``, ``sign``, ``verify``."""

from __future__ import annotations

from pathlib import Path

import click

from pbem.cli import main
from pbem.common.safeyaml import load_document
from pbem.core import atomic
from pbem.core.campaign import Campaign
from pbem.core.envelope import format_document, parse_order_document, verify_signature
from pbem.core.keys import generate, load_private_key, load_public_key, write_private_key
from pbem.core.signer import sign_file_data
from pbem.errors import OrderFileError, SignatureError
from pbem.render.i18n import LOCALES

LANGS = list(LOCALES)


@main.command()
@click.argument("name", required=False)
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), help="Folder for NAME.key and NAME.pub (default: here).")
@click.option("--page", type=click.Path(dir_okay=False, path_type=Path), help="Write the offline key page (HTML) to mail to players, instead of keys.")
@click.option("--lang", type=click.Choice(LANGS), help="The key page's language (default: en).")
@click.option("--campaign", "campaign_dir", type=click.Path(file_okay=False, path_type=Path),
              help="With --page: the campaign the page is for (a new player for a seat); the page shows its anchor, commitment and nonce.")
def keygen(name: str | None, out_dir: Path | None, page: Path | None, lang: str | None, campaign_dir: Path | None) -> None:
    """Make a signing key: NAME.key (secret, mode 0600) and NAME.pub (give it to your GM).

    With --page, write instead the offline key page: one HTML file that makes the same two files
    in a browser, for players without pbem. NAME, if given, pre-fills the page's name box.

    \b
    Example:  pbem keygen fritz -o ~/.pbem
              pbem keygen --page keys.html --lang zh-TW
    """
    if page is not None:
        if out_dir is not None:
            raise click.UsageError("--page writes the key page, not keys; give no -o with it")
        from pbem.render.keypage import key_page

        made_for = None
        if campaign_dir is not None:
            from pbem.core.campaign import Campaign

            create = Campaign(campaign_dir).require().create_record()
            made_for = {"id": str(create["campaign"]), "anchor": str(create["public_anchor"]),
                        "commitment": str(create["secret_commitment"]), "nonce": str(create.get("nonce") or "")}
        atomic.write_text(page, key_page(lang or "en", name, made_for))
        click.echo(f"key page: {page}", err=True)
        return
    if lang is not None or campaign_dir is not None:
        raise click.UsageError(f"{'--lang' if lang is not None else '--campaign'} is for the key page; give it with --page")
    if name is None:
        raise click.UsageError("give NAME (or --page FILE to write the key page)")
    out_dir = out_dir or Path(".")
    out_dir.mkdir(parents=True, exist_ok=True)
    key = generate(name)
    write_private_key(key, out_dir / f"{name}.key")
    line = key.public().line()
    atomic.write_text(out_dir / f"{name}.pub", line + "\n")
    click.echo(line)


@main.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--key", "key_path", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Your private key (NAME.key).")
@click.option("-o", "--out", type=click.Path(dir_okay=False, path_type=Path), help="Where to write the signed file (default: print it).")
def sign(file: Path, key_path: Path, out: Path | None) -> None:
    """Sign an order file; fills seq, entropy_reveal and entropy_commit.

    \b
    Example:  pbem sign orders.yaml --key ~/.pbem/fritz.key -o orders.signed.yaml
    """
    key = load_private_key(key_path)
    data = load_document(file.read_bytes(), str(file)).data
    if not isinstance(data, dict):
        raise OrderFileError("an order file must be a YAML mapping", source=str(file))
    data.pop("signature", None)
    text = format_document(sign_file_data(data, key, key_path))
    if out:
        atomic.write_text(out, text)
        click.echo(f"signed: {out}", err=True)
    else:
        click.echo(text, nl=False)


@main.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--pubkey", help="A .pub file or the key text.")
@click.option("--campaign", "campaign_dir", type=click.Path(file_okay=False, path_type=Path), help="Check against this campaign's roster.")
def verify(file: Path, pubkey: str | None, campaign_dir: Path | None) -> None:
    """Check an order file's signature (and, with --campaign, that it is for that campaign).

    \b
    Example:  pbem verify orders.signed.yaml --pubkey fritz.pub
    """
    if (pubkey is None) == (campaign_dir is None):
        raise click.UsageError("give exactly one of --pubkey or --campaign")
    doc = parse_order_document(file.read_bytes(), str(file))
    if campaign_dir is not None:
        camp = Campaign(campaign_dir).require()
        if doc.campaign != camp.id:
            raise SignatureError(f"the file is for campaign '{doc.campaign}', not '{camp.id}'", source=str(file), field="campaign")
        seat = camp.roster().get(doc.player)
        if seat is None:
            raise SignatureError(f"'{doc.player}' is not on the roster of {camp.id}", source=str(file), field="player")
        key = seat.key
    else:
        assert pubkey is not None
        key = load_public_key(pubkey)
    verify_signature(doc, key)
    click.echo(f"good signature: {file}: {doc.player}, {doc.campaign} {doc.phase} seq {doc.seq}, content {doc.body_hash}")


@main.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--key", "key_path", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Your private key (NAME.key).")
@click.option("-o", "--out", type=click.Path(dir_okay=False, path_type=Path), help="Where to write the report (default: print it).")
def decrypt(file: Path, key_path: Path, out: Path | None) -> None:
    """Open an encrypted private report (a .eml or the armoured text).

    \b
    Example:  pbem decrypt private-report.eml --key ~/.pbem/fritz.key -o report.html
    """
    from pbem.core.privacy import unseal

    plain = unseal(file.read_text(encoding="utf-8", errors="replace"), load_private_key(key_path))
    if out:
        atomic.write_bytes(out, plain)
    else:
        click.echo(plain.decode("utf-8", errors="replace"), nl=False)
