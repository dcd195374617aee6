# Set up the project's environment in .venv (first time, or when pyproject.toml changed)
# and activate it. Source it:   . ./setup.sh
#
# torch comes first, so pip never picks a build for us: on a machine without an NVIDIA GPU
# the CPU-only torch==2.13.0; with one, a CUDA build in the supported range. Everything
# else comes from pyproject.toml (with CuTe DSL, which compiles without a GPU).
_kpipe_setup() {
    local py="${PYTHON:-python3}" stamp=.venv/.kpipe-installed extras="cute,tilelang,dev,agents"
    if [ ! -f pyproject.toml ]; then
        echo "setup.sh: run it from the project root" >&2; return 1
    fi
    if [ ! -x .venv/bin/python ]; then
        echo "setup.sh: creating .venv with $py" >&2
        "$py" -m venv .venv || return 1
    fi
    if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
        if ! .venv/bin/python -c "import torch" 2>/dev/null; then
            if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
                echo "setup.sh: installing torch (a CUDA build: several GB, minutes)" >&2
                .venv/bin/python -m pip install -q "torch>=2.11,<2.15" || return 1
            else
                echo "setup.sh: installing torch 2.13.0, CPU build (about a minute)" >&2
                .venv/bin/python -m pip install -q "torch==2.13.0" || return 1
            fi
        fi
        if command -v nvidia-smi >/dev/null 2>&1; then extras="$extras,gpu"; fi
        echo "setup.sh: installing kernel-pipeline[$extras]: dvc, triton, CuTe DSL, TileLang, ruff ... (about a minute)" >&2
        .venv/bin/python -m pip install -q -e ".[$extras]" || return 1
        touch "$stamp"
        echo "setup.sh: ready (.venv active)" >&2
    fi
    . .venv/bin/activate
}
_kpipe_setup
