#!/usr/bin/env bash
# The runtime side (mt-run, mt-data, mt-ckpt, their libraries, the unit
# tests) built with sanitizers in build-asan or build-tsan, then the
# unit tests and the lit tests that run those tools, under them (issue #25).
# mtc comes from the normal build (scripts/build.sh, run first): the plans'
# generated code is not instrumented, the C++ that loads and runs it is.
# Usage: scripts/sanitize.sh [address|thread] [LIT_FILTER]
#   address: AddressSanitizer + UndefinedBehaviorSanitizer (default)
#   thread:  ThreadSanitizer, over the tests whose ranks are threads
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mode="${1:-address}"
bash "$root/scripts/build.sh"
case "$mode" in
  address)
    flags="-fsanitize=address,undefined -fno-sanitize=vptr -fno-sanitize-recover=undefined"
    filter="${2:-mt-run/|parallel/|checkpoint/|data/|generate/}" ;;
  thread)
    flags="-fsanitize=thread"
    filter="${2:-parallel/|mt-run/stop-signal|mt-run/train|checkpoint/resume}" ;;
  *) echo "usage: scripts/sanitize.sh [address|thread] [LIT_FILTER]" >&2; exit 2 ;;
esac
build="$root/build-$([ "$mode" = address ] && echo asan || echo tsan)"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    "-DCMAKE_C_FLAGS=$flags -fno-omit-frame-pointer -g1" "-DCMAKE_CXX_FLAGS=$flags -fno-omit-frame-pointer -g1" \
    "-DCMAKE_EXE_LINKER_FLAGS=$flags" "-DCMAKE_SHARED_LINKER_FLAGS=$flags"
fi
cmake --build "$build" -j "$(nproc)" --target mt-run mt-data mt-ckpt mt-generate mt-unittests mt-data-unittests mt-sentencepiece

# Open MPI and the MLIR libraries keep allocations until exit on purpose.
export LSAN_OPTIONS="suppressions=$root/scripts/sanitizer-suppressions/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0"
export ASAN_OPTIONS="abort_on_error=0:detect_leaks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export TSAN_OPTIONS="suppressions=$root/scripts/sanitizer-suppressions/tsan.supp:halt_on_error=1:second_deadlock_stack=1"
"$build/bin/mt-unittests"
"$build/bin/mt-data-unittests"
MT_SANITIZED_TOOLS_DIR="$build/bin" /usr/lib/llvm-22/bin/lit -sv "$root/build/test" --filter "$filter"
echo "sanitize.sh $mode: clean"
