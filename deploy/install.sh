#!/usr/bin/env bash
# Installs basalt as a systemd service on Debian or Ubuntu, as root. Idempotent: run it again to
# upgrade (the code is copied and rebuilt, the unit refreshed, the service restarted); an
# existing /etc/basalt/basalt.env is never overwritten (the network's template lands beside it
# as basalt.env.new when they differ).
#
#   sudo deploy/install.sh --network devnet
#   sudo deploy/install.sh --network base-mainnet --prefix /opt/basalt
#
# Steps: system user `basalt`; the checkout copied to --prefix and built there (npm ci && npm run
# build); /var/lib/basalt (state) and /etc/basalt/basalt.env (from deploy/env/<network>.env); the
# unit in /etc/systemd/system; `basalt doctor` on the configuration; then
# `systemctl daemon-reload && systemctl enable --now basalt` (not started when doctor reports a
# FAIL, unless --force).
set -euo pipefail

# Smallest Node.js basalt runs on (package.json "engines").
readonly MIN_NODE_MAJOR=20
readonly MIN_NODE_MINOR=10
readonly SERVICE_USER=basalt
readonly STATE_DIR=/var/lib/basalt
readonly CONFIG_DIR=/etc/basalt
readonly ENV_FILE="${CONFIG_DIR}/basalt.env"
readonly UNIT_FILE=/etc/systemd/system/basalt.service
# The install directory the unit file names; replaced by --prefix when another is given.
readonly DEFAULT_PREFIX=/opt/basalt

NETWORK=""
PREFIX="${DEFAULT_PREFIX}"
SOURCE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
START=1
FORCE=0

usage() {
  cat <<EOF
Usage: sudo $0 --network <devnet|base-mainnet|base-sepolia> [--prefix DIR] [--source DIR] [--no-start] [--force]

  --network NAME   network whose env file (deploy/env/NAME.env) becomes ${ENV_FILE} (required)
  --prefix DIR     where the code is installed and built (default ${DEFAULT_PREFIX})
  --source DIR     basalt checkout to install from (default: the one holding this script)
  --no-start       install and enable nothing in systemd beyond the unit file (containers, images)
  --force          start the service even when basalt doctor reports a FAIL
EOF
}

log() { printf 'install.sh: %s\n' "$*"; }
die() {
  printf 'install.sh: error: %s\n' "$*" >&2
  exit 1
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --network) NETWORK="${2:?--network needs a value}"; shift 2 ;;
    --network=*) NETWORK="${1#*=}"; shift ;;
    --prefix) PREFIX="${2:?--prefix needs a value}"; shift 2 ;;
    --prefix=*) PREFIX="${1#*=}"; shift ;;
    --source) SOURCE="${2:?--source needs a value}"; shift 2 ;;
    --source=*) SOURCE="${1#*=}"; shift ;;
    --no-start) START=0; shift ;;
    --force) FORCE=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
done

[[ -n "${NETWORK}" ]] || { usage >&2; die "--network is required"; }
case "${NETWORK}" in
  devnet | base-mainnet | base-sepolia) ;;
  *) die "--network ${NETWORK}: expected devnet, base-mainnet or base-sepolia" ;;
esac
[[ "${PREFIX}" == /* && "${PREFIX}" != "/" ]] || die "--prefix ${PREFIX}: expected an absolute directory other than /"
PREFIX="${PREFIX%/}"
[[ -f "${SOURCE}/package.json" && -f "${SOURCE}/deploy/env/${NETWORK}.env" ]] || die "--source ${SOURCE} is not a basalt checkout"
[[ "$(id -u)" -eq 0 ]] || die "run as root (sudo $0 ...)"
[[ -f /etc/debian_version ]] || log "warning: not Debian/Ubuntu; the package steps below use apt-get"

# ---- prerequisites: Node.js >= 20.10 (Debian 12's own nodejs is 18: use NodeSource or Debian 13), a C++ toolchain ----
command -v node >/dev/null 2>&1 || die "node not found: install Node.js ${MIN_NODE_MAJOR}.${MIN_NODE_MINOR}+ (e.g. NodeSource's nodejs package), then run again"
command -v npm >/dev/null 2>&1 || die "npm not found: install it with Node.js, then run again"
node_version="$(node -p 'process.versions.node')"
IFS=. read -r node_major node_minor _ <<<"${node_version}"
if ((node_major < MIN_NODE_MAJOR || (node_major == MIN_NODE_MAJOR && node_minor < MIN_NODE_MINOR))); then
  die "node ${node_version} is too old: basalt needs ${MIN_NODE_MAJOR}.${MIN_NODE_MINOR} or newer"
fi
# The native addon (faster hashing) needs a compiler and python3 for node-gyp; without them basalt uses its JS fallback.
missing=()
command -v g++ >/dev/null 2>&1 || missing+=(build-essential)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if ((${#missing[@]} > 0)) && command -v apt-get >/dev/null 2>&1; then
  log "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

# ---- user ----
if ! getent passwd "${SERVICE_USER}" >/dev/null; then
  log "creating system user ${SERVICE_USER}"
  useradd --system --user-group --home-dir "${STATE_DIR}" --no-create-home --shell /usr/sbin/nologin "${SERVICE_USER}"
fi

# ---- code: copy the checkout (without build output, dependencies or chain data) and build it ----
install -d -m 0755 "${PREFIX}"
if [[ "$(cd "${SOURCE}" && pwd -P)" != "$(cd "${PREFIX}" && pwd -P)" ]]; then
  log "copying ${SOURCE} to ${PREFIX}"
  tar -C "${SOURCE}" --exclude=./node_modules --exclude=./dist --exclude=./data --exclude=./.git \
    --exclude=./native/build --exclude=./bench-results -cf - . | tar -C "${PREFIX}" --no-same-owner -xf -
fi
log "building in ${PREFIX} (npm ci && npm run build)"
(cd "${PREFIX}" && npm ci --no-audit --no-fund && npm run build)
[[ -f "${PREFIX}/dist/src/cli/main.js" ]] || die "the build left no ${PREFIX}/dist/src/cli/main.js"
# The code stays root-owned: the service can read it but not change it.
chown -R root:root "${PREFIX}"
chmod -R go-w "${PREFIX}"

# ---- state and configuration ----
install -d -m 0750 -o "${SERVICE_USER}" -g "${SERVICE_USER}" "${STATE_DIR}"
install -d -m 0750 -o root -g "${SERVICE_USER}" "${CONFIG_DIR}"
template="${SOURCE}/deploy/env/${NETWORK}.env"
if [[ ! -f "${ENV_FILE}" ]]; then
  log "writing ${ENV_FILE} from deploy/env/${NETWORK}.env"
  install -m 0640 -o root -g "${SERVICE_USER}" "${template}" "${ENV_FILE}"
elif ! cmp -s "${template}" "${ENV_FILE}"; then
  install -m 0640 -o root -g "${SERVICE_USER}" "${template}" "${ENV_FILE}.new"
  log "kept the existing ${ENV_FILE}; the ${NETWORK} template is at ${ENV_FILE}.new (diff them)"
fi

# ---- unit ----
log "installing ${UNIT_FILE}"
sed -e "s#${DEFAULT_PREFIX}/#${PREFIX}/#g" "${SOURCE}/deploy/basalt.service" >"${UNIT_FILE}.tmp"
chmod 0644 "${UNIT_FILE}.tmp"
mv -f "${UNIT_FILE}.tmp" "${UNIT_FILE}"
if command -v systemd-analyze >/dev/null 2>&1; then
  systemd-analyze verify "${UNIT_FILE}" || log "warning: systemd-analyze verify reported the problems above"
fi

# ---- check, then start ----
doctor_ok=1
log "checking the configuration: basalt doctor --env-file ${ENV_FILE}"
if ! runuser -u "${SERVICE_USER}" -- node "${PREFIX}/bin/basalt.js" doctor --env-file "${ENV_FILE}"; then
  doctor_ok=0
fi

if ((START == 0)); then
  log "done (--no-start): start with systemctl daemon-reload && systemctl enable --now basalt"
  exit 0
fi
if [[ ! -d /run/systemd/system ]]; then
  log "done, but systemd is not running here: start the node with systemctl once it is, or run ${PREFIX}/bin/basalt.js node --env-file ${ENV_FILE}"
  exit 0
fi
systemctl daemon-reload
if ((doctor_ok == 0 && FORCE == 0)); then
  systemctl enable basalt
  log "basalt doctor reported a FAIL: the service is enabled but not started. Fix ${ENV_FILE}, then: systemctl restart basalt (or rerun with --force)"
  exit 1
fi
if systemctl is-active --quiet basalt; then
  log "restarting the running service on the new build"
  systemctl enable basalt
  systemctl restart basalt
else
  systemctl enable --now basalt
fi
log "done: systemctl status basalt; journalctl -u basalt -f"
