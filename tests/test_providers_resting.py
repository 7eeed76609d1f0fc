"""Resting a provider that fails repeatedly: after a run of failures, for a while that
doubles while it keeps failing, for the run when it refuses the credentials, and woken
when a pass finds every provider resting."""

from __future__ import annotations

from pipelines.nntp.pool import ConnectionPool
from pipelines.nntp.provider import Provider
from pipelines.providers.failover import BodyPools
from pipelines.providers.resting import FOREVER, Rest, Resting


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_run_of_failures_rests_a_provider_for_longer_each_time() -> None:
    clock, rests = Clock(), []
    r: list[Rest] = rests
    resting = Resting(after=3, rest=10.0, longest=25.0, record=r.append, clock=clock)
    assert not resting.failed("a", "x") and not resting.failed("a", "x")
    resting.answered("a")  # an answer ends the run
    assert not resting.failed("a", "x") and not resting.failed("a", "x")
    assert resting.failed("a", "timeout") and resting.resting("a")
    assert not resting.resting("b")
    clock.now += 10.0
    assert not resting.resting("a")
    for _ in range(3):  # failing again right after its rest: twice as long
        resting.failed("a", "timeout")
    assert [x.seconds for x in rests] == [10.0, 20.0]
    clock.now += 20.0
    resting.answered("a")  # answered after the rest: the next rest is short again
    for _ in range(3):
        resting.failed("a", "timeout")
    assert [x.seconds for x in rests] == [10.0, 20.0, 10.0]
    assert rests[0].failures == 3 and rests[0].reason == "timeout"


def test_refused_credentials_rest_for_the_run_and_are_never_woken() -> None:
    clock = Clock()
    resting = Resting(after=2, clock=clock)
    assert resting.refused("a", "481") and not resting.refused("a", "481")
    resting.failed("b", "x")
    resting.failed("b", "x")
    clock.now += 1e9
    assert resting.resting("a") and not resting.resting("b")
    assert [(x.provider, x.seconds) for x in resting.rests()] == [("a", FOREVER)]
    resting.failed("b", "x")
    resting.failed("b", "x")
    resting.wake(["a", "b"])
    assert resting.resting("a") and not resting.resting("b")


def test_a_pass_that_finds_every_provider_resting_wakes_them() -> None:
    pools = [ConnectionPool(Provider("127.0.0.1", 9, name=n)) for n in ("a", "b")]
    body = BodyPools(pools=pools, resting=Resting(after=1))
    body.resting.failed("a", "x")
    body.start_pass()
    assert body.names == ["a", "b"] and [p.provider.label for p in body.available()] == ["b"]
    body.resting.failed("b", "x")
    assert body.all_resting
    body.start_pass()
    assert [p.provider.label for p in body.available()] == ["a", "b"]
