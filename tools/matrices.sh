#!/usr/bin/env bash
# The real-matrix suite: fetches the Debian packages that carry the matrices of
# tools/matrices.txt, checks each extracted file against its pinned SHA-256
# and converts it to Matrix Market (DIR/NAME.mtx, tools/mtx_convert.py).
#
#   tools/matrices.sh DIR
#
# apt runs on a private configuration under DIR/.apt (its own sources.list
# with deb and deb-src lines for this system's release, state and cache), so
# the system's apt setup and package lists are left as they are. Source
# packages come whole (apt-get source --download-only) and only the listed
# members are read out of their .orig tarball; binary ones by apt-get
# download. apt checks the archives against the signed release files, the
# manifest's checksum pins the extracted file itself.
#
# A matrix already in DIR is kept: a second run downloads nothing unless an
# entry is new (delete DIR/NAME.mtx to redo one). The downloads stay in
# DIR/.apt for the next new entry; deleting that folder costs only a fetch.
#
# TB_DEBIAN_MIRROR=URI takes the archive from URI instead of the one the
# system's sources name; TB_DEBIAN_RELEASE=CODENAME another release than the
# system's (the manifest pins bookworm's versions).
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: tools/matrices.sh DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1"
dir=$(cd "$1" && pwd)
manifest=$here/matrices.txt
say() { echo "tilebench matrices: $*" >&2; }
die() { say "$*"; exit 1; }

entries=$(python3 "$here/matrices_manifest.py" list "$manifest") || exit 1
pending=$(while IFS=$'\t' read -r name rest; do
  [ -f "$dir/$name.mtx" ] || printf '%s\t%s\n' "$name" "$rest"
done <<<"$entries")
total=$(wc -l <<<"$entries")
if [ -z "$pending" ]; then
  say "all $total matrices already in $dir"
  exit 0
fi
say "$(wc -l <<<"$pending") of $total matrices to fetch into $dir"

# The system's release and the archive its sources name for it (one-line
# .list or deb822 .sources), so that nothing here names a host.
# shellcheck disable=SC1091 # the system's own file
release=${TB_DEBIAN_RELEASE:-$(. /etc/os-release && echo "${VERSION_CODENAME:-}")}
[ -n "$release" ] || die "no VERSION_CODENAME in /etc/os-release: give TB_DEBIAN_RELEASE=CODENAME"
system_mirror() {
  {
    awk -v c="$release" '$1 == "deb" {
        i = 2
        if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
        if ($(i + 1) == c) { print $i; exit }
      }' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null
    awk -v c="$release" 'BEGIN { RS = ""; FS = "\n" } {
        uri = ""; deb = 0; ok = 0
        for (k = 1; k <= NF; k++) {
          if ($k ~ /^Types:/ && $k ~ /[ \t]deb([ \t]|$)/) deb = 1
          if ($k ~ /^URIs:/) { split($k, u, /[ \t]+/); uri = u[2] }
          if ($k ~ /^Suites:/) { n = split($k, s, /[ \t]+/); for (x = 2; x <= n; x++) if (s[x] == c) ok = 1 }
        }
        if (deb && ok && uri != "") { print uri; exit }
      }' /etc/apt/sources.list.d/*.sources 2>/dev/null
  } | head -1
}
mirror=${TB_DEBIAN_MIRROR:-$(system_mirror)}
[ -n "$mirror" ] || die "no archive for $release in /etc/apt/sources*: give TB_DEBIAN_MIRROR=URI"

apt_dir=$dir/.apt
mkdir -p "$apt_dir"/etc/sources.list.d "$apt_dir"/etc/preferences.d "$apt_dir"/state/lists/partial \
  "$apt_dir"/cache/archives/partial "$apt_dir"/src "$apt_dir"/deb
signed=""
[ ! -f /usr/share/keyrings/debian-archive-keyring.gpg ] || signed="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
printf 'deb %s%s %s main\ndeb-src %s%s %s main\n' "$signed" "$mirror" "$release" "$signed" "$mirror" "$release" \
  >"$apt_dir/etc/sources.list"
apt=(-o "Dir::Etc::SourceList=$apt_dir/etc/sources.list" -o "Dir::Etc::SourceParts=$apt_dir/etc/sources.list.d"
  -o "Dir::Etc::Preferences=$apt_dir/etc/preferences" -o "Dir::Etc::PreferencesParts=$apt_dir/etc/preferences.d"
  -o "Dir::State=$apt_dir/state" -o "Dir::Cache=$apt_dir/cache" -o "APT::Get::List-Cleanup=0")
# As root apt downloads as the _apt user, who cannot enter a cache in root's
# home; downloading as root is what apt falls back to anyway, minus the warning.
[ "$(id -u)" -ne 0 ] || apt+=(-o "APT::Sandbox::User=root")

start=$SECONDS
say "package lists of $release from $mirror"
apt-get "${apt[@]}" -qq update || die "apt-get update failed (see above)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=()
# One package at a time: one download, one pass over its tarball.
for pkg in $(cut -f2,3,4 <<<"$pending" | sort -u | tr '\t' '|'); do
  IFS='|' read -r kind name version <<<"$pkg"
  t0=$SECONDS
  rows=$(awk -F'\t' -v k="$kind" -v p="$name" -v v="$version" '$2 == k && $3 == p && $4 == v' <<<"$pending")
  mapfile -t members < <(cut -f5 <<<"$rows" | sort -u)
  out=$tmp/$name
  mkdir -p "$out"
  if [ "$kind" = src ]; then
    (cd "$apt_dir/src" && apt-get "${apt[@]}" -qq source --download-only "$name=$version") ||
      die "could not fetch source package $name $version (is it still in $release?)"
    dsc=$apt_dir/src/${name}_${version#*:}.dsc # file names drop the epoch
    [ -f "$dsc" ] || die "$name $version: apt-get fetched no $(basename "$dsc")"
    tarball=$(awk '/^Files:/ { f = 1; next } /^[^ ]/ { f = 0 }
      f && $3 ~ /\.orig\.tar\.[a-z0-9]+$/ { print $3 }' "$dsc" | head -1)
    [ -n "$tarball" ] || die "$name $version: no .orig tarball named in its .dsc"
    tar -xf "$apt_dir/src/$tarball" -C "$out" "${members[@]}" ||
      die "$name $version: $tarball lacks a member listed in the manifest"
  else
    deb=("$apt_dir/deb/${name}_${version/:/%3a}"_*.deb) # apt-get download's name for it
    if [ ! -f "${deb[0]}" ]; then
      (cd "$apt_dir/deb" && apt-get "${apt[@]}" -qq download "$name=$version") ||
        die "could not fetch binary package $name $version (is it still in $release?)"
      deb=("$apt_dir/deb/${name}_${version/:/%3a}"_*.deb)
    fi
    dpkg-deb --fsys-tarfile "${deb[0]}" | tar -x -C "$out" "${members[@]/#/./}" ||
      die "$name $version: the package lacks a file listed in the manifest"
  fi
  while IFS=$'\t' read -r mat _ _ _ path fmt sha; do
    file=$out/$path
    if ! echo "$sha  $file" | sha256sum -c --quiet - >/dev/null 2>&1; then
      say "$mat: $path from $name $version does not match its pinned SHA-256 (got $(sha256sum "$file" | cut -d' ' -f1)): not converted"
      failed+=("$mat")
      continue
    fi
    python3 "$here/mtx_convert.py" "$fmt" "$file" "$dir/$mat.mtx" \
      --comment "$mat: $path of Debian $kind package $name $version, as $fmt (tilebench: tools/matrices.sh)" >/dev/null ||
      { failed+=("$mat"); continue; }
    say "$mat.mtx from $name $version ($fmt)"
  done <<<"$rows"
  rm -rf "$out"
  say "  $name: $((SECONDS - t0)) s"
done

say "done in $((SECONDS - start)) s: $(find "$dir" -maxdepth 1 -name '*.mtx' | wc -l) matrices in $dir, $(du -sh --exclude=.apt "$dir" | cut -f1) (downloads in .apt: $(du -sh "$apt_dir" | cut -f1))"
[ ${#failed[@]} -eq 0 ] || die "FAILED: ${failed[*]}"
say "their shapes: python3 tools/mtx_stats.py --table tools/matrices.txt $dir"
