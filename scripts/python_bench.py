#!/usr/bin/env python3
"""Speed of the Python module (timeit): one inference point from Python, split into the Python layer
(keywords -> options, the document -> dicts) and the API call itself (timed in C++); one training step
and one sweep; and a thread pool over many workloads against the serial loop.
    PYTHONPATH=build/python /usr/bin/python3 scripts/python_bench.py [--quick]"""
import concurrent.futures
import itertools
import os
import sys
import time
import timeit

import gpuplan
from gpuplan import _core

quick = "--quick" in sys.argv


def per_call_us(statement, number):
    """Best of 5 repeats, CPU microseconds per call (process CPU time: the build machine is shared, and
    wall time there counts other jobs' time slices)."""
    return min(timeit.Timer(statement, timer=time.process_time).repeat(number=number, repeat=5)) / number * 1e6


point = dict(model="llama3.1-70b", system="hgx-h200", isl=8192, osl=1024)
session = gpuplan.Session()
n = 200 if quick else 2000
options = gpuplan._options(point, ())  # the options the API receives
rows = [
    ("infer point: gpuplan.infer(...)", per_call_us(lambda: gpuplan.infer(**point), n)),
    ("infer point: Session.infer(...)", per_call_us(lambda: session.infer(**point), n)),
    ("infer point: _core.run (no keyword mapping)", per_call_us(lambda: _core.run(session._core, "infer", options), n)),
    ("infer point: api::run in C++ (no Python)",
     min(_core._seconds_per_run(session._core, "infer", options, n) for _ in range(5)) * 1e6),
    ("train step: gpuplan.train(...)", per_call_us(
        lambda: gpuplan.train(model="llama3.1-8b", system="hgx-h100", gpus=8, global_batch=64,
                              plan="tp=1,pp=1,dp=8"), max(n // 10, 20))),
    ("infer sweep: gpuplan.infer(..., sweep=True)", per_call_us(
        lambda: gpuplan.infer(sweep=True, **point), max(n // 100, 5))),
]


def refused_at_parse():
    try:
        _core.run(session._core, "infer", dict(options, isl=0))
    except gpuplan.InputError:
        pass


rows.append(("infer refused (isl=0): parse + InputError raised", per_call_us(refused_at_parse, n)))
for name, us in rows:
    print("{:<48} {:>10.1f} us".format(name, us))
print("split of one point: Python keywords {:.1f} us, dict<->JSON and GIL {:.1f} us, api::run {:.1f} us "
      "(its stages, parse / evaluation / document: build/bench/api_bench)".format(
          rows[1][1] - rows[2][1], rows[2][1] - rows[3][1], rows[3][1]))

# Threads: many workloads, serial against a pool of as many threads as cores.
grid = [dict(model=m, system=s, isl=i, osl=o, sweep=True)
        for m, s, i, o in itertools.product(["llama3.1-8b", "llama3.1-70b"], ["hgx-h100", "hgx-h200", "b200", "gb200-nvl72"],
                                            [1024, 8192], [256, 1024])]
grid = grid[:8] if quick else grid
workers = os.cpu_count() or 2
serial_s = min(timeit.repeat(lambda: [gpuplan.infer(**w) for w in grid], number=1, repeat=3))
with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
    parallel_s = min(timeit.repeat(lambda: list(pool.map(lambda w: gpuplan.infer(**w), grid)), number=1, repeat=3))
print("{} sweeps: serial {:.3f} s, {} threads {:.3f} s: {:.2f}x (load average {:.1f} on {} cores)".format(
    len(grid), serial_s, workers, parallel_s, serial_s / parallel_s, os.getloadavg()[0], workers))
