"""One computation per key at a time (tools.tanka.diff.inflight); the differ's use of it is
tested in test_revision_diff.py."""

from __future__ import annotations

import threading

from tools.tanka.diff.inflight import InFlight

A_WHILE = 1.0  # how long a holder gives a second one to (wrongly) come in beside it


def test_a_second_holder_of_a_key_comes_in_after_the_first_leaves() -> None:
    making = InFlight()
    order: list[str] = []
    inside, second = threading.Event(), threading.Event()

    def later() -> None:
        second.set()
        with making.hold("k"):
            order.append("second in")

    thread = threading.Thread(target=later)
    with making.hold("k"):
        order.append("first in")
        thread.start()
        second.wait(10)
        inside.wait(A_WHILE)  # a second holder coming in now would be seen
        order.append("first out")
    thread.join(10)
    assert order == ["first in", "first out", "second in"]
    with making.hold("k"), making.hold("other"):  # other keys are free meanwhile
        order.append("both")
    assert making._held == {}  # keys done with are forgotten
