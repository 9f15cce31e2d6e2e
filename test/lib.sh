# test/lib.sh: shell helpers of hopblas's tests (POSIX sh).  A test is an
# executable #!/bin/sh script that prints TAP; source this first:
#
#   . "$top_srcdir/test/lib.sh"      # make check exports top_srcdir and top_builddir
#
# TAP (numbering is automatic; the plan is printed last, by hop_done, which TAP allows)
#   hop_ok DESC                 "ok N - DESC"
#   hop_not_ok DESC             "not ok N - DESC"; hop_done will exit 1
#   hop_skip DESC REASON        "ok N - DESC # SKIP REASON": a check meaningless in this run
#   hop_result RC DESC [LOG]    ok when RC is 0, else not ok and the tail of LOG as diagnostics
#   hop_run DESC CMD [ARG...]   run CMD, stdout and stderr to a log, then hop_result
#   hop_diag TEXT...            "# TEXT"
#   hop_diag_file FILE [N]      the last N (20) lines of FILE as diagnostics
#   hop_tap CMD [ARG...]        run a program that prints TAP itself (test/contract, ...):
#                               its lines are renumbered into this script's; a plan it
#                               did not complete (a crash: its "Bail out!" becomes a
#                               diagnostic), or a non-zero exit without a "not ok", is
#                               one more "not ok"
#   hop_done                    print the plan and exit 0 (all ok) or 1
#
# Paths (absolute)
#   HOP_LIB / hop_preload       $top_builddir/.libs/libhopblas.so.0, the library to LD_PRELOAD
#   HOP_CHECK_LIB / hop_check_lib  libhopblas-check.so.0: the same plus the test-wrong engine
#                               (built by make check from backends/testwrong/)
#   HOP_BLAS3                   the libblas.so.3-named build (relink / alternatives mode)
#   HOP_MULTIARCH               the build's Debian multiarch triplet (x86_64-linux-gnu,
#                               arm-linux-gnueabihf, aarch64-linux-gnu): configure's HOP_MULTIARCH
#   HOP_OPENBLAS                /usr/lib/$HOP_MULTIARCH/libopenblas.so.0
#   HOP_NETLIB                  Debian's prebuilt netlib testers (package libblas-test)
#   HOP_PYTHON                  /usr/bin/python3: Debian's numpy, never the pyenv python on PATH
#   HOP_CC                      ${CC:-cc}, for programs compiled at test time
#   HOP_BIN                     $top_builddir/test: the check_PROGRAMS (contract, threads, ...)
#   HOP_TMP                     a private directory, made when lib.sh is sourced and
#                               removed at exit (HOP_KEEP_TMP=1 keeps it)
#   HOP_LOG                     the log of the last hop_run / hop_tap
#
# Cross builds (tools/cross-check.sh): the programs built for another machine
# run under an emulator named by HOP_TARGET_EXEC (qemu-arm-static -L /, ...)
#   HOP_EXEC                    $HOP_TARGET_EXEC, empty in a native build
#   hop_is_target FILE          true when HOP_EXEC is set and FILE is an ELF file built for
#                               the library's machine (the build's programs, the target's
#                               netlib testers)
#   hop_exec CMD [ARG...]       run CMD, through $HOP_EXEC when hop_is_target CMD; hop_run
#                               and hop_tap run their command through it, so host tools
#                               (sh, awk) run as they are
#   hop_pick NATIVE EMULATED    echo NATIVE, or EMULATED when HOP_EXEC is set or in a sanitizer
#                               build (HOP_TEST_SANITIZER): qemu-user runs the programs 10-20
#                               times slower (the VideoCore emulator more), ASan several times,
#                               so a test run there takes a reduced input that still reaches
#                               every entry point, dtype and engine (the native build runs
#                               the full one)
#
# Traces (HOPBLAS_TRACE=FILE: CSV, the 2nd column is the symbol, the 9th the engine;
# the why column (10th) is quoted and may hold commas, so awk -F, counts from the
# front only up to it, and from the end after it: verify $(NF - 5), side, uplo and
# diag $(NF - 4) .. $(NF - 2), pid $(NF - 1), tid $NF)
#   hop_assert_engine TRACE ENGINE [SYMBOLS]
#       succeeds when every row whose engine is not "core" (core/ itself handles
#       alpha == 0, k == 0 and quick returns) or "none" (an argument error) ran
#       on ENGINE and there is at least one such row;
#       SYMBOLS is an awk ERE on the symbol column (default: every row).  On failure
#       it prints as diagnostics the engines seen and a few offending rows, so a
#       silent CPU fallback makes a device test fail and says why.
#   hop_trace_rows TRACE [SYMBOLS] [ENGINE]   number of rows (optionally of one engine)
#
# Engines and dtypes: the one list of which engine declares which dtypes (each
# engine's .takes in its struct hop_backend); test/declared.test holds it to
# the library, so an engine that learns a dtype fails there until it is added
#   hop_engine_dtypes ENGINE    its dtypes of GEMM, as test/contract's --dtypes takes them
#   hop_engine_routines ENGINE DTYPE  the Level-3 routines it takes in DTYPE (gemm symm ...),
#                               as `hopblas info`'s takes line says (test/declared.test);
#                               an engine not in the list: every routine
#   hop_engines_on              the engines `hopblas info` reports on in this build
#   hop_dtype_engines DTYPE     the engines on here that take DTYPE (cpu last)
#
# Environment
#   hop_clean_env               unset every HOPBLAS_* variable; a script that wants to
#                               honour its caller's (an engine's run-netlib.sh) skips it
#
# Engines reuse the programs with their own selection, e.g. a test/contract-foo.test:
#   HOPBLAS_BACKEND=foo HOPBLAS_TRACE=$HOP_TMP/t.csv; export HOPBLAS_BACKEND HOPBLAS_TRACE
#   hop_tap "$HOP_BIN/contract" --quick --max-dim 64
#   hop_assert_engine "$HOP_TMP/t.csv" foo; hop_result $? "every call ran on foo"
#   sh "$top_srcdir/test/run-netlib.sh" --tester cblas --mode preload --sizes "0 1 2 3 7" --engine foo

: "${top_srcdir:?top_srcdir is not set (run through make check, or export it)}"
: "${top_builddir:?top_builddir is not set (run through make check, or export it)}"
top_srcdir=$(cd "$top_srcdir" && pwd) && top_builddir=$(cd "$top_builddir" && pwd) || {
  echo "Bail out! top_srcdir or top_builddir does not exist"
  exit 1
}

HOP_LIB=$top_builddir/.libs/libhopblas.so.0
HOP_CHECK_LIB=$top_builddir/.libs/libhopblas-check.so.0
HOP_BLAS3=$top_builddir/.libs/libblas.so.3
# make check passes hop_multiarch; a script run by hand finds it in the Makefile.
HOP_MULTIARCH=${hop_multiarch:-$(sed -n 's/^HOP_MULTIARCH = //p' "$top_builddir/Makefile" 2>/dev/null)}
HOP_MULTIARCH=${HOP_MULTIARCH:-x86_64-linux-gnu}
HOP_OPENBLAS=/usr/lib/$HOP_MULTIARCH/libopenblas.so.0
HOP_NETLIB=/usr/lib/$HOP_MULTIARCH/blas
HOP_EXEC=${HOP_TARGET_EXEC:-}
HOP_PYTHON=/usr/bin/python3
HOP_CC=${CC:-cc}
HOP_BIN=$top_builddir/test
HOP_N=0
HOP_FAILED=0

hop_preload() { echo "$HOP_LIB"; }
hop_check_lib() { echo "$HOP_CHECK_LIB"; }

hop_diag() { echo "# $*"; }

hop_diag_file() {
  [ -f "$1" ] || return 0
  tail -n "${2:-20}" "$1" | sed 's/^/#   /'
}

hop_ok() {
  HOP_N=$((HOP_N + 1))
  echo "ok $HOP_N - $*"
}

# An explicit, visible skip (TAP "# SKIP reason"): only for a check that
# means nothing in this run, never for a path that merely failed to start.
hop_skip() {
  HOP_N=$((HOP_N + 1))
  echo "ok $HOP_N - $1 # SKIP $2"
}

hop_not_ok() {
  HOP_N=$((HOP_N + 1))
  HOP_FAILED=$((HOP_FAILED + 1))
  echo "not ok $HOP_N - $*"
}

hop_result() {
  if [ "$1" -eq 0 ]; then
    hop_ok "$2"
  else
    hop_not_ok "$2"
    [ -n "${3:-}" ] && hop_diag_file "$3"
  fi
  return 0
}

hop_done() {
  echo "1..$HOP_N"
  [ "$HOP_FAILED" -eq 0 ] && [ "$HOP_N" -gt 0 ] && exit 0
  exit 1
}

hop_tmpdir() {
  HOP_TMP=$(mktemp -d "${TMPDIR:-/tmp}/hopblas-test.XXXXXX") || {
    echo "Bail out! cannot create a temporary directory"
    exit 1
  }
  trap 'hop_cleanup' EXIT
  trap 'exit 1' INT TERM HUP
}

hop_cleanup() {
  if [ "${HOP_KEEP_TMP:-0}" = 1 ]; then
    echo "# kept $HOP_TMP" >&2
  else
    rm -rf "$HOP_TMP"
  fi
}

# Sets HOP_LOG to a fresh log file name (no subshell: the counter must persist).
HOP_LOGS=0
hop_next_log() {
  HOP_LOGS=$((HOP_LOGS + 1))
  HOP_LOG=$HOP_TMP/log.$HOP_LOGS
}

# The ELF machine number of FILE; empty when it is not an ELF file.
hop_elf_machine() {
  [ "$(od -An -c -N4 "$1" 2>/dev/null | tr -d ' ')" = 177ELF ] || return 0
  od -An -tu2 -j18 -N2 "$1" | tr -d ' '
}

hop_is_target() {
  [ -n "$HOP_EXEC" ] && [ -f "$1" ] && [ "$(hop_elf_machine "$1")" = "$(hop_elf_machine "$HOP_LIB")" ]
}

hop_exec() {
  if hop_is_target "$1"; then
    # shellcheck disable=SC2086 # the emulator and its options, one word each
    $HOP_EXEC "$@"
  else
    "$@"
  fi
}

hop_pick() {
  if [ -n "$HOP_EXEC" ] || [ -n "${HOP_TEST_SANITIZER:-}" ]; then echo "$2"; else echo "$1"; fi
}

hop_run() {
  _hop_desc=$1
  shift
  hop_next_log
  hop_exec "$@" >"$HOP_LOG" 2>&1
  hop_result $? "$_hop_desc" "$HOP_LOG"
}

hop_tap() {
  hop_next_log
  _hop_log=$HOP_LOG
  hop_exec "$@" >"$_hop_log" 2>&1
  _hop_rc=$?
  _hop_plan=""
  _hop_seen=0
  _hop_bad=0
  while IFS= read -r _hop_line; do
    case $_hop_line in
    "ok "* | "not ok "*)
      _hop_rest=$(printf '%s\n' "$_hop_line" | sed 's/^\(not \)\{0,1\}ok *[0-9]* *-\{0,1\} *//')
      _hop_seen=$((_hop_seen + 1))
      case $_hop_line in
      ok*) hop_ok "$_hop_rest" ;;
      *) hop_not_ok "$_hop_rest" && _hop_bad=$((_hop_bad + 1)) ;;
      esac
      ;;
    1..*) _hop_plan=${_hop_line#1..} ;;
    "#"*) printf '%s\n' "$_hop_line" ;;
    # A program's bail-out (a crash it caught) ends the program, not this script.
    "Bail out!"*) printf '# %s\n' "$_hop_line" ;;
    *) printf '#   %s\n' "$_hop_line" ;;
    esac
  done <"$_hop_log"
  if [ -z "$_hop_plan" ] || [ "$_hop_seen" -ne "${_hop_plan%% *}" ]; then
    hop_not_ok "$(basename "$1"): ran $_hop_seen of ${_hop_plan:-an unknown number of} tests (exit $_hop_rc)"
  elif [ "$_hop_rc" -ne 0 ] && [ "$_hop_bad" -eq 0 ]; then
    hop_not_ok "$(basename "$1") exited with status $_hop_rc"
  fi
  return 0
}

hop_trace_rows() {
  [ -f "$1" ] || {
    echo 0
    return 0
  }
  awk -F, -v sym="${2:-.}" -v eng="${3:-}" '
    $1 == "time" || $2 !~ sym { next }
    eng == "" || $9 == eng { n++ }
    END { print n + 0 }' "$1"
}

hop_assert_engine() {
  if [ ! -s "$1" ]; then
    hop_diag "trace $1 is missing or empty: the library did not see the calls"
    return 1
  fi
  awk -F, -v eng="$2" -v sym="${3:-.}" '
    $1 == "time" || $2 !~ sym { next }
    $9 == "core" || $9 == "none" { core++; next }
    { seen[$9]++ }
    $9 == eng { good++; next }
    { bad++; if (bad <= 3) rows[bad] = $0 }
    END {
      if (good > 0 && bad == 0)
        exit 0
      printf "# expected every non-trivial call on %s; the trace has", eng
      for (e in seen)
        printf " %s=%d", e, seen[e]
      printf " core/none=%d\n", core
      for (i = 1; i <= bad && i <= 3; i++)
        printf "#   %s\n", rows[i]
      exit 1
    }' "$1"
}

hop_engine_dtypes() { # ENGINE [OPENCL_FAMILY]: the image families have no double kernel
  case $1:${2:-generic} in
  cpu:*) echo s,d,c,z,h,sh ;;
  opencl:generic | opencl:nvidia) echo s,d,c,z,h,sh ;;
  opencl:* | videocore:* | videocore-emu:*) echo s,c,h,sh ;;
  *) echo "" ;;
  esac
}

# The Level-3 routines of a precision: every one for d, s; Hermitian ones for c, z too.
hop_routines() {
  case $1 in
  s | d) echo gemm symm syrk syr2k trmm trsm gemmt gemm_batch ;;
  c | z) echo gemm symm hemm syrk herk syr2k her2k trmm trsm gemmt gemm_batch ;;
  *) echo gemm ;;
  esac
}

hop_engine_routines() {
  case ,$(hop_engine_dtypes "$1"), in
  ,,) hop_routines "$2"; return 0 ;; # not in the list: a test engine, or a wrong name on purpose
  *,"$2",*) ;;
  *) echo ""; return 0 ;;
  esac
  case $1:$2 in
  cpu:*) hop_routines "$2" ;;
  opencl:s | opencl:d) echo gemm gemmt symm syrk syr2k trmm trsm gemm_batch ;;
  opencl:c | opencl:z) echo gemm gemmt symm hemm syrk herk syr2k her2k trmm trsm gemm_batch ;;
  *) echo gemm ;;
  esac
}

hop_engines_on() {
  hop_exec "$top_builddir/hopblas" info 2>/dev/null | awk '/^engines/ { e = 1; next } e && NF >= 2 && $2 == "on" && /^  [a-z]/ { print $1 }'
}

hop_dtype_engines() {
  for _hop_e in $(hop_engines_on); do
    case ",$(hop_engine_dtypes "$_hop_e")," in *",$1,"*) echo "$_hop_e" ;; esac
  done
}

hop_clean_env() {
  for _hop_var in $(env | sed -n 's/^\(HOPBLAS_[A-Za-z0-9_]*\)=.*/\1/p'); do
    unset "$_hop_var"
  done
}

hop_tmpdir
