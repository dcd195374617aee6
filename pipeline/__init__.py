"""kernel-pipeline: the GPU-kernel loop (compile, test, bench, profile) as a DVC pipeline.

One module per stage (compile, device, test, bench, profile), small shared modules
(problem, params, capture, sass, isolate, jsonio, inputs) and a thin CLI (cli).
"""
