"""A transcript of one agent session through `kpipe mcp`: the SDK's own client starts the
server over stdio, lists the tools, reads the context, and tries the shipped Triton softmax.

    PYTHONPATH=. python benchmarks/mcp_session.py [--op softmax] [--impl triton] [--out F.json]

On a GPU the try carries the timing and roofline figures; on a CPU it says why it has none.
Run it on a scratch copy if the kernel file must stay untouched (try_candidate writes it).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


async def session(op: str, impl: str) -> list[dict]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    transcript = []
    # The SDK hands the server a bare environment (HOME, PATH, ...): PYTHONPATH goes too, or a
    # host whose packages are on it (a lent GPU machine's wheelhouse) starts a server without mcp.
    env = {**os.environ}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "pipeline", "mcp"], cwd=str(ROOT), env=env
    )

    async def progress(done, total, message):
        transcript.append({"progress": message})
        print(f"  progress: {message}", flush=True)

    async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        tools = [t.name for t in (await s.list_tools()).tools]
        transcript.append({"tools": tools})
        print(f"tools: {', '.join(tools)}", flush=True)
        source = (ROOT / "kernels" / op / f"{impl}.py").read_text()
        for name, args in (("get_context", {"op": op, "impl": impl}),
                           ("try_candidate", {"op": op, "impl": impl, "source": source})):  # fmt: skip
            start = time.perf_counter()
            res = await s.call_tool(name, args, progress_callback=progress)
            text = res.content[0].text if res.content else ""
            entry = {"call": name, "seconds": round(time.perf_counter() - start, 1), "is_error": res.is_error}
            entry["result"] = json.loads(text) if name == "try_candidate" and not res.is_error else text[:600]
            transcript.append(entry)
            print(f"{name}: {entry['seconds']} s" + ("" if name != "try_candidate" else
                  f": {json.dumps({k: entry['result'].get(k) for k in ('verdict', 'timing', 'vs_committed')}, default=str)}"),
                  flush=True)  # fmt: skip
    return transcript


def main(argv=None) -> int:
    import anyio

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--op", default="softmax")
    parser.add_argument("--impl", default="triton")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    transcript = anyio.run(session, args.op, args.impl)
    if args.out:
        Path(args.out).write_text(json.dumps(transcript, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
