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
        apt_get_waiting update -q || die "apt-get update failed"
        apt_get_waiting install -y -q --no-install-recommends "${missing[@]}" || die "apt-get install ${missing[*]} failed"
    else
        die "missing Debian packages: ${missing[*]}; install them with: sudo apt-get install ${missing[*]}"
    fi
}

# apt_get_waiting ARGS...: apt-get ARGS, waiting (with a message, up to 10 minutes) while
# another apt-get or an unattended upgrade holds the package manager's locks, as on a
# machine that has just booted. dpkg's lock is waited for by apt itself
# (DPkg::Lock::Timeout); the lists' lock of `apt-get update` is retried here.
apt_get_waiting() {
    local errors waited=0
    errors=$(mktemp)
    while true; do
        if apt-get -o DPkg::Lock::Timeout=600 "$@" >&2 2>"$errors"; then
            rm -f "$errors"
            return 0
        fi
        if grep -q "Could not get lock" "$errors" && [ "$waited" -lt 600 ]; then
            [ "$waited" -eq 0 ] && log "the package manager is busy (another apt-get runs): waiting for it, up to 10 minutes"
            sleep 10
            waited=$((waited + 10))
            continue
        fi
        cat "$errors" >&2
        rm -f "$errors"
        return 1
    done
}

# has_multicast_interface: whether an up interface with an IPv4 address supports multicast
# (what `canvas join` picks for its LAN cluster by default).
has_multicast_interface() {
    command -v ip >/dev/null 2>&1 || return 1
    local name
    for name in $(ip -o link show up | awk -F': ' '/MULTICAST/ { sub(/@.*/, "", $2); print $2 }'); do
        [ -n "$(ip -4 -o addr show dev "$name" 2>/dev/null)" ] && return 0
    done
    return 1
}

# require_multicast_interface: LAN nodes on this machine find each other by multicast. On a
# machine without a multicast interface (a container with loopback only), root turns
# multicast on for the loopback interface; others are told how.
require_multicast_interface() {
    has_multicast_interface && return
    if [ "$(id -u)" -eq 0 ]; then
        log "no interface with multicast: turning it on for the loopback interface (ip link set lo multicast on)"
        ip link set lo multicast on || die "could not turn multicast on for lo"
        has_multicast_interface || die "still no interface with multicast and an IPv4 address"
    else
        die "no interface with multicast: run 'sudo ip link set lo multicast on' (LAN nodes on this machine meet by multicast)"
    fi
}
