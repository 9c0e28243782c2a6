#!/usr/bin/env bash
# Usage: bash Benchmarks/peers/setup.sh VENV_DIR
#
# Creates (if needed) a Python virtual environment at VENV_DIR and installs
# requirements.txt into it. Idempotent: the SHA-256 of requirements.txt is kept
# in VENV_DIR/.peers-requirements.sha256, and a re-run with an unchanged file and
# a working venv returns at once. Silent on success; progress and errors go to
# stderr, nothing to stdout.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
req="$here/requirements.txt"

log() { echo "peers/setup.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }

[[ $# -eq 1 && -n "$1" ]] || die "usage: bash Benchmarks/peers/setup.sh VENV_DIR"
venv="$1"
stamp="$venv/.peers-requirements.sha256"
want="$(sha256sum "$req" | cut -d' ' -f1)"

# The stamp is only written after a successful install, so this also checks the venv.
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    exit 0
fi

command -v python3 >/dev/null || die "python3 not found on PATH"
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || die "python3 is $(python3 -V 2>&1 | cut -d' ' -f2); pycrdt needs Python >= 3.11"

# A pip-less venv is what Debian's python3 leaves behind when python3-venv is
# missing (it fails at ensurepip), so "has a working pip" is the test, not "exists".
if ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
    # Debian ships venv's ensurepip separately (python3-venv); a pyenv or
    # python.org build has it built in.
    if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
        if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
            log "python3 cannot create virtual environments; installing python3-venv"
            export DEBIAN_FRONTEND=noninteractive
            apt-get install -y -q python3-venv >&2 \
                || { apt-get update -q >&2 && apt-get install -y -q python3-venv >&2; } \
                || die "apt-get install python3-venv failed"
        fi
        # Still missing when python3 is not Debian's own (e.g. a pyenv build without it).
        python3 -c 'import venv, ensurepip' 2>/dev/null \
            || die "$(command -v python3) has no working venv/ensurepip module; install python3-venv (Debian/Ubuntu) or use a Python >= 3.11 build that includes venv"
    fi
    log "creating virtual environment at $venv"
    python3 -m venv "$venv" >&2 || die "python3 -m venv $venv failed"
fi

log "installing $(basename "$req") into $venv"
# Binary wheels only: all pins ship them, and a source build would need a Rust toolchain.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    --only-binary=:all: -r "$req" >&2 \
    || die "pip install -r $req failed (see above)"
echo "$want" >"$stamp"
