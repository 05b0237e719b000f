"""A thread pool over many workloads gives the same results as a serial loop (the GIL is released
around each evaluation; the speed-up is measured by scripts/python_bench.py, not here)."""
import concurrent.futures
import itertools

import gpuplan

WORKLOADS = [dict(model=m, system=s, isl=isl, osl=osl)
             for m, s, isl, osl in itertools.product(["llama3.1-8b", "llama3.1-70b"], ["hgx-h100", "hgx-h200", "b200"],
                                                     [1024, 8192], [256, 1024])]


def test_a_thread_pool_equals_the_serial_loop():
    serial = [gpuplan.infer(**w) for w in WORKLOADS]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(lambda w: gpuplan.infer(**w), WORKLOADS * 3))
    assert parallel == serial * 3


def test_one_session_shared_by_threads_with_errors_among_results():
    session = gpuplan.Session()
    work = WORKLOADS[:6] + [dict(WORKLOADS[0], isl=-1)] * 3

    def one(workload):
        try:
            return session.infer(**workload)
        except gpuplan.InputError as error:
            return error.field

    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(one, work * 4))
    assert results == [one(w) for w in work] * 4
