"""examples/python/*.py run as tests: each exits 0 and writes what it says into a temporary folder."""
import glob
import os
import subprocess
import sys

import pytest

from conftest import ROOT

EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "python", "*.py")))


def test_there_are_examples():
    assert len(EXAMPLES) >= 2


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_example_runs(path, tmp_path):
    env = dict(os.environ, MPLBACKEND="Agg")
    result = subprocess.run([sys.executable, path, str(tmp_path)], capture_output=True, text=True, env=env,
                            timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip(), "an example prints what it found"
    outputs = list(tmp_path.iterdir())
    for png in (p for p in outputs if p.suffix == ".png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
