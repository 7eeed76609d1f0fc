"""pipelines.index.subjects.parse_shared gives every line what parsing it alone gives."""

from __future__ import annotations

import base64
from dataclasses import fields

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.subject import SubjectFields, parse_subjects
from pipelines.generate import generate_range_lines
from pipelines.index.subjects import parse_shared
from pipelines.rfc2047 import decode_subjects


def _spans(subjects: list[bytes]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    data = np.frombuffer(b"".join(subjects), np.uint8)
    ends = np.cumsum([len(s) for s in subjects], dtype=np.int64)
    starts = ends - np.array([len(s) for s in subjects], dtype=np.int64)
    return data, starts, ends


def _assert_same(data: np.ndarray, start: np.ndarray, end: np.ndarray) -> None:
    buf, got = parse_shared(data, start, end)
    want_buf, want_start, want_end = decode_subjects(data, start, end)
    want = parse_subjects(want_buf, want_start, want_end)
    verdict = _verdicts(got)
    assert np.array_equal(verdict, _verdicts(want))
    # a line dropped as random or for having no part counter is read for nothing else
    kept = verdict == KEPT
    for f in fields(SubjectFields):
        assert getattr(got, f.name).dtype == getattr(want, f.name).dtype, f.name
        if f.name in ("name_start", "name_end"):
            continue
        assert np.array_equal(getattr(got, f.name)[kept], getattr(want, f.name)[kept]), f.name
    for i in np.flatnonzero(kept):
        assert (got.name_start[i] >= 0) == (want.name_start[i] >= 0), i
        mine = buf[got.name_start[i] : got.name_end[i]].tobytes()
        theirs = want_buf[want.name_start[i] : want.name_end[i]].tobytes()
        assert mine == theirs, i


RANDOM, NO_COUNTER, KEPT = 0, 1, 2


def _verdicts(f: SubjectFields) -> np.ndarray:
    """What the header pass makes of each line from its fields (parse.parse_chunk's rules):
    random subject, no part counter (not even a named yEnc single segment), or kept."""
    single = f.has_yenc & (f.name_start >= 0)
    return np.where(f.random_subject, RANDOM, np.where((f.part < 0) & ~single, NO_COUNTER, KEPT))


TEMPLATES = [
    b'[{i}/12] - "Show.S01E0{i}.720p.mkv" yEnc ({k}/{K}) 73400320',
    b'"My Photo {k}.jpg" yEnc ({k}/{K})',  # the counter's numbers inside the quoted name
    b'"My Photo ({k}/{K}).jpg" yEnc',  # the only (k/K) is in the name
    b"=?UTF-8?B?0J/RgNC40LLQtdGC?= - File {i} of 5 - a.part{i}.rar yEnc ({k}/{K})",
    b"({k}/{K}) =?UTF-8?Q?=C3=A9t=C3=A9?= [{i}/3]",
    b"=?UTF-8?B?KDEvMik=?= yEnc ({k}/{K}) =?UTF-8?B?KDEvMik=?=",  # decodes to (1/2)
    b"yEnc ({k}/{K}) ({i}/{K}) x",
    b"{k}/{K} loose ({k}/{K})",
    b"A{i}B ({k}/{K})({k}/{K})",
    b"jsdf8s7df6s8d7f6sd8f7 ({k}/{K})",
    b"noise {i} {k}",
    b"[PRiVATE] 5a4d4b89c647dc0ace625dc250e9b93{k}",  # random: never parsed
    b"a11b222f5d0f527e743dffb8527484{i}{k}",
    b"[PRiVATE]-[aca36e56d697d5155804bc9328e95f042db1299{k}]",
    b"Zm9vYmFy+yEnc+YmF6cXV4cXV1eA{k}",  # random, and a yEnc the parser would see
    b"Zm9vYmFyYmF6cXV4+{i}/{K}=",  # a loose counter inside the token: not random
    b"Zm9vYmFyYmF6cXV4cXV1eA{k}({k}/{K})",
    b"Zm9vYmFyYmF6cXV4cXV1eA{k}.mkv",
    b"Re: where is part {k}?",  # a text post: no part counter, judged without a parse
    b'[{i}/12] - "Show.S01E0{i}.mkv"',  # a file counter but no part counter
    b'"a{k}.mkv" YENC',  # a named yEnc file without a counter: one whole segment
    b"Show.S01E0{i}.mkv yenc",  # yEnc and a name token
    b"noise yEncore {k}",  # yenc inside a word: not the word yEnc
    b"[PRiVATE] 9611340d2e854afa45e15ebf1224d1c{k} yEnc",  # yEnc, no name: judged unparsed
    b"yEnc part {k} of the {i}th",  # likewise
    b"yEnc {i}.{k}",  # a dot, maybe a name: parsed
    # whole subjects encoded, counter and all: classed again once decoded
    b'B64:[{i}/3] - "Show.S01E0{i}.mkv" yEnc ({k}/{K})',
    b'B64:"My Photo ({k}/{K}).jpg" yEnc ({k}/{K})',  # the counter in the name too
    b"B64:[PRiVATE] 9611340d2e854afa45e15ebf1224d1c{k} yEnc",  # judged once decoded
    b"B64:5a4d4b89c647dc0ace625dc250e9b93{k}",  # random once decoded
    b"B64:=?UTF-8?B?KDEvMik=?= ({k}/{K})",  # decodes to an encoded word: not again
    b'Q:"a{i}.rar" yEnc ({k}/{K})',
    # mismatched brackets: a file counter, whatever the part counter
    b'Name-GROUP({i}/12]"rld-name.r{k}" yEnc ({k}/{K})',
    b'Name [{i}/12) - "a.part{i}.rar" yEnc ({k}/{K}) 73400320',
    b"({i}/{K}] ({k}/{K}]",  # no part counter at all
]


def _subject(template: bytes, i: int, k: int, total: int) -> bytes:
    text = (
        template.replace(b"{i}", str(i).encode())
        .replace(b"{k}", str(k).encode())
        .replace(b"{K}", str(total).encode())
    )
    if text.startswith(b"B64:"):
        return b"=?UTF-8?B?" + base64.b64encode(text[4:]) + b"?="
    if text.startswith(b"Q:"):
        q = b"".join(b"=%02X" % c if c in b' ?=_"' else bytes([c]) for c in text[2:])
        return b"=?utf-8?Q?" + q + b"?= x"
    return text


lines = st.tuples(
    st.sampled_from(TEMPLATES),
    st.integers(1, 3),
    st.integers(1, 12),
    st.sampled_from([5, 12, 120]),
).map(lambda t: _subject(*t))


@settings(max_examples=300, deadline=None)
@given(st.lists(lines, max_size=60))
def test_shared_parse_equals_parsing_each_line(subjects):
    _assert_same(*_spans(subjects))


def test_on_a_generated_range():
    # real shapes: many posters, styles, encodings, noise; ~300 B a line
    data, _first, _last = generate_range_lines(n_lines=20_000, seed=5)
    subjects = [line.split(b"\t")[1] for line in data.split(b"\r\n") if line]
    _assert_same(*_spans(subjects))
