"""kernel-pipeline: the GPU-kernel loop (compile, test, bench, profile) as a DVC pipeline.

The folders show the flow, and the imports only go down this list:
  commands/  kpipe's commands over git and the metrics (no stage depends on them)
  stages/    one thin module per DVC stage
  measure/   timing, ceilings, compile capture, SASS, Nsight Compute, Proton, the machine
  check/     the judge
  core/      the problem contract, params, metric paths and record shapes
Kernels and references import four modules kept here for them: knobs (tuning knobs from
params.yaml), inputs (seeded random inputs), cute_helpers (CuTe DSL building blocks) and
tilelang_helpers (a TileLang row kernel's vector width and plan).
"""
