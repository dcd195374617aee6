"""Nsight Compute figures, parsed from a report exported on an H200 (no GPU needed)."""

from pathlib import Path

import pytest

from pipeline.measure.ncu import ncu_command, parse_raw_csv, read_report, summarize

FIXTURES = Path(__file__).parent / "fixtures"
COST_MODEL = 3 * 2**28 * 4  # vector_add fp32, n = 2^28: read x, read y, write out


def test_h200_report_through_ncu_report():
    pytest.importorskip("ncu_report", reason="the ncu-report package reads .ncu-rep files")
    kernels = read_report(FIXTURES / "h200_vector_add.ncu-rep")
    assert [k["kernel"] for k in kernels] == ["add_kernel"]
    summary = summarize(kernels, COST_MODEL)
    assert summary["launches"] == 1
    assert 700e3 < summary["gpu_time_ns"] < 760e3  # 732.5 us on the H200
    assert 0.95 < summary["dram_vs_cost_model"] < 1.05  # DRAM bytes within 5% of the model
    assert summary["dram_throughput_pct"] > 85
    assert summary["registers_per_thread"] == 26
    assert summary["local_store_bytes"] == 0


def test_raw_csv_with_units_row_and_thousands_separators():
    text = (
        '"ID","Kernel Name","gpu__time_duration.sum","dram__bytes_read.sum","dram__bytes_write.sum",'
        '"sm__throughput.avg.pct_of_peak_sustained_elapsed"\n'
        '"","","ns","byte","byte","%"\n'
        '"0","add_kernel","732,480","2,147,516,928","1,056,320,256","5.66"\n'
        '"1","add_kernel","267,520","1,000","2,000","10.0"\n'
    )
    kernels = parse_raw_csv(text)
    assert kernels[0]["gpu_time_ns"] == 732480.0
    assert kernels[0]["dram_bytes_read"] == 2147516928.0
    summary = summarize(kernels, 1)
    assert summary["gpu_time_ns"] == 1_000_000.0  # times add up
    assert summary["dram_bytes"] == 2147516928 + 1056320256 + 3000
    # percentages are weighted by time
    assert summary["sm_throughput_pct"] == pytest.approx((5.66 * 732480 + 10.0 * 267520) / 1e6)


def test_ncu_invocation_keeps_clocks_and_filters_by_nvtx(tmp_path):
    from pipeline.core.sandbox import sandboxed_target

    target, env = sandboxed_target(
        "pipeline.measure.launch", ["ncu", "matmul"], tmp_path / "scratch", under_tool=True
    )
    cmd = ncu_command("ncu", tmp_path / "r.ncu-rep", tensor_roofline=True, target=target)
    # The target is the locked-down launcher; ncu reaches it over loopback, so its network stays;
    # ncu, not us, starts it, so it asks for no death signal (sandbox.py says why)
    assert cmd[-len(target) :] == target and '"network": true' in env["KPIPE_SANDBOX"]
    assert '"death_signal": false' in env["KPIPE_SANDBOX"]
    assert cmd[cmd.index("--clock-control") + 1] == "none"
    assert cmd[cmd.index("--nvtx-include") + 1] == "kpipe_profile/"
    assert "SpeedOfLight_HierarchicalTensorRooflineChart" in cmd
    assert "SpeedOfLight_RooflineChart" in ncu_command("ncu", tmp_path / "r", False, [])
    assert "SpeedOfLight_RooflineChart" not in cmd


def test_kernel_names_tell_torch_and_cublas_from_a_candidate_or_a_library_it_wraps():
    from pipeline.measure.kernel_names import torch_compute

    ours = ["add_kernel", "softmax_kernel", "_rms_norm_forward_kernel", "softmax_row_kernel", "gemm_kernel_kernel",
            "kernel_cutlass__softmax_kernel_ptrbf16gmemalign16_ptrbf16gmemalign16__BFloat16_4096_8_128_4_0"]  # fmt: skip
    torch_own = [
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>(T3)",
        "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(T2 *, const T1 *, int)",
        "nvjet_tst_128x256_64x4_2x1_v_bz_coopA_NNT",
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_execute_segment_k_off_kernel__5x_cublas",
        "void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false>(T13)",
        "triton_poi_fused_add_0",  # torch.compile's own Triton kernels
        "triton_per_fused__softmax_0",
        "cupy_add",  # CuPy's ufunc
    ]
    moves = ["void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int, T2, T3)",
             "void at::native::elementwise_kernel<128, 2, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase &)>",
             "Memcpy DtoD (Device -> Device)", "Memset (Device)"]  # fmt: skip
    assert torch_compute(ours + moves) == []
    assert torch_compute(ours + torch_own + torch_own) == sorted(torch_own)
    # Nsight Compute's demangled names have no namespaces: the mangled one says at:: (whole_name)
    from pipeline.measure.ncu import whole_name

    bare = "void vectorized_elementwise_kernel<4, CUDAFunctor_add<float>, array<char *, 3>>(int, T2, T3)"
    mangled = (
        "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_13CUDAFunctor_addIfEESt5arrayIPcLm3EEEEviT0_T1_"
    )
    fill = "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_"
    rows = [{"kernel": "vectorized_elementwise_kernel", "demangled": bare, "mangled": mangled},
            {"kernel": "vectorized_elementwise_kernel", "demangled": bare.replace("CUDAFunctor_add", "FillFunctor"),
             "mangled": fill},
            {"kernel": "add_kernel", "demangled": "add_kernel", "mangled": "add_kernel"}]  # fmt: skip
    assert torch_compute([bare]) == []  # what the demangled name alone let through
    assert torch_compute([whole_name(r) for r in rows]) == [f"{bare} / {mangled}"]
    assert whole_name(rows[2]) == "add_kernel"


def test_the_bench_witness_does_not_time_a_call_that_ran_torchs_kernels(tmp_path, monkeypatch):
    """At the headline shape the bench runs one eager call under Nsight Compute in a fresh
    process: torch's compute kernels there mean the figure is not the candidate's kernels'."""
    import shutil
    import subprocess
    from types import SimpleNamespace

    from pipeline.measure import ncu
    from pipeline.stages import bench
    from tests.conftest import REPO

    def fake_ncu(cmd, **kwargs):
        Path(cmd[cmd.index("--export") + 1]).write_bytes(b"")
        return SimpleNamespace(returncode=0, stdout="", stderr="")

    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/ncu")
    monkeypatch.setattr(subprocess, "run", fake_ncu)
    names = ["softmax_kernel"]
    monkeypatch.setattr(ncu, "read_report", lambda report: [{"kernel": n.split("<")[0], "demangled": n,
                                                               "gpu_time_ns": 100e3} for n in names])  # fmt: skip
    path = REPO / "kernels" / "softmax" / "triton.py"
    honest = bench.witness("softmax", path, "bfloat16", REPO, 105.0)
    assert honest["witness_us"] == 100.0 and "witness_disagrees" not in honest
    names.append(
        "void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16>(T2 *, T1 *, int)"
    )
    torch_ran = bench.witness("softmax", path, "bfloat16", REPO, 105.0)
    assert "torch's own compute kernels" in torch_ran["witness_disagrees"]
