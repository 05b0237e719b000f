"""One size case through every face: the CLI's --json, the Python function and the server's JSON API
(what the size page shows) give the same document."""
import json
import re
import subprocess
import urllib.request

import gpuplan
from conftest import BINARY, cli_json, require

CASE = {"model": "llama3.1-8b", "requests_per_s": 5, "isl": 1024, "osl": 256, "isl_max": 2048,
        "systems": ["hgx-h100", "hgx-h200"], "draws": 50, "tokens_per_user_per_s": 20, "sensitivity": True}
ARGS = ("size --model llama3.1-8b --requests-per-s 5 --isl 1024 --osl 256 --isl-max 2048 --systems hgx-h100 "
        "--systems hgx-h200 --draws 50 --tokens-per-user-per-s 20 --sensitivity")
QUERY = ("model=llama3.1-8b&requests-per-s=5&isl=1024&osl=256&isl-max=2048&systems=hgx-h100&systems=hgx-h200&draws=50"
         "&tokens-per-user-per-s=20&sensitivity=")


def test_cli_python_and_server_agree_on_one_size_case():
    require("size")
    document, code = cli_json(ARGS)
    assert code == 0, document
    assert gpuplan.size(**CASE) == document
    server = subprocess.Popen([BINARY, "serve", "--port", "0", "--threads", "2"], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    try:
        address = None
        for _ in range(20):
            line = server.stdout.readline()
            found = re.search(r"http://[0-9.]+:[0-9]+", line)
            if found:
                address = found.group(0)
                break
        assert address, "the server printed no address"
        with urllib.request.urlopen(address + "/api/v1/size?" + QUERY, timeout=120) as reply:
            assert json.loads(reply.read()) == document
        with urllib.request.urlopen(address + "/size", timeout=30) as page:
            assert "/assets/size.js" in page.read().decode()
    finally:
        server.terminate()
        server.wait(timeout=30)
