#!/usr/bin/env bash
# Make sure the Debian packages a lab step needs are installed.
# Usage: deps.sh GROUP...   (groups: fetch kernel vm perf selftests lint gates man-pages bench mem debug arm64)
# As root, missing packages are installed with apt-get; otherwise the
# exact apt-get line is printed and the script fails.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

declare -A GROUP=(
	[fetch]="ca-certificates xz-utils debian-archive-keyring git"
	[kernel]="gcc make bc flex bison libelf-dev libssl-dev ccache cpio python3 perl kmod python3-ply python3-git"
	[vm]="qemu-system-x86 udev busybox-static util-linux-extra kbd file iproute2 python3-argcomplete python3-requests trace-cmd"
	[perf]="libdw-dev libtraceevent-dev libzstd-dev libcap-dev libnuma-dev python3-dev python3-setuptools libslang2-dev libunwind-dev libbabeltrace-dev binutils-dev systemtap-sdt-dev libperl-dev zlib1g-dev liblzma-dev pkg-config"
	[selftests]="rsync"
	[lint]="shellcheck"
	[gates]="sparse python3-sphinx python3-yaml"
	[man-pages]="groff-base man-db"
	[bench]="python3-matplotlib"
	[mem]="valgrind"
	[debug]="clang libclang-rt-dev python3"
	[arm64]="gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm"
)

want=()
for g in "$@"; do
	[[ -n ${GROUP[$g]+x} ]] || die "unknown package group '$g'"
	read -r -a pkgs <<<"${GROUP[$g]}"
	want+=("${pkgs[@]}")
done

missing=()
for p in "${want[@]}"; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed'; then
		missing+=("$p")
	fi
done
(( ${#missing[@]} )) || exit 0

line="apt-get install -y --no-install-recommends ${missing[*]}"
if (( EUID != 0 )); then
	die "missing Debian packages; run as root: $line"
fi
step "installing ${#missing[@]} Debian packages: ${missing[*]} (a minute or two)"
export DEBIAN_FRONTEND=noninteractive
run_logged "$BUILD/apt-install.log" sh -c "apt-get update -q && $line"
