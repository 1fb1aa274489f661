#!/usr/bin/env bash
# dist.sh: `make dist`. Builds the release binary once (RELEASE_FLAGS: the Swift runtime linked
# in), installs it with its completions and man page into a staging tree, strips it, adds the
# licence, the docs and the service files, and packs dist/attach-VERSION-linux-ARCH.tar.gz with
# its SHA-256 beside it. The archive unpacks into a prefix (bin/, share/): `tar -C /usr/local
# --strip-components=1 -xzf …` installs it. It needs, on the machine that runs it, what
# docs/operations.md "Installing" lists (glibc 2.36+, libsqlite3, libwebpmux3; libvips for
# thumbnails).
set -euo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
arch=$(uname -m)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

tree="$stage/attach"
SWIFT="$swift" scripts/install.sh release "$tree" >&2
version=$("$tree/bin/attach" --version | cut -d' ' -f1)
name="attach-$version-linux-$arch"

before=$(stat -c %s "$tree/bin/attach")
strip --strip-all "$tree/bin/attach"
after=$(stat -c %s "$tree/bin/attach")
"$tree/bin/attach" --version >/dev/null  # still runs once stripped

install -d "$tree/share/doc/attach" "$tree/share/attach"
install -m 0644 LICENSE README.md CHANGELOG.md SECURITY.md "$tree/share/doc/attach/"
install -m 0644 docs/user-guide.md docs/operations.md docs/scaling-out.md docs/api.md docs/development.md "$tree/share/doc/attach/"
install -m 0644 contrib/attach.service contrib/nginx.conf contrib/attach.conf "$tree/share/attach/"
mv "$tree" "$stage/$name"

mkdir -p dist
tar -C "$stage" --owner=0 --group=0 --numeric-owner -czf "dist/$name.tar.gz" "$name"
(cd dist && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
echo "dist/$name.tar.gz: $(du -h "dist/$name.tar.gz" | cut -f1) (attach stripped from $((before >> 20)) to $((after >> 20)) MiB)"
