"""Plain-Python reference of kernels.nzb_segments."""

from __future__ import annotations

_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}


def _xml_char(c: str) -> str:
    code = ord(c)
    if (code < 0x20 and c not in "\t\n\r") or code in (0xFFFE, 0xFFFF):
        return ""
    return _ESCAPES.get(c, c)


def message_id_xml(raw: bytes) -> str:
    text = raw.decode("utf-8", "ignore").strip("<>")
    return "".join(_xml_char(c) for c in text)


def segment_lines(
    numbers: list[int],
    sizes: list[int],
    source: list[int],
    id_offsets: list[int],
    id_data: bytes,
) -> tuple[bytes, list[int]]:
    out = b""
    ends = []
    for k in source:
        mid = message_id_xml(id_data[id_offsets[k] : id_offsets[k + 1]])
        out += f'   <segment bytes="{sizes[k]}" number="{numbers[k]}">{mid}</segment>\n'.encode()
        ends.append(len(out))
    return out, ends
