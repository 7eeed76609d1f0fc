"""Which files get a sibling key (`kernels.siblings`), and made from what.

A file whose identity came from its subject gets one when it has a file counter and 8
bytes or more before it (NAMED); a file whose subject held only the file part, each
stem its own identity (`[01/19] - "01 - Track.mp3"`, `[3/40] - "DSC_0996.JPG"`), gets one
from its counter alone (NAMELESS): poster, total and whatever stands before the
counter, so an album's tracks, cover and par2 files posted together are one release.
Not for a total a batch counter may have (`rules.batch_total_min`): `[n/68067]` numbers
one-file uploads, and its files would glue into one. The window and its reference
both ask this.
"""

from __future__ import annotations

import numpy as np

from kernels.siblings import NAMED, NAMELESS, NONE
from pipelines.index.parsed_chunk import SOURCE_STEM, SOURCE_SUBJECT
from pipelines.index.rules import Rules


def sibling_kinds(source: np.ndarray, file_total: np.ndarray, rules: Rules) -> np.ndarray:
    """Per run (its source and counter total): NAMED, NAMELESS or NONE."""
    nameless = (source == SOURCE_STEM) & (file_total < rules.batch_total_min)
    kind = np.where(nameless, NAMELESS, NONE)
    return np.where(source == SOURCE_SUBJECT, NAMED, kind).astype(np.uint8)
