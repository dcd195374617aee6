"""`kpipe mcp` driven by the SDK's own client over stdio, a real subprocess: it lists its
tools, tries a correct and a wrong softmax with the same verdicts as `kpipe check`, and
refuses a path outside kernels/."""

import json
import shutil
import sys

import pytest

from tests.conftest import REPO, copy_project

pytestmark = pytest.mark.slow
mcp = pytest.importorskip("mcp")


async def session_calls(root, calls):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "pipeline", "mcp"], cwd=str(root))
    results, progress = [], []

    async def on_progress(done, total, message):
        progress.append(message)

    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {t.name for t in (await session.list_tools()).tools}
        for name, arguments in calls:
            res = await session.call_tool(name, arguments, progress_callback=on_progress)
            results.append(res)
    return tools, results, progress


def test_an_agent_tries_kernels_through_the_mcp_server(tmp_path):
    import anyio

    root = copy_project(tmp_path / "project")
    good = (REPO / "kernels" / "softmax" / "triton.py").read_text()
    wrong = good.replace("(1.0 / tl.sum(e, axis=1))[:, None]", "(1.01 / tl.sum(e, axis=1))[:, None]")
    assert wrong != good
    calls = [("list_problems", {}), ("try_candidate", {"op": "softmax", "impl": "triton", "source": good}),
             ("try_candidate", {"op": "softmax", "impl": "mine", "source": wrong}),
             ("try_candidate", {"op": "softmax", "impl": "../../pipeline/evil", "source": "x = 1"}),
             ("try_candidate", {"op": "nosuchop", "impl": "triton", "source": good})]  # fmt: skip
    tools, results, progress = anyio.run(session_calls, root, calls)
    assert {"list_problems", "get_context", "try_candidate", "check", "bench", "profile", "status", "history",
            "commit"} <= tools  # fmt: skip
    problems = json.loads(results[0].content[0].text)
    assert "softmax" in {p["op"] for p in problems}
    accepted, rejected = (json.loads(r.content[0].text) for r in results[1:3])
    assert accepted["verdict"] == "accepted" and accepted["correct"] is True
    assert rejected["verdict"] == "rejected" and rejected["judge"]["failed"]["rung"].startswith("accuracy")
    assert results[3].is_error and "not a candidate name" in results[3].content[0].text
    assert results[4].is_error and "unknown op" in results[4].content[0].text
    assert not (root / "pipeline" / "evil.py").exists()
    assert any("the judge" in (m or "") for m in progress)  # progress came as notifications
    # the same verdicts as `kpipe check` on the files the server wrote
    from tests.conftest import run

    for impl, code in (("triton", 0), ("mine", 1)):
        proc = run([sys.executable, "-m", "pipeline", "check", "softmax", f"kernels/softmax/{impl}.py"], root)
        assert proc.returncode == code, proc.stdout[-1500:]
    shutil.rmtree(root / ".kpipe", ignore_errors=True)
