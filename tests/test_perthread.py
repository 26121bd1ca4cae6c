"""PerThread: a resource per thread, released some time after the thread ends, at a cost per new thread that does not
grow with the number of threads alive (a fetch run keeps about 400 alive and starts 200 a batch)."""

from __future__ import annotations

import threading

from pubfetch.perthread import _MIN_SWEEP_INTERVAL, PerThread


class CountingThread(threading.Thread):
    """A thread that counts how often anyone asks whether it is alive."""

    checks = 0

    def is_alive(self) -> bool:
        CountingThread.checks += 1
        return super().is_alive()


def run_in_thread(work) -> None:
    thread = CountingThread(target=work)
    thread.start()
    thread.join()


def test_each_thread_gets_its_own_resource_and_keeps_it() -> None:
    made: list[int] = []
    resources = PerThread(lambda: made.append(len(made)) or len(made) - 1)
    seen: list[tuple[int, int]] = []
    run_in_thread(lambda: seen.append((resources.get(), resources.get())))
    run_in_thread(lambda: seen.append((resources.get(), resources.get())))
    assert seen == [(0, 0), (1, 1)]
    assert resources.get() == 2 and resources.get() == 2
    assert made == [0, 1, 2]


def test_ended_threads_resources_are_released_within_a_bounded_number_of_new_threads() -> None:
    released: list[int] = []
    counter = iter(range(10_000))
    resources = PerThread(lambda: next(counter), released.extend)
    for _ in range(100):
        run_in_thread(resources.get)
    # released in rounds, each of every resource of an ended thread, in the order they were made
    assert released == list(range(len(released)))
    assert 100 - _MIN_SWEEP_INTERVAL <= len(released) < 100
    assert len(resources) == 100 - len(released) <= _MIN_SWEEP_INTERVAL


def test_the_cost_of_a_new_thread_does_not_grow_with_the_threads_alive() -> None:
    """400 threads alive, then 600 short ones: looking over every registered thread at each new one made 400 checks a
    thread; the registry is looked over once a quarter of its size has been added, so a few checks a thread."""
    resources = PerThread(object)
    stop = threading.Event()
    ready = threading.Barrier(401)

    def stay() -> None:
        resources.get()
        ready.wait()
        stop.wait()

    alive = [CountingThread(target=stay) for _ in range(400)]
    for thread in alive:
        thread.start()
    ready.wait()
    try:
        CountingThread.checks = 0
        for _ in range(600):
            run_in_thread(resources.get)
        assert CountingThread.checks <= 10 * 600, CountingThread.checks
        assert len(resources) <= 400 + 400 // 4 + 1  # the ended ones wait for at most a quarter of the registry
    finally:
        stop.set()
        for thread in alive:
            thread.join()


def test_drain_takes_every_resource_and_threads_make_new_ones() -> None:
    counter = iter(range(100))
    resources = PerThread(lambda: next(counter))
    first = resources.get()
    run_in_thread(resources.get)
    assert sorted(resources.drain()) == [0, 1]
    assert len(resources) == 0
    assert resources.get() != first
