"""What an archive's listing tells, whatever the format: its entries and their encryption."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# An entry that is itself an archive (Newznab's password "2": the real content is inside).
_ARCHIVE_NAME = re.compile(r"\.(rar|r\d\d|7z|zip|7z\.\d{3}|zip\.\d{3}|tar|tgz|tar\.gz)$", re.I)


@dataclass
class Listing:
    names: list[str] = field(default_factory=list)
    sizes: list[int | None] = field(default_factory=list)
    encrypted: bool | None = None
    detail: str = ""

    def add(self, name: str, size: int | None, encrypted: bool) -> None:
        self.names.append(name)
        self.sizes.append(size)
        self.encrypted = encrypted or bool(self.encrypted)

    @property
    def inner_archive(self) -> bool:
        return any(_ARCHIVE_NAME.search(name) for name in self.names)
