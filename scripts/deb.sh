#!/usr/bin/env bash
# deb.sh: `make deb`. Builds the release binary once (scripts/install.sh into a staging tree,
# prefix /usr), strips it, and packs dist/attach_VERSION_ARCH.deb:
#
#   /usr/bin/attach                         the binary (Swift runtime linked in)
#   /usr/share/{bash-completion,zsh,fish}   completions; /usr/share/man/man1/attach.1.gz
#   /usr/share/doc/attach/                  copyright (LICENSE), changelog.gz, README, SECURITY and
#                                           the manual (docs/: user-guide, operations, scaling-out,
#                                           api, development)
#   /usr/share/attach/nginx.conf            the reverse-proxy site, to copy and edit
#   /lib/systemd/system/attach.service      contrib/attach.service, run as the system user
#                                           `attach` (not a dynamic one) from /usr/bin
#   /etc/attach/attach.conf                 contrib/attach.conf, a conffile (root, 0600)
#
# The maintainer scripts (packaging/debian/) make the system user `attach`, /var/lib/attach
# (0700, the user's) and a random /etc/attach/token on first install, reload systemd and
# restart the service on upgrade, and never touch the store: an upgrade keeps it, a purge
# leaves it. Depends: computed by dpkg-shlibdeps from the binary's libraries, plus libvips42
# (loaded with dlopen at the first thumbnail, so dpkg-shlibdeps cannot see it) and adduser.
#
#   VERSION_SUFFIX=+1  appends to the version (a rebuilt package of the same release)
#   PACKAGE_DIR=DIR    where the package goes (dist unless told otherwise)
#   PACKAGE_CONFIGURATION=debug  packages the debug build instead of the release one, linked the
#                      same way (the Swift runtime inside, --static-swift-stdlib), so that
#                      `make test` checks every file, script and the unit of the package without a
#                      release build from nothing (about 25 minutes on two cores, against about 4
#                      for this one); only the binary's optimisation differs. Never a package to
#                      ship.
set -euo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
chmod 0755 "$stage"

root="$stage/root"
configuration=${PACKAGE_CONFIGURATION:-release}
case "$configuration" in
release) SWIFT="$swift" scripts/install.sh release "$root/usr" >&2 ;;
# A debug build of its own (.build/static): relinking the usual one with --static-swift-stdlib
# misses the static Foundation's own libraries (CoreFoundation, _CFXMLInterface, xml2), which only
# objects compiled for static linking name. About 4 minutes from nothing on two cores. Without
# debug information (-gnone): nobody debugs a test package, and writing and linking it is much of
# an unoptimised build's time.
debug) SWIFT="$swift" DEBUG_FLAGS="--static-swift-stdlib --scratch-path .build/static -Xswiftc -gnone -Xcc -g0 -Xcxx -g0" scripts/install.sh debug "$root/usr" >&2 ;;
*) echo "deb.sh: PACKAGE_CONFIGURATION is release or debug, not $configuration" >&2; exit 1 ;;
esac
release=$("$root/usr/bin/attach" --version | cut -d' ' -f1)
version="$release${VERSION_SUFFIX:-}"
arch=$(dpkg --print-architecture)
strip --strip-all "$root/usr/bin/attach"
"$root/usr/bin/attach" --version >/dev/null # still runs once stripped

# Debian's places: zsh completions in vendor-completions, man pages and docs compressed.
mkdir -p "$root/usr/share/zsh/vendor-completions"
mv "$root/usr/share/zsh/site-functions/_attach" "$root/usr/share/zsh/vendor-completions/_attach"
rmdir "$root/usr/share/zsh/site-functions"
gzip -9n "$root/usr/share/man/man1/attach.1"
install -d -m 0755 "$root/usr/share/doc/attach" "$root/usr/share/attach" "$root/lib/systemd/system" "$root/etc/attach"
install -m 0644 LICENSE "$root/usr/share/doc/attach/copyright"
gzip -9n <CHANGELOG.md >"$root/usr/share/doc/attach/changelog.gz"
install -m 0644 README.md SECURITY.md "$root/usr/share/doc/attach/"
install -m 0644 docs/user-guide.md docs/operations.md docs/scaling-out.md docs/api.md docs/development.md "$root/usr/share/doc/attach/"
install -m 0644 contrib/nginx.conf "$root/usr/share/attach/nginx.conf"
install -m 0600 contrib/attach.conf "$root/etc/attach/attach.conf"
# The unit as the package runs it: the binary in /usr/bin, the package's system user (which
# owns /var/lib/attach, so root's admin commands become it: docs/operations.md "As a service").
sed -e 's|/usr/local/bin/attach|/usr/bin/attach|' \
  -e 's|^DynamicUser=yes$|User=attach\nGroup=attach|' \
  -e 's|^# Hardening: its own throwaway user, nothing writable but the store.$|# Hardening: the package'"'"'s system user, nothing writable but the store.|' \
  contrib/attach.service >"$root/lib/systemd/system/attach.service"
chmod 0644 "$root/lib/systemd/system/attach.service"
grep -q '^User=attach$' "$root/lib/systemd/system/attach.service" || { echo "deb.sh: the unit kept DynamicUser" >&2; exit 1; }

# Depends: the shared libraries the binary links, as dpkg-shlibdeps names their packages.
mkdir -p "$stage/shlibs/debian"
printf 'Source: attach\n\nPackage: attach\nArchitecture: any\n' >"$stage/shlibs/debian/control"
libraries=$(cd "$stage/shlibs" && dpkg-shlibdeps -O "$root/usr/bin/attach" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$libraries" ] || { echo "deb.sh: dpkg-shlibdeps found no libraries" >&2; exit 1; }

install -d -m 0755 "$root/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<EOF
Package: attach
Version: $version
Architecture: $arch
Maintainer: AttachmentStore developers <attach@localhost>
Installed-Size: $size
Depends: $libraries, libvips42, adduser
Recommends: ffmpeg, poppler-utils
Section: web
Priority: optional
Homepage: https://github.com/attachmentstore/attachmentstore
Description: notes with large photo attachments, served and synced
 attach keeps notes with ordered attachments: originals byte for byte in
 content-addressed files, references in SQLite or PostgreSQL, thumbnails made
 in the background. attach serve is its JSON API and web UI (the attach
 systemd unit, enabled and started on install), and peers sync records at once
 and bytes on demand.
EOF
echo /etc/attach/attach.conf >"$root/DEBIAN/conffiles"
for script in postinst prerm postrm; do
  install -m 0755 "packaging/debian/$script" "$root/DEBIAN/$script"
done

package_dir=${PACKAGE_DIR:-dist}
mkdir -p "$package_dir"
package="$package_dir/attach_${version}_${arch}.deb"
# A package to ship is compressed with xz; a test package of the debug build (about 150 MB
# unpacked) with fast gzip: xz spent some 50 s on each of the two `make test` builds.
compression=(-Zxz)
[ "$configuration" = debug ] && compression=(-Zgzip -z1)
dpkg-deb --root-owner-group "${compression[@]}" --build "$root" "$package" >&2
echo "$package: $(du -h "$package" | cut -f1), Depends: $libraries, libvips42, adduser"
