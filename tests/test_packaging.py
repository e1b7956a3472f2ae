"""An installed wheel, not only a source checkout, finds its seeds, templates and order schemas."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_ships_its_data(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    # Offline: the build backend of the test extra, no build isolation, no package index.
    assert _has_hatchling(), "hatchling is missing: pip install -e '.[test]'"
    offline = {**os.environ, "PIP_NO_INDEX": "1"}
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
         "-w", str(wheels), str(ROOT)],
        check=True, capture_output=True, timeout=300, env=offline,
    )
    wheel = next(wheels.glob("pbem-*.whl"))
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--target", str(target),
                    str(wheel)], check=True, capture_output=True, timeout=300, env=offline)
    probe = (
        "import pbem, pbem.data as d; from pathlib import Path;"
        "print(Path(pbem.__file__).parent);"
        "[print(n, d.data_dir(n), sorted(p.name for p in d.data_dir(n).iterdir())) for n in ('seeds', 'templates', 'orders')]"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(target)
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, check=True, capture_output=True, text=True).stdout
    package_dir = out.splitlines()[0]
    assert package_dir.startswith(str(target)), "the probe must import the installed wheel, not the checkout"
    for name in ("seeds", "templates", "orders"):
        line = next(line for line in out.splitlines() if line.startswith(name + " "))
        assert f"{target}/pbem/_data/{name}" in line
        shipped = sorted(p.name for p in (ROOT / name).iterdir() if p.is_file() or any(f.is_file() for f in p.rglob("*")))
        assert all(repr(n) in line for n in shipped), f"{name}: the wheel lacks some of {shipped}"


def _has_hatchling() -> bool:
    try:
        import hatchling  # noqa: F401
    except ImportError:
        return False
    return True
