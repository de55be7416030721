#!/usr/bin/env bash
# Fetch what the lab takes from Debian's newer suites, with a private apt
# configuration under build/apt (the system's apt setup is not touched):
#   - the newest linux-source-7.2 any of sid, forky or trixie-backports
#     serves, unpacked once into build/base/ (skipped with KERNEL_SRC=);
#   - virtme-ng, installed when vng is missing.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

APT=$BUILD/apt
DL=$BUILD/dl
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SERIES=${BASE_SERIES:-7.2}

mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$DL"
: >"$APT/status"
{
	for suite in sid forky trixie-backports; do
		echo "deb [signed-by=$KEYRING] $MIRROR $suite main"
	done
} >"$APT/sources.list"

apt_opts=(
	-o "Dir::Etc::SourceList=$APT/sources.list"
	-o "Dir::Etc::SourceParts=/dev/null"
	-o "Dir::State::Lists=$APT/lists"
	-o "Dir::State::status=$APT/status"
	-o "Dir::Cache=$APT/cache"
	-o "APT::Sandbox::User=root"
	-o "Debug::NoLocking=1"
)

refresh_lists() {
	# once a day is plenty
	if [[ -z $(find "$APT/lists" -maxdepth 1 -name '*_Packages' -mmin -1440 2>/dev/null) ]]; then
		step "updating the private package lists (sid, forky, trixie-backports; a few seconds)"
		apt-get "${apt_opts[@]}" -q update >"$BUILD/apt-update.log" 2>&1 ||
			{ tail -n 20 "$BUILD/apt-update.log" >&2; die "apt-get update failed"; }
	fi
}

# newest version of a package across the listed suites
newest() {
	apt-cache "${apt_opts[@]}" madison "$1" | awk -F'|' '{gsub(/ /, "", $2); print $2}' |
		sort -V | tail -n 1
}

fetch_deb() {	# package version -> path of the .deb in $DL
	local pkg=$1 ver=$2 deb
	deb=$(find "$DL" -maxdepth 1 -name "${pkg}_${ver//:/%3a}_*.deb" | head -n 1)
	if [[ -z $deb ]]; then
		(cd "$DL" && apt-get "${apt_opts[@]}" -q download "$pkg=$ver" >"$BUILD/apt-download.log" 2>&1) ||
			{ tail -n 20 "$BUILD/apt-download.log" >&2; die "cannot download $pkg $ver"; }
		deb=$(find "$DL" -maxdepth 1 -name "${pkg}_${ver//:/%3a}_*.deb" | head -n 1)
	fi
	echo "$deb"
}

fetch_vng() {
	command -v vng >/dev/null && return 0
	refresh_lists
	local ver deb
	ver=$(newest virtme-ng)
	[[ -n $ver ]] || die "no virtme-ng in the private suites"
	deb=$(fetch_deb virtme-ng "$ver")
	(( EUID == 0 )) || die "virtme-ng missing; run as root: apt-get install -y $deb"
	step "installing virtme-ng $ver"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$deb" \
		>"$BUILD/apt-vng.log" 2>&1 || { tail -n 20 "$BUILD/apt-vng.log" >&2; die "virtme-ng install failed"; }
}

fetch_base() {
	local pkg=linux-source-$SERIES ver deb src=$BUILD/base
	if [[ -f $src/VERSION && -d $src/linux ]]; then
		log "base source cached: $(cat "$src/VERSION")"
		return 0
	fi
	refresh_lists
	ver=$(newest "$pkg")
	[[ -n $ver ]] || die "no $pkg in sid, forky or trixie-backports"
	step "downloading $pkg $ver (about 160 MB)"
	deb=$(fetch_deb "$pkg" "$ver")
	step "unpacking $pkg $ver (about half a minute)"
	rm -rf "$src.tmp"
	mkdir -p "$src.tmp"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$src.tmp" --wildcards "./usr/src/$pkg.tar.xz"
	tar -xf "$src.tmp/usr/src/$pkg.tar.xz" -C "$src.tmp"
	mv "$src.tmp/$pkg" "$src.tmp/linux"
	rm -rf "$src.tmp/usr"
	echo "$pkg $ver" >"$src.tmp/VERSION"
	rm -rf "$src"
	mv "$src.tmp" "$src"
	log "base source: $pkg $ver"
}

case ${1:-all} in
vng) fetch_vng ;;
base) [[ -n ${KERNEL_SRC:-} ]] || fetch_base ;;
all) fetch_vng; [[ -n ${KERNEL_SRC:-} ]] || fetch_base ;;
*) die "usage: $0 [vng|base|all]" ;;
esac
