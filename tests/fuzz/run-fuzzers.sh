#!/bin/bash
# tests/fuzz/run-fuzzers.sh [-t SECONDS] [-b BUILD_DIR] [-n] [HARNESS...]
#
# Builds the libFuzzer harnesses (clang, AddressSanitizer +
# UndefinedBehaviorSanitizer, -Dfuzzing=true) in BUILD_DIR (default
# build-fuzz) and runs each for SECONDS (default 60, or $CP_FUZZ_SECONDS;
# -n builds them and runs none),
# starting from its seed corpus (tests/fuzz/corpus/NAME) and its saved
# crashes (tests/fuzz/crashes/NAME). New corpus entries and crashes go to
# tests/fuzz/findings/NAME/ (not committed). Exit status: non-zero when a
# harness crashed, leaked, timed out or failed to build; the crashing inputs
# are in tests/fuzz/findings/NAME/ (crash-*, leak-*, timeout-*, oom-*).
#
# A crash found this way is a bug: fix it, then save the input under
# tests/fuzz/crashes/NAME/ so that the test suite replays it from then on.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

seconds=${CP_FUZZ_SECONDS:-60}
build=build-fuzz
build_only=false
while getopts "t:b:nh" opt; do
    case $opt in
        t) seconds=$OPTARG ;;
        b) build=$OPTARG ;;
        n) build_only=true ;;
        *) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
    esac
done
shift $((OPTIND - 1))

all=(json-tokenizer chrome-reader protobuf xplane-reader source sidecar condition mcp)
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
    harnesses=("${all[@]}")
fi

if ! command -v clang >/dev/null; then
    echo "run-fuzzers.sh: clang is needed (apt-get install clang)" >&2
    exit 1
fi

if [ ! -f "$build/build.ninja" ]; then
    CC=clang meson setup "$build" -Dfuzzing=true -Dgui=false \
        -Db_sanitize=address,undefined -Db_lundef=false || exit 1
fi
targets=()
for h in "${harnesses[@]}"; do
    targets+=("tests/fuzz/fuzz-$h-libfuzzer")
done
ninja -C "$build" "${targets[@]}" || exit 1
if $build_only; then
    exit 0
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tests/lsan.supp:print_suppressions=0}

failed=()
for h in "${harnesses[@]}"; do
    out=tests/fuzz/findings/$h
    mkdir -p "$out/corpus"
    seeds=(tests/fuzz/corpus/$h)
    [ -d "tests/fuzz/crashes/$h" ] && seeds+=("tests/fuzz/crashes/$h")
    echo "=== fuzz-$h: ${seconds}s"
    # -max_len: seeds are a few KiB; longer inputs only slow the search.
    # -timeout: a single input taking 20 s is a hang.
    # -entropic=0: libFuzzer 14's entropic schedule spends most of the time
    # in its feature bookkeeping on these harnesses (2.5x fewer runs).
    "$build/tests/fuzz/fuzz-$h-libfuzzer" \
        -max_total_time="$seconds" -max_len=65536 -timeout=20 -rss_limit_mb=2560 -entropic=0 \
        -print_final_stats=1 -artifact_prefix="$out/" \
        "$out/corpus" "${seeds[@]}" > "$out/log.txt" 2>&1
    status=$?
    grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+.*DONE' "$out/log.txt" | sed "s/^/  /"
    if [ $status -ne 0 ]; then
        echo "  FAILED (status $status); see $out/log.txt"
        grep -E 'ERROR: |SUMMARY: |invariant failed' "$out/log.txt" | head -5 | sed "s/^/  /"
        failed+=("$h")
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "Harnesses that failed: ${failed[*]}"
    exit 1
fi
echo "All ${#harnesses[@]} harnesses ran ${seconds}s each without a failure"
