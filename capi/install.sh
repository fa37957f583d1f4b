#!/usr/bin/env bash
# Builds the C ABI and installs it under PREFIX (default /usr/local): lib/libtumble_c.so and .a,
# include/tumble.h, lib/pkgconfig/tumble.pc. Then a C or C++ program builds with
#   cc prog.c $(pkg-config --cflags --libs tumble)
# (with PKG_CONFIG_PATH=PREFIX/lib/pkgconfig for a prefix pkg-config does not search, and
# -Wl,-rpath,PREFIX/lib or LD_LIBRARY_PATH for a library directory the loader does not search).
set -euo pipefail
prefix="$(realpath -m "${1:-/usr/local}")"
cd "$(dirname "$0")/.."
# TUMBLE_LIB_DIR: libraries built already (the tests give theirs); otherwise built here.
if [ -n "${TUMBLE_LIB_DIR:-}" ]; then
    target="$TUMBLE_LIB_DIR"
else
    cargo build --release --quiet -p tumble-capi
    target="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')/release"
fi
version="$(sed -n 's/^version = "\(.*\)"/\1/p' capi/Cargo.toml | head -n 1)"
install -d "$prefix/lib/pkgconfig" "$prefix/include"
install -m 644 include/tumble.h "$prefix/include/"
install -m 755 "$target/libtumble_c.so" "$prefix/lib/"
install -m 644 "$target/libtumble_c.a" "$prefix/lib/"
sed -e "s|@PREFIX@|$prefix|" -e "s|@VERSION@|$version|" capi/tumble.pc.in > "$prefix/lib/pkgconfig/tumble.pc"
echo "installed tumble $version (C ABI) under $prefix"
