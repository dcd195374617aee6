"""The CUDA IPC handle survives the trip between processes byte for byte (no GPU needed:
the handle is 64 opaque bytes, and real ones hold NUL bytes)."""

import pytest

from pipeline.core import wire
from pipeline.measure.gpu_memory import HANDLE_BYTES, DriverError, _Handle, handle_bytes, handle_from


def test_a_handle_with_nul_bytes_keeps_all_64_bytes_through_the_wire():
    import multiprocessing

    data = bytes([0, 7, 0, 0, 255] + list(range(59)))
    raw = handle_from(data)
    assert handle_bytes(raw) == data and len(handle_bytes(_Handle())) == HANDLE_BYTES
    left, right = multiprocessing.Pipe()
    wire.send(left, {"handles": [handle_bytes(raw)]})
    assert wire.recv(right)["handles"] == [data]


@pytest.mark.parametrize(
    "bad", [b"short", "a string of sixty-four characters is not a handle either....", None]
)
def test_anything_but_64_bytes_is_not_a_handle(bad):
    with pytest.raises(DriverError):
        handle_from(bad)
