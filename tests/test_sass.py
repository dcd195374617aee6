"""The SASS histogram and hints, on committed dumps of known kernels (no GPU needed)."""

from pathlib import Path

from pipeline.measure.sass import hints, histogram

FIXTURES = Path(__file__).parent / "fixtures"


def test_vector_add_fp32_uses_128_bit_loads_and_stores():
    # Triton 3.9, sm_90a, add_kernel specialized for 16-divisible n: 4 elements per load
    h = histogram((FIXTURES / "add_kernel_fp32.sass").read_text())
    assert h["LDG.128"] == 4 and h["LDG"] == 4
    assert h["STG.128"] == 2 and h["STG"] == 2
    assert h["FADD"] == 8
    assert "LDL" not in h and "STL" not in h
    assert hints(h) == []


def test_bf16_matmul_is_on_hgmma():
    h = histogram((FIXTURES / "matmul_kernel_bf16.sass").read_text())
    assert h["HGMMA"] == 2 and "HMMA" not in h
    assert h["LDGSTS"] == 12  # cp.async loads into shared memory
    assert hints(h, expect_tensor_cores=True) == []


def test_hints_name_the_slow_paths():
    sass = "\n".join(
        [
            "        /*0000*/                   LDG.E R2, desc[UR4][R2.64] ;",
            "        /*0010*/              @!P0 HMMA.16816.F32.BF16 R4, R8, R12, R4 ;",
            "        /*0020*/                   STL [R1], R4 ;",
            "        /*0030*/                   LDL R5, [R1] ;",
            "        /*0040*/                   STG.E.64 desc[UR4][R6.64], R4 ;",
        ]
    )
    h = histogram(sass)
    assert h["LDG.32"] == 1 and h["STG.64"] == 1 and h["HMMA"] == 1
    assert h["LDL"] == 1 and h["STL"] == 1 and h["total"] == 5
    text = " | ".join(hints(h))
    assert "no 128-bit global loads" in text
    assert "HMMA, not HGMMA" in text
    assert "1 LDL / 1 STL" in text
