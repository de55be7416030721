#!/usr/bin/env bash
# Fetch what the lab takes from Debian's newer suites, with a private apt
# configuration in the lab's cache (the system's apt setup is not touched):
#   - the newest linux-source-X.Y any of sid, forky or trixie-backports
#     serves (BASE_SERIES=X.Y pins a series), unpacked once into
#     $CACHE/base/ (skipped with KERNEL_SRC=);
#   - virtme-ng, installed when vng is missing;
#   - (man-pages) the newest source package "manpages" (the man-pages
#     project) they serve, unpacked once into $CACHE/man-pages/ as a git
#     repository with one commit: the base of the man-pages series.
# The Debian mirror is the one this machine's apt already uses (its
# sources' URIs), or DEBIAN_MIRROR.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

APT=$CACHE/apt
DL=$CACHE/dl
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

# The first URI of Debian's main archive in the machine's apt sources:
# deb822 .sources files and one-line .list files; the security archive
# and other vendors' repositories are passed over.
machine_mirror() {
	shopt -s nullglob
	{
		awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' /etc/apt/sources.list.d/*.sources
		sed -n 's/\[[^]]*\]//; s/^deb[[:space:]]\{1,\}\([^[:space:]]*\).*/\1/p' \
			/etc/apt/sources.list /etc/apt/sources.list.d/*.list
	} 2>/dev/null | grep -E '/debian/?$' | sed -n '1s:/*$::p' || true
}
MIRROR=${DEBIAN_MIRROR:-$(machine_mirror)}
[[ -n $MIRROR ]] || die "no Debian archive in /etc/apt/sources*: set DEBIAN_MIRROR=<archive URI>"

# one writer at a time; a second tree waits, then finds the work done
exec 9>"$CACHE/fetch.lock"
flock 9

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

# Source packages come from a list of their own (deb-src lines, lists in
# $APT/src-lists): the kernel's fetch does not download the Sources indexes.
mkdir -p "$APT/src-lists/partial"
{
	for suite in sid forky trixie-backports; do
		echo "deb-src [signed-by=$KEYRING] $MIRROR $suite main"
	done
} >"$APT/src-sources.list"
src_opts=(
	"${apt_opts[@]}"
	-o "Dir::Etc::SourceList=$APT/src-sources.list"
	-o "Dir::State::Lists=$APT/src-lists"
)

refresh_lists() {
	# once a day is plenty
	if [[ -z $(find "$APT/lists" -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null) ]]; then
		step "updating the private package lists (sid, forky, trixie-backports; a few seconds)"
		apt-get "${apt_opts[@]}" -q update >"$APT/update.log" 2>&1 ||
			{ tail -n 20 "$APT/update.log" >&2; die "apt-get update failed"; }
	fi
}

# newest version of a package across the listed suites
newest() {
	apt-cache "${apt_opts[@]}" madison "$1" | awk -F'|' '{gsub(/ /, "", $2); print $2}' |
		sort -V | tail -n 1
}

refresh_src_lists() {
	if [[ -z $(find "$APT/src-lists" -maxdepth 1 -name '*_Sources*' -mmin -1440 2>/dev/null) ]]; then
		step "updating the private source lists (sid, forky, trixie-backports; a few seconds)"
		apt-get "${src_opts[@]}" -q update >"$APT/src-update.log" 2>&1 ||
			{ tail -n 20 "$APT/src-update.log" >&2; die "apt-get update (deb-src) failed"; }
	fi
}

fetch_deb() {	# package version -> path of the .deb in $DL
	local pkg=$1 ver=$2 deb
	deb=$(find "$DL" -maxdepth 1 -name "${pkg}_${ver//:/%3a}_*.deb" | head -n 1)
	if [[ -z $deb ]]; then
		(cd "$DL" && apt-get "${apt_opts[@]}" -q download "$pkg=$ver" >"$APT/download.log" 2>&1) ||
			{ tail -n 20 "$APT/download.log" >&2; die "cannot download $pkg $ver"; }
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
		>"$APT/vng.log" 2>&1 || { tail -n 20 "$APT/vng.log" >&2; die "virtme-ng install failed"; }
}

# The unpacked source as a git repository with one commit, "base": every
# clone's tree starts from it with a local clone instead of hashing the
# whole source again. Fixed identity and dates give the same commit on
# every machine.
base_repo() {	# dir what
	local dir=$1 what=$2
	# Debian's linux-source ignores every top-level path; new files
	# must be addable in the tree.
	sed -i '/^# Debian packaging: ignore everything/,$d' "$dir/.gitignore"
	sed -i -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$dir/.gitignore"
	sed -i '${/^#$/d}' "$dir/.gitignore"
	rm -rf "$dir/.git"
	git -C "$dir" init -q -b base
	git -C "$dir" add -A -f
	GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
		git -C "$dir" -c user.name=base -c user.email=base@localhost commit -q \
		-m "Base: $what" \
		-m "Debian's top-level ignore-everything rule is dropped from .gitignore."
}

# The newest linux-source-X.Y the private suites serve (BASE_SERIES pins
# X.Y): the series is rebased onto it when Debian moves on.
newest_source_pkg() {
	if [[ -n ${BASE_SERIES:-} ]]; then
		echo "linux-source-$BASE_SERIES"
		return
	fi
	apt-cache "${apt_opts[@]}" pkgnames linux-source- |
		grep -E '^linux-source-[0-9]+\.[0-9]+$' | sort -V | tail -n 1
}

fetch_base() {
	local pkg ver deb src=$CACHE/base
	if [[ -f $src/VERSION && -d $src/linux/.git ]]; then
		log "base source cached: $(cat "$src/VERSION")"
		return 0
	fi
	if [[ -f $src/VERSION && -d $src/linux ]]; then
		step "committing the cached $(cat "$src/VERSION") as the base (about a minute)"
		base_repo "$src/linux" "$(cat "$src/VERSION")"
		return 0
	fi
	refresh_lists
	pkg=$(newest_source_pkg)
	[[ -n $pkg ]] || die "no linux-source-X.Y in sid, forky or trixie-backports"
	ver=$(newest "$pkg")
	[[ -n $ver ]] || die "no $pkg in sid, forky or trixie-backports"
	step "downloading $pkg $ver (about 160 MB)"
	deb=$(fetch_deb "$pkg" "$ver")
	step "unpacking $pkg $ver and committing it as the base (one or two minutes)"
	rm -rf "$src.tmp"
	mkdir -p "$src.tmp"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$src.tmp" --wildcards "./usr/src/$pkg.tar.xz"
	tar -xf "$src.tmp/usr/src/$pkg.tar.xz" -C "$src.tmp"
	mv "$src.tmp/$pkg" "$src.tmp/linux"
	rm -rf "$src.tmp/usr"
	base_repo "$src.tmp/linux" "$pkg $ver"
	echo "$pkg $ver" >"$src.tmp/VERSION"
	rm -rf "$src"
	mv "$src.tmp" "$src"
	log "base source: $pkg $ver"
}

# The newest source package "manpages" as $CACHE/man-pages/man-pages, a
# git repository whose one commit (branch base) is the man/ tree of the
# upstream tarball (Debian's packaging left out); what was downloaded
# stays in $CACHE/man-pages/dl. A mirror that serves no sources (some
# proxies serve only binary packages) gives the same pages from the
# binary packages manpages and manpages-dev of that version: man/manN*/
# again, their symbolic links turned back into the project's .so link
# pages; the project's Makefile and lint set-up are then missing.
man_tree_from_debs() {	# dir deb...: man/ of the man-pages tree in dir
	local dir=$1 x m f t ext
	shift
	x=$(mktemp -d)
	for f in "$@"; do dpkg-deb -x "$f" "$x"; done
	m=$x/usr/share/man
	# in bulk: a process per page takes minutes on a slow machine
	find "$m" -path '*/man[0-9]/*.gz' -type f -exec gzip -d {} +
	while IFS=' ' read -r f t; do
		t=${t##*/}
		t=${t%.gz}
		printf '.so man%s/%s\n' "${t##*.}" "$t" >"${f%.gz}"
	done < <(find "$m" -path '*/man[0-9]/*.gz' -type l -printf '%p %l\n')
	find "$m" -path '*/man[0-9]/*.gz' -type l -delete
	for ext in $(find "$m" -path '*/man[0-9]/*' -type f -printf '%f\n' | sed 's/.*\.//' | sort -u); do
		mkdir -p "$dir/man/man$ext"
		find "$m" -path '*/man[0-9]/*' -type f -name "*.$ext" -exec mv -t "$dir/man/man$ext" {} +
	done
	rm -rf "$x"
}

fetch_man_pages() {
	local dst=$CACHE/man-pages ver dir orig from p deb debs=()
	if [[ -f $dst/VERSION && -d $dst/man-pages/.git ]]; then
		log "man-pages base cached: $(cat "$dst/VERSION")"
		return 0
	fi
	refresh_src_lists
	ver=$(apt-cache "${src_opts[@]}" showsrc manpages | sed -n 's/^Version: //p' | sort -V | tail -n 1)
	[[ -n $ver ]] || die "no source package manpages in sid, forky or trixie-backports"
	rm -rf "$dst/tmp"
	mkdir -p "$dst/dl" "$dst/tmp"
	orig=$(find "$dst/dl" -maxdepth 1 -name "manpages_${ver%-*}.orig.tar.*" ! -name '*.asc' | head -n 1)
	if [[ -z $orig ]]; then
		step "downloading the source package manpages $ver (about 2 MB)"
		(cd "$dst/dl" && apt-get "${src_opts[@]}" -q source --download-only "manpages=$ver" \
			>"$APT/src-download.log" 2>&1) || true
		orig=$(find "$dst/dl" -maxdepth 1 -name "manpages_${ver%-*}.orig.tar.*" ! -name '*.asc' | head -n 1)
	fi
	if [[ -n $orig ]]; then
		tar -xf "$orig" -C "$dst/tmp"
		dir=$(find "$dst/tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)
		from="the upstream tarball of Debian's source package manpages $ver"
	else
		log "the mirror does not serve the source of manpages $ver; taking its binary packages"
		refresh_lists
		for p in manpages manpages-dev; do
			deb=$(fetch_deb "$p" "$ver")
			[[ -n $deb ]] || die "cannot download $p $ver"
			debs+=("$deb")
		done
		dir=$dst/tmp/man-pages
		man_tree_from_debs "$dir" "${debs[@]}"
		from="man/ as Debian's binary packages manpages and manpages-dev $ver install it
(the mirror serves no source packages): /usr/share/man/manN/P.S.gz is
man/manS/P.S, and a symbolic link is the .so link page it was built from."
	fi
	[[ -d $dir/man/man2 ]] || die "manpages $ver gave no man/man2"
	rm -rf "$dir/.git"
	git -C "$dir" init -q -b base
	git -C "$dir" add -A -f
	GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
		git -C "$dir" -c user.name=base -c user.email=base@localhost commit -q \
		-m "Base: manpages $ver" -m "From $from"
	rm -rf "$dst/man-pages"
	mv "$dir" "$dst/man-pages"
	rm -rf "$dst/tmp"
	echo "manpages $ver" >"$dst/VERSION"
	log "man-pages base: manpages $ver"
}

case ${1:-all} in
vng) fetch_vng ;;
base) [[ -n ${KERNEL_SRC:-} ]] || fetch_base ;;
all) fetch_vng; [[ -n ${KERNEL_SRC:-} ]] || fetch_base ;;
man-pages) fetch_man_pages ;;
*) die "usage: $0 [vng|base|all|man-pages]" ;;
esac
