#!/usr/bin/env bash
# Install what PatroniFailoverIT needs beyond scripts/services.sh: Patroni (Debian `patroni`, 3.0) and etcd
# (Debian `etcd-server`, 3.4). The test starts its own etcd member and Patroni nodes on free loopback ports; the
# Debian system services are kept from starting on their default ports (policy-rc.d, as services.sh does).
# Idempotent: does nothing when both are installed. Needs root (apt).
#
# Usage:   bash scripts/install-patroni.sh
set -euo pipefail

log() { echo "[install-patroni] $*" >&2; }
die() { echo "[install-patroni] ERROR: $*" >&2; exit 1; }

pkgs=()
command -v patroni >/dev/null || pkgs+=(patroni)
command -v etcd >/dev/null || pkgs+=(etcd-server)
[ ${#pkgs[@]} -eq 0 ] && { log "patroni and etcd are installed"; exit 0; }
[ "$(id -u)" = 0 ] || die "missing packages (${pkgs[*]}) and not root: run this script as root"

log "apt-get install ${pkgs[*]}"
# keep the packages from starting etcd (port 2379) and a Patroni service of their own
made_policy=0
if [ ! -e /usr/sbin/policy-rc.d ]; then printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; made_policy=1; fi
rc=0
{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}"; } >&2 || rc=$?
[ "$made_policy" = 1 ] && rm -f /usr/sbin/policy-rc.d
[ "$rc" = 0 ] || die "apt-get install failed ($rc)"
log "installed: $(patroni --version 2>&1 | head -n 1); $(etcd --version 2>&1 | head -n 1)"
