# Shared by the scripts in this folder: finding Swift and installing missing Debian packages.
# shellcheck shell=bash

log() { echo "canvas: $*" >&2; }
die() { log "error: $*"; exit 1; }

# require_swift: Swift is the one thing these scripts cannot install from Debian.
require_swift() {
    command -v swift >/dev/null 2>&1 && return
    [ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH" && return
    die "swift not found: install a Swift 6.1+ toolchain (https://www.swift.org/install/linux/) and put it on PATH"
}

# require_debian_packages PKG...: installs the packages that are missing when run as root
# on Debian; otherwise names the command to run and stops.
require_debian_packages() {
    local missing=()
    local package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        log "installing missing Debian packages: ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q >&2 || die "apt-get update failed"
        apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 || die "apt-get install ${missing[*]} failed"
    else
        die "missing Debian packages: ${missing[*]}; install them with: sudo apt-get install ${missing[*]}"
    fi
}
