# Python virtual environments for the test scripts. Source it after scripts/lib.sh.
# shellcheck shell=bash

# require_venv DIR REQUIREMENTS: makes DIR a Python 3 virtual environment holding what the
# pip requirements file REQUIREMENTS names, and puts DIR/bin first on PATH. An existing venv
# is reused as is while REQUIREMENTS is unchanged (its checksum is kept in DIR); otherwise
# pip installs the requirements (quietly) into it. Needs python3 with the venv module
# (Debian: python3-venv), which it installs through require_debian_packages when the
# system python3 lacks it and the caller is root.
require_venv() {
    local dir=$1 requirements=$2
    [ -n "$dir" ] && [ -f "$requirements" ] || die "usage: require_venv DIR REQUIREMENTS (no file '$requirements')"
    local python=${PYTHON:-python3}
    command -v "$python" >/dev/null 2>&1 || { require_debian_packages python3 python3-venv; python=python3; }
    local stamp="$dir/.requirements.sha256" sum
    sum=$(sha256sum "$requirements" | cut -d' ' -f1)
    if [ -x "$dir/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ] \
        && "$dir/bin/python" -c 'import sys' >/dev/null 2>&1; then
        export PATH="$dir/bin:$PATH" VIRTUAL_ENV="$dir"
        return
    fi
    if [ ! -x "$dir/bin/python" ]; then
        if ! "$python" -m venv "$dir" >/dev/null 2>&1; then
            # Debian's python3 ships without ensurepip unless python3-venv is installed.
            rm -rf "$dir"
            [ "$python" = python3 ] && require_debian_packages python3-venv
            "$python" -m venv "$dir" >&2 || die "could not create a Python venv in $dir"
        fi
    fi
    log "installing Python packages from $requirements into $dir"
    "$dir/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements" >&2 \
        || die "pip install -r $requirements failed"
    echo "$sum" >"$stamp"
    export PATH="$dir/bin:$PATH" VIRTUAL_ENV="$dir"
}
