"""A dataset whose text is not UTF-8 (a stray Latin-1 byte): the module answers as the CLI does, with the
byte as U+FFFD in the document, never UnicodeDecodeError."""
import os
import subprocess

import gpuplan
from conftest import BINARY, DATASET


def test_a_non_utf8_byte_in_a_dataset_is_replaced_not_an_error(tmp_path):
    with open(DATASET, "rb") as f:
        lines = f.read().split(b"\n")
    # The source_id of the first row gains a Latin-1 byte (as a spreadsheet exported in Latin-1 writes it).
    lines[1] = lines[1].replace(b"NEMO-24.07", b"NEMO-24.07-caf\xe9", 1)
    path = os.path.join(tmp_path, "latin1.csv")
    with open(path, "wb") as f:
        f.write(b"\n".join(lines))
    cli = subprocess.run([BINARY, "validate", "--dataset", path, "--json"], capture_output=True)
    assert cli.returncode == 0, cli.stderr
    doc = gpuplan.validate(dataset=path)
    assert any("caf\ufffd" in str(row) for row in doc["rows"]), doc["rows"][0]
