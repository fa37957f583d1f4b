#!/usr/bin/env bash
# Coverage-guided fuzzing of the Gmsh reader (ASCII and binary) and of the case files, with
# libFuzzer through cargo-fuzz (nightly Rust). Seeds each target's corpus from the committed meshes
# and cases, runs RUNS executions per target (default 1 000 000) and prints, per target, the
# executions done and the crashes found (saved under fuzz/artifacts/<target>/; each becomes a test).
#
#   rustup toolchain install nightly && cargo install cargo-fuzz   # once
#   fuzz/run.sh [RUNS]                      # TARGETS="case" fuzz/run.sh: some targets only
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1000000}
mkdir -p fuzz/corpus/gmsh_ascii fuzz/corpus/gmsh_binary fuzz/corpus/case
for f in meshes/*.msh; do
    case $f in
        *.bin.msh) tail -c +41 "$f" > "fuzz/corpus/gmsh_binary/$(basename "$f")" ;;
        *) [ "$(stat -c %s "$f")" -lt 200000 ] && cp "$f" fuzz/corpus/gmsh_ascii/ ;;
    esac
done
cp cases/*.toml fuzz/corpus/case/
targets=${TARGETS:-gmsh_ascii gmsh_binary case}
for target in $targets; do
    log=fuzz/$target.log
    # -rss_limit_mb: a reader that allocates beyond its input shows as a crash; -timeout: a hang.
    # A case may ask for any amount of work: its memory budget (TUMBLE_MEMORY_LIMIT, well below
    # the RSS limit) makes large lattices errors, and a body's lattice within it takes seconds.
    timeout=10
    [ "$target" = case ] && timeout=60
    if TUMBLE_MEMORY_LIMIT=256M cargo +nightly fuzz run "$target" -- -runs="$runs" -rss_limit_mb=2048 \
        -timeout=$timeout -max_len=262144 >"$log" 2>&1; then status=ok; else status=CRASH; fi
    execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
    echo "$target: $execs executions, $status ($(ls fuzz/artifacts/$target 2>/dev/null | wc -l) artifacts)"
done
