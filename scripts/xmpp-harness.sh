# Shared by the throwaway XMPP servers of the tests and benchmarks (prosody-harness,
# ejabberd-harness): free ports, certificates, stopping a server.
# shellcheck shell=bash

# free_ports N: prints N distinct free TCP ports on 127.0.0.1.
free_ports() {
    python3 - "$1" <<'EOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
for s in socks:
    s.close()
EOF
}

# make_certificates DIR [NAME...]: a test CA (DIR/ca.pem) and a leaf for localhost,
# rooms.localhost, 127.0.0.1 and the NAMEs (host names, or IP addresses as IP entries).
# CERT_BACKDATE_DAYS=N makes them valid from N days ago (openssl run under faketime).
make_certificates() {
    local dir=$1 certs=$1/certs name names="DNS:localhost,DNS:rooms.localhost,IP:127.0.0.1" clock=()
    shift
    if [ -n "${CERT_BACKDATE_DAYS:-}" ]; then
        [[ "$CERT_BACKDATE_DAYS" =~ ^[0-9]+$ ]] || die "CERT_BACKDATE_DAYS must be a whole number of days"
        require_debian_packages faketime
        clock=(faketime -f "-${CERT_BACKDATE_DAYS}d")
    fi
    for name in "$@"; do
        if [[ "$name" =~ ^[0-9.]+$ || "$name" == *:* ]]; then names+=",IP:$name"; else names+=",DNS:$name"; fi
    done
    mkdir -p "$certs"
    chmod 700 "$certs"
    # A small CA and a leaf for localhost signed by it: ca.pem is what clients trust.
    "${clock[@]}" openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -sha256 \
        -keyout "$certs/ca.key" -out "$certs/ca.crt" -subj "/CN=Canvas test CA" \
        -addext "basicConstraints=critical,CA:TRUE" \
        -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null \
        || die "openssl could not make the test CA"
    openssl req -newkey rsa:2048 -nodes -keyout "$certs/localhost.key" \
        -out "$certs/localhost.csr" -subj "/CN=localhost" 2>/dev/null \
        || die "openssl could not make the certificate request"
    printf '%s\n' \
        "basicConstraints=critical,CA:FALSE" \
        "keyUsage=critical,digitalSignature,keyEncipherment" \
        "extendedKeyUsage=serverAuth,clientAuth" \
        "subjectAltName=$names" \
        "subjectKeyIdentifier=hash" \
        "authorityKeyIdentifier=keyid" >"$certs/localhost.ext"
    "${clock[@]}" openssl x509 -req -in "$certs/localhost.csr" -CA "$certs/ca.crt" -CAkey "$certs/ca.key" \
        -CAcreateserial -days 3650 -sha256 -extfile "$certs/localhost.ext" \
        -out "$certs/localhost.crt" 2>/dev/null \
        || die "openssl could not sign the certificate"
    # Prosody looks certificates up by host name in its certificates directory too.
    cp "$certs/localhost.crt" "$certs/rooms.localhost.crt"
    cp "$certs/localhost.key" "$certs/rooms.localhost.key"
    chmod 600 "$certs"/*.key
    cp "$certs/ca.crt" "$dir/ca.pem"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# stop_process NAME PID: TERM, up to 10 s, then KILL; reaps it when it is our child.
stop_process() {
    local name=$1 pid=$2 i
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        log "$name (pid $pid) ignored TERM for 10 s; killing it"
        kill -KILL "$pid" 2>/dev/null || true
        for ((i = 0; i < 50; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
    wait "$pid" 2>/dev/null || true
}
