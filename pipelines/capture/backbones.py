"""Capture from several backbones: one capture per backbone, side by side.

Article numbers belong to a backbone, so each backbone's overview goes into a corpus of
its own (`pipelines/corpus/backbones.py`: the root for providers with no backbone name,
`<root>/@<name>` for the others), and its cursor (what is stored, the tail mark) is per
(backbone, group): each backbone's `Capture` plans from its own corpus, exactly as one
capture does. The providers of one backbone share its work, as the providers of one
capture always did. The capture records the backbones' priority order in
`backbones.json` (the header pass takes a group's primary from it).

A backbone whose providers fail (down, wrong credentials, an unknown group) ends with its
error, reported by name; the others go on. Ctrl-C stops them all the usual way.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pipelines.capture.prefetch import Capture, CaptureError, CaptureSettings, run_threads
from pipelines.capture.progress import CaptureSummary, Progress
from pipelines.corpus.backbones import UNNAMED, backbone_root, write_order
from pipelines.corpus.fs import open_fs
from pipelines.corpus.layout import RangeRef
from pipelines.nntp.pool import ProviderPools
from pipelines.nntp.provider import Provider

log = logging.getLogger(__name__)

Consumed = Callable[[RangeRef], bool]


def by_backbone(providers: Sequence[Provider]) -> dict[str, list[Provider]]:
    """The providers grouped by backbone, backbones in the order of their first provider
    (priority order), providers in theirs."""
    out: dict[str, list[Provider]] = {}
    for provider in providers:
        out.setdefault(provider.backbone, []).append(provider)
    return out


@dataclass
class BackboneRun:
    """How one backbone's capture ended: its summary, and its error if it stopped on one."""

    backbone: str
    providers: list[str]
    summary: CaptureSummary
    error: str = ""

    @property
    def name(self) -> str:
        return self.backbone or "(unnamed)"

    def format(self) -> str:
        head = f"backbone {self.name} ({', '.join(self.providers)})"
        if self.error:
            return f"{head}: stopped: {self.error}\n{self.summary.format()}"
        return f"{head}:\n{self.summary.format()}"


class BackboneCapture:
    def __init__(
        self,
        providers: Sequence[Provider],
        root: str,
        groups: list[str],
        settings: CaptureSettings | None = None,
        progress: Callable[[str, list[str]], Progress] | None = None,
        consumed: Callable[[str], Consumed | None] | None = None,
    ) -> None:
        """`progress(backbone, connection labels)` and `consumed(backbone)` make each
        backbone's progress counters and prefetch callback (None: none)."""
        if not providers:
            raise ValueError("no provider to capture from")
        self.root = root
        self.settings = settings or CaptureSettings()
        self.groups = by_backbone(providers)
        self.captures: dict[str, Capture] = {}
        for name, members in self.groups.items():
            pools = ProviderPools(members)
            labels = [f"{p.provider.label}#{i}" for i, p in enumerate(pools.slots())]
            self.captures[name] = Capture(
                pools,
                backbone_root(root, name),
                groups,
                self.settings,
                progress(name, labels) if progress else None,
                consumed=consumed(name) if consumed else None,
            )

    def stop(self, reason: str = "stopped by request") -> None:
        for capture in self.captures.values():
            capture.stop(reason)

    def run(
        self, tail: bool = False, interval: float = 300.0, passes: int | None = None
    ) -> list[BackboneRun]:
        """Every backbone's capture at once; each one's outcome, in priority order."""
        if list(self.captures) != [UNNAMED]:  # a corpus of one unnamed backbone stays as it was
            fs, path = open_fs(self.root, self.settings.storage_options)
            write_order(fs, path, list(self.captures))
        if len(self.captures) == 1:  # in this thread: Ctrl-C reaches it as before
            ((name, capture),) = self.captures.items()
            return [self._run_one(name, capture, tail, interval, passes)]
        runs: dict[str, BackboneRun] = {}
        threads = [
            threading.Thread(
                target=lambda n=name, c=capture: runs.__setitem__(
                    n, self._run_one(n, c, tail, interval, passes)
                ),
                name=f"capture-{name or 'unnamed'}",
                daemon=True,
            )
            for name, capture in self.captures.items()
        ]
        # on Ctrl-C each capture ends as interrupted, and its summary says so
        with contextlib.suppress(KeyboardInterrupt):
            run_threads(threads, lambda: self.stop("interrupted"))
        return [runs[name] for name in self.captures]

    def _run_one(
        self, name: str, capture: Capture, tail: bool, interval: float, passes: int | None
    ) -> BackboneRun:
        labels = [p.provider.label for p in capture.pools.pools]
        try:
            summary = capture.run(tail=tail, interval=interval, passes=passes)
        except CaptureError as exc:
            log.warning("capture: backbone %s stopped: %s", name or "(unnamed)", exc)
            return BackboneRun(name, labels, exc.summary, str(exc))
        return BackboneRun(name, labels, summary)
