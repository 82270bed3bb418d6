"""Re-run every query of docs/cookbook.md on the sample tournament and paste the outputs.

Usage: ``python scripts/make_cookbook.py [--check]``.

Records fixtures/tournament/*.jsonl into a fresh store with ``coreflow record`` (as the
cookbook tells a reader to), runs each ```` ```sql ```` block through ``coreflow audit``
and writes what the command printed into the ```` ```text ```` block that follows it
(inserted when missing). ``--check`` changes nothing and exits 1 if an output differs.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COOKBOOK = ROOT / "docs" / "cookbook.md"
TOURNAMENT = ROOT / "fixtures" / "tournament"

BLOCK = re.compile(r"```sql\n(?P<sql>.*?)```\n(?:\n```text\n.*?```\n)?", re.S)


def coreflow(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "coreflow_judge.cli.main", *args], cwd=ROOT,
                          capture_output=True, text=True, check=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    text = COOKBOOK.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        store = str(Path(tmp) / "tournament.db")
        for log in sorted(TOURNAMENT.glob("*.jsonl")):
            done = coreflow("record", str(log), "--store", store)
            if done.returncode != 0:
                raise SystemExit(f"{log}: {done.stderr.strip()}")

        def paste(m: re.Match[str]) -> str:
            sql = m.group("sql")
            done = coreflow("audit", sql.strip(), "--store", store)
            if done.returncode != 0:
                raise SystemExit(f"query failed:\n{sql}\n{done.stderr.strip()}")
            return f"```sql\n{sql}```\n\n```text\n{done.stdout.rstrip()}\n```\n"

        new = BLOCK.sub(paste, text)
    if args.check:
        if new != text:
            raise SystemExit("docs/cookbook.md: an output differs (run scripts/make_cookbook.py)")
        return
    COOKBOOK.write_text(new, encoding="utf-8")
    print(f"{COOKBOOK}: {len(BLOCK.findall(text))} queries run")


if __name__ == "__main__":
    main()
