#!/usr/bin/env bash
# Installs Feedlab as a public HTTPS server on one Debian 12 or Ubuntu 24.04 machine, or upgrades it
# (docs/deploy.md, "A public server in one step"): Debian's Caddy in front, with a certificate it gets
# and renews by itself, and one Feedlab process on the embedded database as a systemd service.
#
#   sudo FEEDLAB_DOMAIN=study.lab.org bash deploy/install.sh
#
# Safe to re-run: a re-run fetches the ref asked for, builds it beside the running release and swaps
# it in, restarts the service (which applies the new migrations as it starts), and keeps the
# settings file, its admin password and the data folder as they are.
set -euo pipefail
umask 022

usage() {
  cat <<'EOF'
Usage: deploy/install.sh [--domain NAME] [options]

Installs or upgrades Feedlab behind Caddy (HTTPS) as the systemd service `feedlab`. Run it as root.

  --domain NAME     the study's domain name, whose DNS points at this machine (or FEEDLAB_DOMAIN);
                    needed on the first run, kept from the installed service after that
  --repo URL        the git repository to install from (default: the checkout this script is in;
                    when run from the installed copy, the repository it was installed from)
  --ref REF         the branch, tag or commit to install (default: HEAD, the repository's current
                    commit or default branch)
  --dir DIR         where Feedlab's code goes (default: /opt/feedlab)
  --port N          the local port Feedlab listens on, for Caddy only (default: 8080)
  --no-packages     install no system packages (caddy, git, curl, nodejs, npm)
  --no-build        skip `npm ci` and the web build (for tests: the result cannot run)
  --no-systemctl    write the unit and Caddy's settings but start, enable and restart nothing
  --root DIR        write every file under DIR instead of / (for tests and packaging), as the user
                    running the script; implies --no-packages and --no-systemctl, creates no user
  -h, --help        show this help

What it writes (paths under --root when given):
  DIR (/opt/feedlab)                      the code, at the ref asked for; DIR.previous, the release
                                          before the last upgrade
  /var/lib/feedlab                        the data folder: database and uploads (owner: feedlab)
  /etc/feedlab/feedlab.env                settings of your own, with the first admin's password
                                          (generated and shown once); never rewritten
  /etc/systemd/system/feedlab.service     the service: `feedlab start` on 127.0.0.1:PORT
  /etc/caddy/Caddyfile                    imports DIR/deploy/caddy/Caddyfile (a file there before
                                          is kept as Caddyfile.before-feedlab.<time>)
  /etc/systemd/system/caddy.service.d/feedlab.conf   the domain and port Caddy reads
  /usr/local/bin/feedlab                  the CLI as the service runs it (feedlab backup FILE, ...)
EOF
}

say() { printf 'feedlab: %s\n' "$*"; }
die() {
  printf 'feedlab: %s\n' "$*" >&2
  exit 1
}

domain="${FEEDLAB_DOMAIN:-}"
repo=""
ref="HEAD"
dir="/opt/feedlab"
port=""
root=""
packages=1
build=1
use_systemctl=1

while (($# > 0)); do
  case "$1" in
  --domain | --repo | --ref | --dir | --port | --root)
    (($# >= 2)) || die "$1 needs a value (--help)"
    case "$1" in
    --domain) domain="$2" ;;
    --repo) repo="$2" ;;
    --ref) ref="$2" ;;
    --dir) dir="$2" ;;
    --port) port="$2" ;;
    --root) root="$2" ;;
    esac
    shift 2
    ;;
  --no-packages) packages=0 && shift ;;
  --no-build) build=0 && shift ;;
  --no-systemctl) use_systemctl=0 && shift ;;
  -h | --help) usage && exit 0 ;;
  *) die "unknown option: $1 (--help)" ;;
  esac
done

if [[ -n "$root" ]]; then
  [[ -d "$root" ]] || die "--root $root: no such folder"
  root="$(cd "$root" && pwd -P)"
  packages=0
  use_systemctl=0
elif ((EUID != 0)); then
  die "run this as root (sudo bash $0), or with --root DIR to write the files under DIR"
fi
if ((use_systemctl)) && [[ ! -d /run/systemd/system ]]; then
  die "systemd is not running on this machine: run with --no-systemctl to install without starting anything"
fi
[[ "$dir" == /* ]] || die "--dir must be an absolute path (got $dir)"
dir="${dir%/}"

# Where each file lives on the machine (what the files name), and where this run writes it.
data_dir=/var/lib/feedlab
env_file=/etc/feedlab/feedlab.env
unit_file=/etc/systemd/system/feedlab.service
caddy_file=/etc/caddy/Caddyfile
caddy_dropin=/etc/systemd/system/caddy.service.d/feedlab.conf
cli_file=/usr/local/bin/feedlab

# The value of `Environment=NAME=...` in the installed unit, or nothing: a re-run keeps what the
# first run was told.
installed_setting() {
  [[ -f "$root$unit_file" ]] || return 0
  sed -n "s/^Environment=$1=//p" "$root$unit_file" | tail -n 1
}

if [[ -z "$domain" ]]; then
  domain="$(installed_setting FEEDLAB_PUBLIC_URL)"
  domain="${domain#https://}"
fi
[[ -n "$domain" ]] || die "name the study's domain: --domain study.lab.org (or FEEDLAB_DOMAIN)"
domain="${domain#https://}"
domain="${domain%/}"
[[ "$domain" =~ ^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$ ]] ||
  die "--domain must be a host name such as study.lab.org (got $domain)"
[[ -n "$port" ]] || port="$(installed_setting PORT)"
port="${port:-8080}"
if ! [[ "$port" =~ ^[1-9][0-9]{0,4}$ ]] || ((port > 65535)); then
  die "--port must be a port number (got $port)"
fi

# 1. System packages: only those missing. Debian's nodejs and npm run `npm ci`, which brings the
#    Node 24 the project pins (its `node` dev dependency); the service runs on that one.
if ((packages)); then
  missing=()
  command -v caddy >/dev/null || missing+=(caddy)
  command -v git >/dev/null || missing+=(git)
  command -v curl >/dev/null || missing+=(curl ca-certificates)
  command -v npm >/dev/null || missing+=(nodejs npm)
  if ((${#missing[@]} > 0)); then
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    candidate="$(apt-cache policy caddy | sed -n 's/^ *Candidate: //p')"
    if [[ " ${missing[*]} " == *" caddy "* && ("$candidate" == "" || "$candidate" == "(none)") ]]; then
      die "this system's package sources have no caddy (Ubuntu before 23.04): add Caddy's own apt repository (caddyserver.com/docs/install), then run this again"
    fi
    apt-get install -y --no-install-recommends "${missing[@]}"
  fi
fi
command -v git >/dev/null || die "git is missing (run without --no-packages, or install it)"
if ((build)); then
  command -v npm >/dev/null || die "npm is missing (run without --no-packages, or install nodejs and npm)"
  node_major="$(node -p 'process.versions.node.split(".")[0]')"
  ((node_major >= 18)) ||
    die "npm ci needs Node.js 18 or newer to start from (this system has $(node --version)): install a newer nodejs, then run this again"
fi

# 2. The service's user, which owns the data folder and nothing else.
if [[ -z "$root" ]] && ! id -u feedlab >/dev/null 2>&1; then
  say "creating the system user feedlab"
  useradd --system --user-group --home-dir "$data_dir" --no-create-home --shell /usr/sbin/nologin feedlab
fi
# chown for the service's user; nothing under --root, where the files belong to whoever runs it.
own() { [[ -n "$root" ]] || chown "$@"; }

# 3. The code: the ref is fetched into DIR.new and built there while the running release serves;
#    only a complete build replaces DIR (the release before it stays in DIR.previous).
git_() { git -c safe.directory='*' -c advice.detachedHead=false "$@"; }
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
if [[ -z "$repo" ]]; then
  if [[ "$here" != "$root$dir" && "$(git_ -C "$here" rev-parse --show-toplevel 2>/dev/null)" == "$here" ]]; then
    repo="$here"
  elif [[ -d "$root$dir/.git" ]]; then
    repo="$(git_ -C "$root$dir" remote get-url origin)"
  else
    die "this script is not in a git checkout: name the repository with --repo URL"
  fi
fi
stage="$root$dir.new"
rm -rf "$stage"
mkdir -p "$(dirname "$stage")"
reference=()
[[ -d "$root$dir/.git" ]] && reference=(--reference-if-able "$root$dir" --dissociate)
say "fetching $ref from $repo"
git_ clone --quiet --no-checkout "${reference[@]}" "$repo" "$stage"
git_ -C "$stage" fetch --quiet --force origin "$ref"
git_ -C "$stage" checkout --quiet --detach FETCH_HEAD
commit="$(git_ -C "$stage" rev-parse HEAD)"
installed=""
[[ -d "$root$dir/.git" ]] && installed="$(git_ -C "$root$dir" rev-parse HEAD)"
built() { [[ -x "$1/node_modules/.bin/node" && -f "$1/web/build/index.html" ]]; }

code_changed=0
if [[ "$installed" == "$commit" ]] && { ((build == 0)) || built "$root$dir"; }; then
  say "$dir is at ${commit:0:12} already"
  rm -rf "$stage"
else
  if ((build)); then
    say "installing dependencies (npm ci) for ${commit:0:12}"
    if ! (cd "$stage" && npm ci --no-audit --no-fund --loglevel=error); then
      die "npm ci failed for $commit; the installed release is unchanged"
    fi
    say "building the web app"
    build_log="$(mktemp)"
    if ! (cd "$stage" && npm run build --silent -w web) >"$build_log" 2>&1; then
      tail -n 40 "$build_log" >&2
      die "the web build of $commit failed (its log: $build_log); the installed release is unchanged"
    fi
    rm -f "$build_log"
    if ! built "$stage"; then die "the build of $commit left no Node or web app in $stage"; fi
  fi
  if ((use_systemctl)) && systemctl is-active --quiet feedlab; then
    say "stopping feedlab to swap in the new release"
    systemctl stop feedlab
  fi
  rm -rf "$root$dir.previous"
  [[ -e "$root$dir" ]] && mv "$root$dir" "$root$dir.previous"
  mv "$stage" "$root$dir"
  say "$dir is at ${commit:0:12}${installed:+ (was ${installed:0:12})}"
  code_changed=1
fi
# Node's compile cache (bin/node-settings.mjs) is the one place under DIR the service writes.
mkdir -p "$root$dir/.cache"
own -R feedlab:feedlab "$root$dir/.cache"

# 4. The data folder, and the settings file: written once, with a generated admin password.
mkdir -p "$root$data_dir" "$root$data_dir/backups"
own feedlab:feedlab "$root$data_dir" "$root$data_dir/backups"
chmod 750 "$root$data_dir"
password=""
if [[ -f "$root$env_file" ]]; then
  say "keeping $env_file"
else
  password="$(head -c 24 /dev/urandom | base64 | tr -d '+/=')"
  mkdir -p "$(dirname "$root$env_file")"
  (
    umask 077
    cat >"$root$env_file" <<EOF
# Feedlab's settings on this server, one NAME=value a line, no quotes (README, "Configuration").
# deploy/install.sh wrote this file once and never rewrites it: edit it, then
# \`systemctl restart feedlab\`. A line here overrides the service's own settings
# (HOST, PORT, FEEDLAB_DATA_DIR, FEEDLAB_PUBLIC_URL, FEEDLAB_TRUST_PROXY in $unit_file).

# The first admin, created at the first start when there is none: a password changed in the
# console afterwards is not written back here, and this line is then unused.
FEEDLAB_ADMIN_USERNAME=admin
FEEDLAB_ADMIN_PASSWORD=$password
# 1: seed a demo study at the first start.
FEEDLAB_DEMO=0
# A bearer token for Prometheus' scrapes of /metrics, 16 characters or more (docs/deploy.md).
# FEEDLAB_METRICS_TOKEN=
EOF
  )
  say "wrote $env_file"
fi

# Writes stdin to a file (under --root) when its content differs; sets `wrote` to 1 when it did.
wrote=0
put() {
  local file="$root$1" mode="$2" tmp
  wrote=0
  tmp="$(mktemp)"
  cat >"$tmp"
  if [[ -f "$file" ]] && cmp -s "$tmp" "$file"; then
    rm -f "$tmp"
    return 0
  fi
  mkdir -p "$(dirname "$file")"
  install -m "$mode" "$tmp" "$file"
  rm -f "$tmp"
  wrote=1
  say "wrote $1"
}

# 5. The service. Environment= lines are this script's; the settings file overrides them.
put "$unit_file" 644 <<EOF
# Feedlab, written by deploy/install.sh, which rewrites it on every run: settings of your own go in
# $env_file.
[Unit]
Description=Feedlab: user studies on video feeds
Documentation=file://$dir/docs/deploy.md
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
User=feedlab
Group=feedlab
WorkingDirectory=$dir
Environment=NODE_ENV=production
Environment=HOST=127.0.0.1
Environment=PORT=$port
Environment=FEEDLAB_DATA_DIR=$data_dir
Environment=FEEDLAB_PUBLIC_URL=https://$domain
Environment=FEEDLAB_TRUST_PROXY=1
EnvironmentFile=$env_file
# The project's Node 24 (its \`node\` dependency); the launcher adds the server's V8 settings.
ExecStart=$dir/node_modules/.bin/node $dir/bin/feedlab.mjs start
Restart=on-failure
RestartSec=5
# Requests in flight finish and the embedded database closes before systemd kills the process.
TimeoutStopSec=60
NoNewPrivileges=true
PrivateTmp=true
ProtectHome=true
ProtectSystem=full

[Install]
WantedBy=multi-user.target
EOF
unit_changed=$wrote

# 6. Caddy: the repo's Caddyfile, for this domain, in front of 127.0.0.1:PORT.
put "$caddy_dropin" 644 <<EOF
# Written by Feedlab's deploy/install.sh, which rewrites it on every run: what the Caddyfile
# $dir/deploy/caddy/Caddyfile reads.
[Service]
Environment=FEEDLAB_SITE=$domain
Environment=FEEDLAB_UPSTREAMS=127.0.0.1:$port
EOF
caddy_changed=$wrote
marker="# Written by Feedlab's deploy/install.sh"
if [[ -f "$root$caddy_file" ]] && ! grep -qF "$marker" "$root$caddy_file"; then
  kept="$caddy_file.before-feedlab.$(date +%Y%m%d%H%M%S)"
  cp -p "$root$caddy_file" "$root$kept"
  say "kept the Caddyfile that was there as $kept"
fi
put "$caddy_file" 644 <<EOF
$marker, which rewrites it on every run. The site is
# $dir/deploy/caddy/Caddyfile; its domain and Feedlab's port come from
# $caddy_dropin.
import $dir/deploy/caddy/Caddyfile
EOF
if ((wrote)); then caddy_changed=1; fi

# 7. The CLI as the service runs it: its user, its settings.
put "$cli_file" 755 <<EOF
#!/usr/bin/env bash
# \`feedlab COMMAND\` as the service runs it: as the user feedlab, with the service's settings and
# $env_file (written by Feedlab's deploy/install.sh, which rewrites it on every run).
# Run it as root, with files the user feedlab can read and write: \`feedlab backup $data_dir/backups/FILE\`.
set -euo pipefail
export NODE_ENV=production HOST=127.0.0.1 PORT=$port FEEDLAB_DATA_DIR=$data_dir
export FEEDLAB_PUBLIC_URL=https://$domain FEEDLAB_TRUST_PROXY=1
while IFS= read -r line || [[ -n "\$line" ]]; do
  if [[ "\$line" =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; then export "\${line?}"; fi
done <$env_file
exec runuser -u feedlab -- $dir/node_modules/.bin/node $dir/bin/feedlab.mjs "\$@"
EOF

# 8. Start (or restart) both, and wait until Feedlab answers.
if ((use_systemctl)); then
  systemctl daemon-reload
  systemctl enable --quiet feedlab caddy
  if ((code_changed || unit_changed)) || [[ -n "$password" ]]; then
    say "restarting feedlab (it applies new migrations as it starts)"
    systemctl restart feedlab
  else
    systemctl start feedlab
  fi
  # A changed drop-in changes Caddy's environment, which only a restart gives the running process.
  if ((caddy_changed)); then
    systemctl restart caddy
  elif ((code_changed)); then
    systemctl reload-or-restart caddy
  else
    systemctl start caddy
  fi
  say "waiting for Feedlab to answer on 127.0.0.1:$port"
  for _ in $(seq 1 180); do
    curl -fsS -o /dev/null "http://127.0.0.1:$port/readyz" 2>/dev/null && break
    sleep 1
  done
  curl -fsS -o /dev/null "http://127.0.0.1:$port/readyz" ||
    die "Feedlab is not ready after 3 minutes: see \`journalctl -u feedlab\`"
fi

echo
say "Feedlab ${commit:0:12} is installed for https://$domain"
echo "  Admin console:  https://$domain/admin"
if [[ -n "$password" ]]; then
  echo "  Admin login:    admin / $password   (shown only now; also in $env_file)"
fi
echo "  Data folder:    $data_dir   (back up with: feedlab backup $data_dir/backups/FILE)"
echo "  Settings:       $env_file"
echo "  Logs:           journalctl -u feedlab -u caddy"
if ((!use_systemctl)); then
  echo "  Not started (--no-systemctl or --root): systemctl daemon-reload && systemctl enable --now feedlab caddy"
fi
echo "  DNS for $domain must point at this machine, with ports 80 and 443 open, for its certificate."
