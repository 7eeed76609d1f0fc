"""Which providers share a backbone, by what they answer for a sample of articles.

Article numbers belong to a backbone: two accounts on one backbone give the same
message-id for the same number in a group. So for each group the reference provider (the
first in priority that carries it) lists, by overview, `SAMPLE` articles spread over its
range with their message-ids, and every other provider is asked the same numbers by
STAT:
- same numbering: at least `AGREE` of the numbers both answered give the same message-id;
- otherwise, where the numbering differs, each provider is asked the reference's
  message-ids by STAT: `AGREE` or more found means the same articles under other numbers
  (a reseller that renumbers, counted as the same backbone, as the settings file's
  `backbone` names it);
- otherwise the providers are on different backbones (different retention or take-downs
  show as message-ids one has and the other has not).
The pairs that agree join into backbones (a provider agreeing with none is its own).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from pipelines.nntp.client import NNTPClient
from pipelines.nntp.errors import NNTPError, NoArticle, NoSuchGroup
from pipelines.nntp.provider import Provider
from pipelines.providers.check import overview_fields

SAMPLE = 24  # numbers asked per group
LOOK_AHEAD = 200  # articles of overview read from each sampled point for its first article
AGREE = 0.9  # share of the sample that must agree

SAME_NUMBERING = "same numbering"
SAME_ARTICLES = "same articles, other numbering"
DIFFERENT = "different"
UNKNOWN = "unknown"  # no group both carry, or one could not be asked

Connect = Callable[[Provider], NNTPClient]


@dataclass
class PairCheck:
    reference: str
    other: str
    group: str = ""
    relation: str = UNKNOWN
    numbers_asked: int = 0
    numbers_agree: int = 0  # same message-id under the same number
    ids_asked: int = 0
    ids_found: int = 0  # the reference's message-ids the other found by STAT

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Fingerprint:
    pairs: list[PairCheck] = field(default_factory=list)
    backbones: list[list[str]] = field(default_factory=list)  # providers sharing one

    def to_json(self) -> dict[str, Any]:
        return {"pairs": [p.to_json() for p in self.pairs], "backbones": self.backbones}


def sample_numbers(low: int, high: int, n: int = SAMPLE) -> list[int]:
    """`n` numbers spread evenly over low..high (all of them when fewer)."""
    if high < low:
        return []
    if high - low + 1 <= n:
        return list(range(low, high + 1))
    step = (high - low) / (n - 1)
    return sorted({low + round(i * step) for i in range(n)})


def ids_by_number(client: NNTPClient, group: str, numbers: Sequence[int]) -> dict[int, str]:
    """The message-id each number answers (STAT by number); numbers without one left out."""
    client.group(group)
    out: dict[int, str] = {}
    for number in numbers:
        try:
            _, message_id = client.stat(number)
        except NoArticle:
            continue
        if message_id:
            out[number] = message_id
    return out


def found_ids(client: NNTPClient, message_ids: Sequence[str]) -> int:
    """How many of `message_ids` the server has (STAT by message-id)."""
    found = 0
    for message_id in message_ids:
        try:
            client.stat(message_id)
        except NoArticle:
            continue
        found += 1
    return found


def fingerprint(
    providers: Sequence[Provider], groups: Sequence[str], connect: Connect,
    reachable: set[str] | None = None,
) -> Fingerprint:  # fmt: skip
    """Compare every provider with the first (in priority order) over the first group
    both carry. `reachable`: the providers to ask (the others' pairs stay unknown)."""
    result = Fingerprint()
    names = [p.label for p in providers]
    usable = [p for p in providers if reachable is None or p.label in reachable]
    if len(usable) < 2:
        result.backbones = [[n] for n in names]
        return result
    reference, others = usable[0], usable[1:]
    with connect(reference) as ref:
        samples = _reference_samples(ref, groups)
    for other in others:
        result.pairs.append(_compare(reference.label, other, samples, connect))
    result.backbones = _join(names, result.pairs)
    return result


def _reference_samples(client: NNTPClient, groups: Sequence[str]) -> dict[str, dict[int, str]]:
    """Per group the reference carries, (number, message-id) of the first article its
    overview lists from each of `SAMPLE` points spread over its range (numbering has
    gaps: a point itself is often no article)."""
    samples: dict[str, dict[int, str]] = {}
    for group in groups:
        try:
            info = client.group(group)
        except NoSuchGroup:
            continue
        found: dict[int, str] = {}
        for point in sample_numbers(info.low, info.high):
            for fields in overview_fields(client, point, min(info.high, point + LOOK_AHEAD)):
                if len(fields) > 4 and fields[0].isdigit():
                    found[int(fields[0])] = fields[4].decode("utf-8", "surrogateescape")
                    break
        if found:
            samples[group] = found
    return samples


def _compare(
    reference: str, other: Provider, samples: dict[str, dict[int, str]], connect: Connect
) -> PairCheck:
    pair = PairCheck(reference, other.label)
    try:
        with connect(other) as client:
            for group, by_number in samples.items():
                try:
                    theirs = ids_by_number(client, group, list(by_number))
                except NoSuchGroup:
                    continue
                pair.group = group
                both = [n for n in by_number if n in theirs]
                pair.numbers_asked = len(by_number)
                pair.numbers_agree = sum(theirs[n] == by_number[n] for n in both)
                if pair.numbers_agree >= AGREE * len(by_number):
                    pair.relation = SAME_NUMBERING
                    return pair
                ids = list(by_number.values())
                pair.ids_asked, pair.ids_found = len(ids), found_ids(client, ids)
                pair.relation = SAME_ARTICLES if pair.ids_found >= AGREE * len(ids) else DIFFERENT
                return pair
    except (NNTPError, OSError):
        pair.relation = UNKNOWN
    return pair


def _join(names: list[str], pairs: list[PairCheck]) -> list[list[str]]:
    """The providers grouped by the pairs that share a backbone, in the given order."""
    parent = {n: n for n in names}

    def root(n: str) -> str:
        while parent[n] != n:
            n = parent[n]
        return n

    for p in pairs:
        if p.relation in (SAME_NUMBERING, SAME_ARTICLES):
            parent[root(p.other)] = root(p.reference)
    out: dict[str, list[str]] = {}
    for n in names:
        out.setdefault(root(n), []).append(n)
    return list(out.values())
