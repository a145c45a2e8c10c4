# Sourced by scripts/test-all.sh and contract-tests/run.sh.
#
# side_by_side TITLE LOG COMMAND [TITLE LOG COMMAND ...]
# Starts every COMMAND (one shell command line) at once, each writing its output to its LOG,
# waits for all of them, then prints each LOG whole under "-- TITLE: exit N", in the order given.
# Returns 1 if any failed. For work that waits on different things (a core each, servers of
# their own), so that side by side it takes as long as the longest instead of the sum.
side_by_side() {
  local titles=() logs=() pids=() codes=() i failed=0
  while [ $# -ge 3 ]; do
    titles+=("$1")
    logs+=("$2")
    bash -c "$3" > "$2" 2>&1 &
    pids+=("$!")
    shift 3
  done
  if [ $# -ne 0 ]; then
    echo "side_by_side: arguments come in threes (title, log, command)" >&2
    return 2
  fi
  for i in "${!pids[@]}"; do
    codes[i]=0
    wait "${pids[i]}" || codes[i]=$?
  done
  for i in "${!pids[@]}"; do
    printf -- '-- %s: exit %s\n' "${titles[i]}" "${codes[i]}"
    cat "${logs[i]}"
    [ "${codes[i]}" = 0 ] || failed=1
  done
  return "$failed"
}
