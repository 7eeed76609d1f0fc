"""The waiting pres and where each stands in its schedule: `_predb/queue.arrow`.

Only pres that wait are here (a terminal state is an outcome row, `pre_outcomes`, and
leaves the queue), so the file is as large as the work in flight: 100 k waiting pres are
~6 MB. It is a state file, replaced whole (temporary name, then rename) when a cycle
claims its due pres and again when it has scanned them; a cycle that dies between the
two leaves them `scanning`, which the reaper gives back. Columns are numpy arrays: a
cycle finds its due pres with one comparison, not a loop.
"""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc

from pipelines.predb.store import predb_path

QUEUE = pa.schema(
    [
        ("row", pa.int64()),  # the pre's row in the lookup
        ("plan", pa.int8()),  # schedule.P1 ...
        ("status", pa.int8()),  # pending | retrying | scanning
        ("attempts", pa.int16()),  # scans taken (a claimed one included)
        ("mismatches", pa.int16()),
        ("due", pa.int64()),  # when the next scan is due
        ("updated", pa.int64()),
        ("pre_time", pa.int64()),
        ("live", pa.bool_()),
    ]
)
_NUMPY = {"row": np.int64, "plan": np.int8, "status": np.int8, "attempts": np.int16,
          "mismatches": np.int16, "due": np.int64, "updated": np.int64, "pre_time": np.int64,
          "live": np.bool_}  # fmt: skip


class Queue:
    def __init__(self, cols: dict[str, np.ndarray]) -> None:
        self.cols = cols

    @classmethod
    def empty(cls) -> Queue:
        return cls({k: np.zeros(0, t) for k, t in _NUMPY.items()})

    def __len__(self) -> int:
        return len(self.cols["row"])

    def __getitem__(self, name: str) -> np.ndarray:
        return self.cols[name]

    def add(self, new: dict[str, np.ndarray]) -> None:
        self.cols = {
            k: np.concatenate([v, np.asarray(new[k], v.dtype)]) for k, v in self.cols.items()
        }

    def drop(self, idx: np.ndarray) -> None:
        keep = np.ones(len(self), dtype=bool)
        keep[idx] = False
        self.cols = {k: v[keep] for k, v in self.cols.items()}

    def table(self) -> pa.Table:
        return pa.table({k: pa.array(self.cols[k]) for k in QUEUE.names}, schema=QUEUE)


def load(catalog: str) -> Queue:
    path = predb_path(catalog, "queue.arrow")
    try:
        with pa.OSFile(path, "rb") as f:
            t = ipc.open_file(f).read_all()
    except (FileNotFoundError, OSError, pa.ArrowInvalid):
        return Queue.empty()
    return Queue(
        {k: t.column(k).to_numpy(zero_copy_only=False).astype(v) for k, v in _NUMPY.items()}
    )


def save(catalog: str, queue: Queue) -> None:
    path = predb_path(catalog, "queue.arrow")
    os.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
    tmp = f"{path}.tmp-{os.getpid()}"
    table = queue.table()
    with pa.OSFile(tmp, "wb") as sink, ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    os.replace(tmp, path)
