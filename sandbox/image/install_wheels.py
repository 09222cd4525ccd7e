"""Runs once inside ``docker build``: installs the agent's wheels without pip (the image has none).

    python3 install_wheels.py REQUIREMENTS WHEEL_DIR

Checks every wheel's sha256 against ``REQUIREMENTS`` again (a second lock after ``pip download
--require-hashes`` on the host), unpacks it into the interpreter's first site directory (a wheel
is a zip laid out as that directory), and compiles everything to byte code: the root file system
is read-only when agents run, so nothing could be compiled then. Standard library only.
"""

from __future__ import annotations

import compileall
import hashlib
import site
import sys
import zipfile
from pathlib import Path


def main(requirements: str, wheel_dir: str) -> int:
    hashes = {
        token.split(":", 1)[1]
        for line in Path(requirements).read_text().splitlines()
        for token in line.split()
        if token.startswith("--hash=sha256:")
    }
    target = Path(site.getsitepackages()[0])
    target.mkdir(parents=True, exist_ok=True)
    wheels = sorted(Path(wheel_dir).glob("*.whl"))
    if len(wheels) != len(hashes):
        print(f"expected {len(hashes)} wheels, found {len(wheels)}", file=sys.stderr)
        return 1
    for wheel in wheels:
        digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
        if digest not in hashes:
            print(f"{wheel.name}: sha256 {digest} is not in {requirements}", file=sys.stderr)
            return 1
        with zipfile.ZipFile(wheel) as archive:
            for name in archive.namelist():
                if name.startswith("/") or ".." in Path(name).parts or ".data/" in name:
                    print(f"{wheel.name}: refusing the member {name}", file=sys.stderr)
                    return 1
            archive.extractall(target)
    ok = compileall.compile_dir(str(target), quiet=1, workers=1)
    print(f"installed {len(wheels)} wheels into {target}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
